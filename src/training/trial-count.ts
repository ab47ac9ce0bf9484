/**
 * N of the deflated Sharpe for a trained model: how many variants this account has tried of the
 * same idea. Counted: the account's models and finished (done) train jobs on the same symbol and
 * timeframe whose code is at least DESCENT_THRESHOLD (0.7) alike to this job's (the fork-descent
 * measure of src/lib/code-similarity.ts), each job once (a model is its job), and this job.
 *
 * Optimisations: a model saved from an optimisation (JobRecord / ModelRecord `optimization`) is
 * the best of that optimisation's trials, so the optimisation counts as its trials run — once,
 * however many of its trials were saved (each saved model is one of those trials, not one more).
 * So N = the counted jobs not from an optimisation + Σ trials run of each distinct optimisation
 * the counted jobs came from. An optimisation none of whose trials was saved leaves no job and
 * is not counted (its own report already takes N = its trials).
 *
 * Forks: a fork is a copy of its parent's code in the account (src/community), so what is trained
 * from it counts by the same code measure; training keeps no fork link of its own to follow.
 * Lineage is measured against this job's code directly, not through chains of edits.
 *
 * Cheap for an account with hundreds of models: one listing of the job keys and only the jobs not
 * seen before are read (a finished job never changes: its owner, symbol and timeframe are kept in
 * memory); code is read only of the account's candidates on the same symbol and timeframe, and
 * its token runs are kept (bounded) per immutable job or artifact.
 */
import { codePrint, codeSimilarity, DESCENT_THRESHOLD, type CodePrint } from '../lib/code-similarity.ts';
import type { JobRecord } from '../../schemas/training.ts';
import type { JobStore } from './job-store.ts';
import type { ModelStore } from './model-store.ts';

/** Code prints kept between counts. */
const PRINTS_KEPT = 2_000;
/** Job records read at once while catching up. */
const READ_BATCH = 64;

/** An optimisation a counted job was saved from. */
type From = JobRecord['optimization'];
/** What a finished job tells the count (null: it failed, never a variant). */
type Finished = { user: number; symbol: string; timeframe: string; optimization?: From } | null;

export interface TrialCounterDeps {
  jobs: Pick<JobStore, 'ids' | 'get'>;
  models: Pick<ModelStore, 'list' | 'code'>;
}

export class TrialCounter {
  private readonly finished = new Map<number, Finished>();
  private readonly prints = new Map<string, CodePrint>();

  constructor(private readonly deps: TrialCounterDeps) {}

  /** N for the job (≥ 1: the job itself). */
  async count(job: JobRecord): Promise<number> {
    const { symbol, timeframe, code } = job.request;
    const mine = codePrint(code);
    const same = (user: number, s: string, t: string) => user === job.user_id && s === symbol && t === timeframe;
    const alike = (print: CodePrint) => codeSimilarity(mine, print) >= DESCENT_THRESHOLD;
    // Each counted job with the optimisation it was saved from, if any.
    const counted = new Map<number, From>([[job.job_id, job.optimization]]);

    const models = (await this.deps.models.list(job.user_id)).filter(
      (m) => same(m.user_id, m.symbol, m.timeframe) && !counted.has(m.job_id),
    );
    for (const model of models) {
      if (alike(await this.print(`model:${model.user_id}.${model.model_name}/${model.artifact}`, () => this.deps.models.code(model))))
        counted.set(model.job_id, model.optimization);
    }
    for (const [id, from] of await this.doneJobs(job.user_id, symbol, timeframe)) {
      if (counted.has(id)) continue;
      const print = await this.print(`job:${id}`, async () => (await this.deps.jobs.get(id))?.request.code ?? '');
      if (alike(print)) counted.set(id, from);
    }
    return trialsOf(counted.values());
  }

  /** The account's done jobs on the symbol and timeframe (id → the optimisation it was saved from), reading only jobs not seen finished before. */
  private async doneJobs(user: number, symbol: string, timeframe: string): Promise<Map<number, From>> {
    const ids = await this.deps.jobs.ids();
    const live = new Set(ids);
    for (const id of this.finished.keys()) if (!live.has(id)) this.finished.delete(id); // expired from the bucket
    const unseen = ids.filter((id) => !this.finished.has(id));
    for (let i = 0; i < unseen.length; i += READ_BATCH) {
      const records = await Promise.all(unseen.slice(i, i + READ_BATCH).map((id) => this.deps.jobs.get(id)));
      for (const r of records) {
        if (r?.status === 'done')
          this.finished.set(r.job_id, {
            user: r.user_id,
            symbol: r.request.symbol,
            timeframe: r.request.timeframe,
            optimization: r.optimization,
          });
        else if (r?.status === 'failed') this.finished.set(r.job_id, null);
      }
    }
    const out = new Map<number, From>();
    for (const [id, f] of this.finished)
      if (f && f.user === user && f.symbol === symbol && f.timeframe === timeframe) out.set(id, f.optimization);
    return out;
  }

  private async print(key: string, code: () => Promise<string>): Promise<CodePrint> {
    const kept = this.prints.get(key);
    if (kept) {
      this.prints.delete(key); // most recently used last
      this.prints.set(key, kept);
      return kept;
    }
    const print = codePrint(await code());
    this.prints.set(key, print);
    if (this.prints.size > PRINTS_KEPT) this.prints.delete(this.prints.keys().next().value!);
    return print;
  }
}

/** N of the counted jobs: 1 each, except those saved from one optimisation, which together count as its trials run. */
function trialsOf(jobs: Iterable<From>): number {
  let plain = 0;
  const optimisations = new Map<number, number>();
  for (const from of jobs) {
    if (!from) plain++;
    else optimisations.set(from.optimize_id, Math.max(optimisations.get(from.optimize_id) ?? 0, from.trials_run));
  }
  let n = plain;
  for (const trials of optimisations.values()) n += trials;
  return n;
}
