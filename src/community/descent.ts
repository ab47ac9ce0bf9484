/**
 * Whether a fork's code descends from its parent's: the measure behind a fork link (and the
 * payouts that follow it). Both codes become normalised token streams; their similarity is the
 * Dice coefficient of their runs of GRAM tokens (2 × shared runs / all runs, counted with
 * repeats). The link holds at DESCENT_THRESHOLD or above. `DESCENT_RULE` says the same in words
 * for the API description: keep the two together.
 *
 * Why runs and not single tokens: every strategy is Python over the same contract (two functions,
 * `df[...] = ...` lines, a strategy_config dict), so two unrelated strategies share most single
 * tokens in order (a token-level diff ratio gives 0.73–0.88 between the offline generator's
 * templates); they share far fewer runs of 8. Calibration (test/community/descent.test.ts): the
 * generator's five templates pairwise 0.37–0.62 (the highest: two EMA-crossover strategies); an
 * honest edit of one — new parameters, another model, two more indicators, four variables renamed,
 * comments and layout stripped — 0.78–1.
 */

import { codePrint, codeSimilarity, DESCENT_THRESHOLD, GRAM } from '../lib/code-similarity.ts';

// The measure and its threshold live in src/lib (training counts trials with them too).
export { DESCENT_THRESHOLD, GRAM, normalisedTokens } from '../lib/code-similarity.ts';

/** The measure in words (OpenAPI, README). */
export const DESCENT_RULE =
  '**Fork links hold only when the code descends.** When a model is shared with `parent_id`, its strategy code is ' +
  'compared with the parent entry’s frozen code. Both are cut into Python tokens with comments, whitespace, ' +
  'indentation and triple-quoted strings (docstrings) dropped, every number read as `N` — digits inside string ' +
  'literals too, so `df["ema_200"]` and `df["ema_50"]` are the same token — and names, keywords, operators and ' +
  `other string literals kept as written. **similarity = 2 × S / (a + b)**, where a and b count each code’s runs of ` +
  `${GRAM} consecutive tokens and S the runs they share (with repeats). The link holds when similarity ≥ ` +
  `**${DESCENT_THRESHOLD}**. So new parameters, thresholds, another model, comments or layout keep a fork a fork (1.0), ` +
  'and so do a couple of added indicators or a few renamed variables; another strategy — even one written by the same ' +
  'generator, or with a few of the parent’s lines kept — does not. A child whose code does not descend is still ' +
  'published, as a root: its `parent_id` is null, it is not among the parent’s children in the lineage, and its ' +
  'publisher’s spend pays the parent’s author nothing. Its `descent` says so, on the share answer and on the entry ' +
  'from then on: the parent it named, the similarity and the threshold.';

export interface Descent {
  /** 2 × shared runs / all runs, 0…1 (1: the same code but for comments, layout and numbers), rounded to 3 decimals. */
  similarity: number;
  holds: boolean;
  threshold: number;
}

/** How much of the parent's code the child keeps, by the measure above. */
export function descent(parentCode: string, childCode: string): Descent {
  // The rule is decided on the rounded value the answer shows.
  const shown = codeSimilarity(codePrint(parentCode), codePrint(childCode));
  return { similarity: shown, holds: shown >= DESCENT_THRESHOLD, threshold: DESCENT_THRESHOLD };
}
