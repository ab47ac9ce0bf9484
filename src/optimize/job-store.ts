import type { JsonKv } from '../bus/index.ts';
import type { Buckets, CounterRecord } from '../../schemas/messages.ts';
import { TRIALS_PER_CHUNK, type OptimizeRecord, type OptimizeTrial } from '../../schemas/optimize.ts';

type Jobs = JsonKv<typeof Buckets.optimize.schema>;
type Counters = JsonKv<typeof CounterRecord>;
type TrialChunks = JsonKv<typeof Buckets.optimizeTrials.schema>;

/** The KV key of a user's optimisation: the user first, so a user's jobs are listed by prefix and another's id is simply absent. */
const key = (userId: number, id: number) => `${userId}.${id}`;

/** Still holding credits and a concurrency slot. */
export const isActive = (job: Pick<OptimizeRecord, 'status'>): boolean => job.status === 'queued' || job.status === 'running';

/**
 * Optimisation jobs in KV (`sf_optimize`): ids from the shared counter, every change by
 * compare-and-set, so the edge answering GET and the runner writing trials agree.
 */
/** The fields a new job is given; the rest start empty. */
export type NewOptimizeJob = Pick<
  OptimizeRecord,
  'optimize_id' | 'user_id' | 'username' | 'plan' | 'request' | 'objective' | 'trials_planned' | 'credits_per_trial' | 'credits_charged'
>;

/** A job as POST /optimize records it: queued, unclaimed (the first runner to see it claims it), nothing run. */
export function queuedRecord(job: NewOptimizeJob, now: number): OptimizeRecord {
  return {
    ...job,
    status: 'queued',
    credits_refunded: 0,
    created_at: now,
    started_at: null,
    finished_at: null,
    heartbeat_at: null,
    attempts: 0,
    stage: null,
    cancel_requested: false,
    folds: [],
    trials_run: 0,
    trials_failed: 0,
    best_value: null,
    chosen_trial: null,
    walk_forward: null,
    pbo: null,
    degradation: null,
    robustness: null,
    saved: null,
  };
}

export class OptimizeStore {
  constructor(
    private readonly jobs: Jobs,
    private readonly counters: Counters,
    private readonly chunks: TrialChunks,
  ) {}

  async nextId(): Promise<number> {
    const { value } = await this.counters.mutate('optimize_id', (c) => ({ value: (c?.value ?? 0) + 1 }));
    return value.value;
  }

  async create(job: OptimizeRecord): Promise<void> {
    if ((await this.jobs.create(key(job.user_id, job.optimize_id), job)) === false)
      throw new Error(`optimisation ${job.optimize_id} exists already`);
  }

  /** The user's job; null when it is not theirs or does not exist. */
  async get(userId: number, id: number): Promise<OptimizeRecord | null> {
    return (await this.jobs.get(key(userId, id)))?.value ?? null;
  }

  /** A user's jobs (every job when userId is null), oldest first. */
  async list(userId: number | null): Promise<OptimizeRecord[]> {
    const keys = await this.jobs.keys(userId === null ? '>' : `${userId}.*`);
    const records = await Promise.all(keys.map((k) => this.jobs.get(k)));
    return records.flatMap((r) => (r ? [r.value] : [])).sort((a, b) => a.optimize_id - b.optimize_id);
  }

  /**
   * Writes the chunks `changed` touches, each whole from `all` (every trial the writer holds, by
   * `trial` number): no chunk is read back. Only the job's runner writes trials, and it holds them
   * all (a resumed runner starts from the stored ones), so no two writers race on a chunk.
   */
  async putTrials(userId: number, id: number, all: readonly OptimizeTrial[], changed: readonly OptimizeTrial[]): Promise<void> {
    const touched = new Set(changed.map((t) => Math.floor(t.trial / TRIALS_PER_CHUNK)));
    for (const c of touched) {
      const trials = all.filter((t) => Math.floor(t.trial / TRIALS_PER_CHUNK) === c).sort((a, b) => a.trial - b.trial);
      await this.chunks.put(`${key(userId, id)}.${c}`, { trials });
    }
  }

  /** Every trial of the job recorded so far, by trial number. */
  async trials(userId: number, id: number): Promise<OptimizeTrial[]> {
    const keys = await this.chunks.keys(`${key(userId, id)}.*`);
    const chunks = await Promise.all(keys.map((k) => this.chunks.get(k)));
    return chunks.flatMap((c) => c?.value.trials ?? []).sort((a, b) => a.trial - b.trial);
  }

  /** The job's highest-numbered trial recorded so far (one chunk read: a progress event's, not the whole list). */
  async lastTrial(userId: number, id: number): Promise<OptimizeTrial | null> {
    const keys = await this.chunks.keys(`${key(userId, id)}.*`);
    const chunkOf = (k: string) => Number(k.slice(k.lastIndexOf('.') + 1));
    const last = keys.reduce<string | null>((best, k) => (best === null || chunkOf(k) > chunkOf(best) ? k : best), null);
    return last === null ? null : ((await this.chunks.get(last))?.value.trials.at(-1) ?? null);
  }

  /** Calls `onJob` with every job now and after each change of any, until `stop` (the runners' queue). */
  async watchAll(onJob: (job: OptimizeRecord) => void): Promise<{ stop(): void }> {
    return this.jobs.watch((_key, value) => {
      if (value) onJob(value);
    });
  }

  /** Calls `onChange` with the job now and after each change, until `stop`. */
  watch(userId: number, id: number, onChange: (job: OptimizeRecord | null) => void): Promise<{ stop(): void }> {
    return this.jobs.watchKey(key(userId, id), onChange);
  }

  /** A change under compare-and-set; `change` returns null to write nothing (then null is returned). */
  async update(userId: number, id: number, change: (job: OptimizeRecord) => OptimizeRecord | null): Promise<OptimizeRecord | null> {
    return this.jobs.change(key(userId, id), `optimisation ${id}`, change);
  }
}
