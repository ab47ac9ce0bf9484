import type { JsonKv } from '../bus/index.ts';
import { isoFromMs } from '../lib/iso-time.ts';
import type { CounterRecord } from '../../schemas/messages.ts';
import type { JobRecord, JobView } from '../../schemas/training.ts';
import type { Buckets } from '../../schemas/messages.ts';

type Jobs = JsonKv<typeof Buckets.jobs.schema>;
type Counters = JsonKv<typeof CounterRecord>;

/**
 * Train jobs in KV: ids from a counter, every status change by compare-and-set, so an edge and
 * any number of trainers agree on a job's state.
 */
export class JobStore {
  constructor(
    private readonly jobs: Jobs,
    private readonly counters: Counters,
  ) {}

  /** The next job id (1, 2, 3…), unique across every process sharing the bucket. */
  async nextId(): Promise<number> {
    const { value } = await this.counters.mutate('job_id', (c) => ({ value: (c?.value ?? 0) + 1 }));
    return value.value;
  }

  /**
   * The number of a user's next auto-named model (`Model N`), allocated by compare-and-set so
   * trains submitted at once never get the same one: the first number above both the user's
   * model count and the last one handed out that `taken` does not hold.
   */
  async nextModelNumber(userId: number, taken: ReadonlySet<string>): Promise<number> {
    const { value } = await this.counters.mutate(`model_name.${userId}`, (c) => {
      let n = Math.max(c?.value ?? 0, taken.size) + 1;
      while (taken.has(`model ${n}`)) n++;
      return { value: n };
    });
    return value.value;
  }

  async create(job: JobRecord): Promise<void> {
    if ((await this.jobs.create(String(job.job_id), job)) === false) throw new Error(`job ${job.job_id} exists already`);
  }

  /** Calls `onChange` with the job now and after each change, until `stop`. */
  watch(jobId: number, onChange: (job: JobRecord | null) => void): Promise<{ stop(): void }> {
    return this.jobs.watchKey(String(jobId), onChange);
  }

  /** Every job id the bucket keeps (one request; jobs are forgotten 30 days after they finish). */
  async ids(): Promise<number[]> {
    return (await this.jobs.keys()).map(Number).filter(Number.isInteger);
  }

  async get(jobId: number): Promise<JobRecord | null> {
    return (await this.jobs.get(String(jobId)))?.value ?? null;
  }

  /**
   * Applies a change to the job under compare-and-set; `change` returns null to leave the job as
   * it is (nothing is written). Resolves with the new record, or null when nothing changed.
   */
  async update(jobId: number, change: (job: JobRecord) => JobRecord | null): Promise<JobRecord | null> {
    return this.jobs.change(String(jobId), `job ${jobId}`, change);
  }
}

/** The public view of a job: no code, no user id. */
export function jobView(job: JobRecord): JobView {
  const view: JobView = {
    job_id: job.job_id,
    status: job.status,
    model_name: job.model_name,
    model_stem: job.model_stem,
    symbol: job.request.symbol,
    timeframe: job.request.timeframe,
    created_at: isoFromMs(job.created_at),
    started_at: job.started_at === null ? null : isoFromMs(job.started_at),
    finished_at: job.finished_at === null ? null : isoFromMs(job.finished_at),
    stage: job.status === 'running' ? job.stage : null,
  };
  if (job.status === 'done' && job.stats) {
    view.train_stats = job.stats.train;
    view.test_stats = job.stats.test;
    view.long_stats = job.stats.long;
    view.short_stats = job.stats.short;
  }
  if (job.status === 'done' && job.robustness) view.robustness = job.robustness;
  if (job.status === 'failed') view.error = job.error ?? 'the job failed';
  if (job.one_shot) view.one_shot = job.one_shot;
  return view;
}
