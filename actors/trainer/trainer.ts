import type { Metering } from '../../src/accounts/index.ts';
import { isTransientBusError, type Delivered } from '../../src/bus/index.ts';
import type { ActivityBus } from '../../src/community/index.ts';
import { AppError } from '../../src/errors.ts';
import { liveClock, type Actor, type Clock } from '../../src/kernel/index.ts';
import type { Logger } from '../../src/log.ts';
import { JobStore, ModelStore, StrategyJobError, TrainQueue, type TrainPipeline, type TrainOutcome } from '../../src/training/index.ts';
import type { JobRecord } from '../../schemas/training.ts';

/** How long a job interrupted by a NATS outage waits before it is handed out again. */
const NATS_RETRY_DELAY_MS = 1_000;

/** A job whose trainer vanished this many times is failed rather than tried again. */
export const MAX_ATTEMPTS = 2;

export interface TrainerDeps {
  queue: TrainQueue;
  jobs: JobStore;
  models: ModelStore;
  pipeline: TrainPipeline;
  activity: Pick<ActivityBus, 'emit'>;
  metering: Pick<Metering, 'releaseCap'>;
  log: Logger;
  /** Jobs run at once by this trainer. */
  concurrency: number;
  clock?: Clock;
}

/** Raised inside a job when the trainer is stopping: the job goes back to the queue. */
class Interrupted extends Error {}

/**
 * The `trainer` role: pulls train jobs from the JOBS work queue, runs the pipeline (bars →
 * sandboxed Python → ONNX → backtest), stores the model and the job's outcome.
 *
 * A job is acknowledged only once its outcome is written. If the process dies mid-job, the
 * queue hands the job out again after its ack wait (heartbeats stop); the next attempt finds
 * it `running` from a vanished trainer and runs it again, up to MAX_ATTEMPTS, then fails it with
 * the reason. A trainer stopped gracefully puts its running jobs back to `queued` at once.
 */
export class Trainer implements Actor<Delivered> {
  private stopping = false;
  private readonly loops: Promise<void>[] = [];
  private readonly inFlight = new Set<Delivered>();
  private readonly counts = { done: 0, failed: 0 };
  private readonly clock: Clock;

  constructor(private readonly deps: TrainerDeps) {
    this.clock = deps.clock ?? liveClock;
  }

  async start(): Promise<void> {
    const consumer = await this.deps.queue.consumer();
    for (let i = 0; i < this.deps.concurrency; i++) {
      this.loops.push(
        (async () => {
          while (!this.stopping) {
            let msg: Delivered | null = null;
            try {
              msg = await consumer.next(2000);
            } catch (err) {
              if (this.stopping) break;
              this.deps.log.warn({ err }, 'trainer: pulling the next job failed; retrying');
              await this.clock.sleep(1000);
            }
            if (msg) await this.handle(msg);
          }
        })(),
      );
    }
  }

  /** Stops pulling; jobs in flight go back to `queued` and to the queue for the next trainer. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const msg of [...this.inFlight]) {
      const id = TrainQueue.jobId(msg);
      if (id !== null) {
        await this.deps.jobs
          .update(id, (job) => (job.status === 'running' ? { ...job, status: 'queued', stage: null, attempts: Math.max(0, job.attempts - 1) } : null))
          .catch(() => undefined);
      }
      // Out of inFlight first, so the job's own `finally` does not acknowledge it after all.
      this.inFlight.delete(msg);
      msg.nak();
    }
    // Not awaited: a loop may be inside a sandbox job, which ends when the runtime stops (after
    // this, in the shutdown order); once `stopping`, a loop writes and acknowledges nothing.
    void Promise.allSettled(this.loops);
  }

  stats() {
    return { running: this.inFlight.size, ...this.counts };
  }

  /** Runs the train job a queue message names (the pull loops call it); acknowledges it once its outcome is written. */
  async handle(msg: Delivered): Promise<void> {
    const { jobs, log } = this.deps;
    const id = TrainQueue.jobId(msg);
    const job = id === null ? null : await jobs.get(id);
    if (!job || job.status === 'done' || job.status === 'failed') {
      msg.ack();
      return;
    }
    if (job.attempts >= MAX_ATTEMPTS) {
      await this.fail(job, `the trainer stopped ${job.attempts} times while running this job (process restart or crash); it was not tried again — submit it again`);
      await this.deps.metering.releaseCap(job.user_id, 'train_compute', job.cap_counted_at);
      msg.ack();
      return;
    }
    this.inFlight.add(msg);
    const stopHeartbeat = this.clock.every(this.deps.queue.heartbeatMs, () => msg.working());
    try {
      const running = await jobs.update(job.job_id, (j) =>
        j.status === 'queued' || j.status === 'running'
          ? { ...j, status: 'running', started_at: this.clock.now(), stage: 'loading bars', attempts: j.attempts + 1 }
          : null,
      );
      if (!running) return;
      log.info({ job_id: job.job_id, user_id: job.user_id, attempt: running.attempts }, 'train job started');
      const outcome = await this.deps.pipeline(running, async (stage) => {
        if (this.stopping) throw new Interrupted();
        await jobs.update(job.job_id, (j) => (j.status === 'running' ? { ...j, stage } : null));
      });
      if (this.stopping) throw new Interrupted();
      await this.succeed(running, outcome);
    } catch (err) {
      if (this.stopping) return; // stop() has put the job back
      if (isTransientBusError(err)) {
        // NATS went away mid-job (a restart): not the user's failure; the job is handed out again.
        log.warn({ job_id: job.job_id, error: (err as Error).message }, 'train job interrupted by a NATS outage; it will run again');
        this.inFlight.delete(msg);
        msg.nak(NATS_RETRY_DELAY_MS);
        return;
      }
      await this.fail(job, describeFailure(err));
      if (!(err instanceof AppError) && !(err instanceof StrategyJobError)) {
        // Our fault, not the strategy's: the run does not count against the user's daily cap.
        log.error({ err, job_id: job.job_id }, 'train job failed');
        await this.deps.metering.releaseCap(job.user_id, 'train_compute', job.cap_counted_at);
      }
    } finally {
      stopHeartbeat();
      if (this.inFlight.delete(msg)) msg.ack();
    }
  }

  private async succeed(job: JobRecord, outcome: TrainOutcome): Promise<void> {
    const { record, results, onnx } = outcome;
    await this.deps.models.save(record, { onnx, code: job.request.code, results });
    const stats = { train: record.train_stats, test: record.test_stats, long: record.long_stats, short: record.short_stats };
    await this.deps.jobs.update(job.job_id, (j) => ({ ...j, status: 'done', stage: null, finished_at: this.clock.now(), stats }));
    this.counts.done++;
    this.deps.log.info({ job_id: job.job_id, model: record.stem, test_trades: record.test_stats.n }, 'train job done');
    const model = { name: record.model_name, stem: record.stem, symbol: record.symbol, timeframe: record.timeframe, model_type: record.model_type };
    const headline = (s: typeof record.test_stats) => ({ n: s.n, wr: s.wr, ret: s.ret, pf: s.pf, mdd: s.mdd });
    await this.deps.activity.emit({ kind: 'TRAINED', bot: job.username, model, metrics: headline(record.train_stats) });
    await this.deps.activity.emit({ kind: 'BACKTEST_DONE', bot: job.username, model, metrics: headline(record.test_stats) });
  }

  private async fail(job: JobRecord, error: string): Promise<void> {
    await this.deps.jobs.update(job.job_id, (j) => ({ ...j, status: 'failed', stage: null, finished_at: this.clock.now(), error }));
    this.counts.failed++;
    this.deps.log.info({ job_id: job.job_id, error }, 'train job failed');
  }
}

/** What the user reads in `error`: the strategy's own fault in its words, ours without internals. */
function describeFailure(err: unknown): string {
  if (err instanceof StrategyJobError) return `strategy ${err.kind === 'error' ? 'error' : err.kind}: ${err.message}`;
  if (err instanceof AppError) return err.message;
  return 'internal error while training; the failure was logged — submit the job again';
}
