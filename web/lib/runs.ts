/**
 * What this browser saw of a model's creation (its strategy code, the prompt): the API serves a
 * model's results, not its code, so the model page shows the code written in this browser.
 */
export interface RunMemo {
  code: string;
  prompt: string;
  /** The community entry this model's code was forked from (sent as parent_id when it is shared). */
  forked_from?: number;
  /** The optimisation whose chosen trial this model was saved from (its page shows the trials' scatter and PBO). */
  optimized_from?: number;
}

const key = (stem: string) => `sf_run_${stem}`;

export function rememberRun(stem: string, memo: RunMemo): void {
  try {
    localStorage.setItem(key(stem), JSON.stringify(memo));
  } catch {
    // Storage full or disabled: the model page simply shows no code.
  }
}

export function recallRun(stem: string): RunMemo | null {
  const raw = localStorage.getItem(key(stem));
  return raw ? (JSON.parse(raw) as RunMemo) : null;
}
