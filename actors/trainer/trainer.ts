import type { Metering } from '../../src/accounts/index.ts';
import { isTransientBusError, type Delivered } from '../../src/bus/index.ts';
import type { ActivityBus } from '../../src/community/index.ts';
import { AppError } from '../../src/errors.ts';
import { PoolFullError } from '../../src/lib/fair-share.ts';
import { ModelRejectedError } from '../../src/scoring/index.ts';
import { type Actor } from '../../src/kernel/index.ts';
import { liveClock, type Clock } from '../../src/lib/clock.ts';
import type { Logger } from '../../src/log.ts';
import {
  JobStore,
  ModelStore,
  StrategyJobError,
  TrainQueue,
  type OverrunPenalty,
  type TrainPipeline,
  type TrainOutcome,
} from '../../src/training/index.ts';
import type { JobRecord } from '../../schemas/training.ts';
import { WaitingRoom } from './waiting-room.ts';

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
  /** Jobs of one user run at once by this trainer (default 1). */
  perUser?: number;
  /** Jobs pulled ahead and held (heartbeated) to choose among (default 32). */
  lookahead?: number;
  /** Users served last (only when nothing else runs): their jobs overran lately. */
  penalty?: Pick<OverrunPenalty, 'penalized'>;
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
 *
 * Fairness: the trainer pulls up to `lookahead` jobs ahead into a waiting room (heartbeating them
 * like running ones, so they come back to the queue if it dies) and starts them by the room's
 * rule — at most `perUser` running per user, the user served least recently first — so one
 * user's queue of jobs holds one slot, never all of them.
 */
export class Trainer implements Actor<Delivered> {
  private stopping = false;
  private readonly loops: Promise<void>[] = [];
  private readonly inFlight = new Set<Delivered>();
  private readonly counts = { done: 0, failed: 0 };
  private readonly clock: Clock;
  private readonly room: WaitingRoom<Delivered>;
  /** Jobs started and not yet ended. */
  private readonly active = new Set<Promise<void>>();
  /** Wakes the pull loop when the room has space again (or the trainer stops). */
  private wake: (() => void) | null = null;
  private stopHeldHeartbeat: () => void = () => undefined;

  constructor(private readonly deps: TrainerDeps) {
    this.clock = deps.clock ?? liveClock;
    const penalty = deps.penalty;
    this.room = new WaitingRoom(deps.perUser ?? 1, penalty ? (userId) => penalty.penalized(userId) : undefined);
  }

  async start(): Promise<void> {
    const consumer = await this.deps.queue.consumer();
    const lookahead = this.deps.lookahead ?? 32;
    this.stopHeldHeartbeat = this.clock.every(this.deps.queue.heartbeatMs, () => {
      for (const msg of this.room.messages()) msg.working();
    });
    this.loops.push(
      (async () => {
        while (!this.stopping) {
          if (this.room.size >= lookahead) {
            await new Promise<void>((resolve) => (this.wake = resolve));
            continue;
          }
          let msg: Delivered | null = null;
          try {
            msg = await consumer.next(2000);
          } catch (err) {
            if (this.stopping) break;
            this.deps.log.warn({ err }, 'trainer: pulling the next job failed; retrying');
            await this.clock.sleep(1000);
          }
          if (msg) await this.admit(msg);
        }
      })(),
    );
  }

  /** Takes a pulled job into the waiting room (or settles it at once when it is over) and starts what may start. */
  private async admit(msg: Delivered): Promise<void> {
    if (this.stopping) return msg.nak();
    const id = TrainQueue.jobId(msg);
    let job: JobRecord | null = null;
    try {
      job = id === null ? null : await this.deps.jobs.get(id);
    } catch (err) {
      this.deps.log.warn({ err, job_id: id }, 'trainer: reading a pulled job failed; it goes back to the queue');
      return msg.nak(1000);
    }
    if (!job || job.status === 'done' || job.status === 'failed') return msg.ack();
    // A second delivery of a job held or running here (its heartbeats lapsed): the first one settles it.
    if (this.room.holds(job.job_id) || [...this.inFlight].some((m) => TrainQueue.jobId(m) === job.job_id)) return;
    this.room.add({ msg, jobId: job.job_id, userId: job.user_id, seq: msg.seq });
    this.dispatch();
  }

  /** Starts waiting jobs while slots are free, in the room's order. */
  private dispatch(): void {
    while (!this.stopping && this.active.size < this.deps.concurrency) {
      const next = this.room.next();
      if (!next) return;
      this.wake?.();
      this.wake = null;
      const run: Promise<void> = this.handle(next.msg)
        .catch((err: unknown) =>
          this.deps.log.error(
            { err, job_id: next.jobId },
            'trainer: a job could not be settled; it is handed out again after its ack wait',
          ),
        )
        .finally(() => {
          this.active.delete(run);
          this.room.finished(next.userId);
          this.dispatch();
        });
      this.active.add(run);
    }
  }

  /** Stops pulling; waiting jobs and jobs in flight go back to `queued` and to the queue for the next trainer. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    this.stopHeldHeartbeat();
    for (const msg of this.room.drain()) msg.nak();
    for (const msg of [...this.inFlight]) {
      const id = TrainQueue.jobId(msg);
      if (id !== null) await this.requeue(id).catch(() => undefined);
      // Out of inFlight first, so the job's own `finally` does not acknowledge it after all.
      this.inFlight.delete(msg);
      msg.nak();
    }
    // The pull loop ends at once; running jobs are not awaited: each may be inside a sandbox job,
    // which ends when the runtime stops (after this, in the shutdown order), and once `stopping`
    // a job writes and acknowledges nothing.
    await Promise.allSettled(this.loops);
  }

  stats() {
    return { running: this.inFlight.size, waiting: this.room.size, ...this.counts };
  }

  /** Runs the train job a queue message names (the dispatcher calls it); acknowledges it once its outcome is written. */
  async handle(msg: Delivered): Promise<void> {
    const { jobs, log } = this.deps;
    const id = TrainQueue.jobId(msg);
    const job = id === null ? null : await jobs.get(id);
    if (!job || job.status === 'done' || job.status === 'failed') {
      msg.ack();
      return;
    }
    if (job.attempts >= MAX_ATTEMPTS) {
      await this.fail(
        job,
        `the trainer stopped ${job.attempts} times while running this job (process restart or crash); it was not tried again — submit it again`,
      );
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
        // Nor a vanished trainer: the attempt is given back (best effort: the bus may still be away),
        // so outages alone never fail a job as "stopped 2 times".
        log.warn({ job_id: job.job_id, error: (err as Error).message }, 'train job interrupted by a NATS outage; it will run again');
        this.inFlight.delete(msg);
        await this.requeue(job.job_id).catch(() => undefined);
        msg.nak(NATS_RETRY_DELAY_MS);
        return;
      }
      await this.fail(job, describeFailure(err));
      if (err instanceof ModelRejectedError) {
        // What the sandbox handed back was not a model of ours: the strategy's doing, it counts.
        log.warn(
          { job_id: job.job_id, user_id: job.user_id, reason: err.reason },
          'train job refused: its model is not one our exporter makes',
        );
      } else if (!(err instanceof AppError) && !(err instanceof StrategyJobError)) {
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
    const robustness = record.robustness ? { robustness: record.robustness } : {};
    await this.deps.jobs.update(job.job_id, (j) => ({
      ...j,
      status: 'done',
      stage: null,
      finished_at: this.clock.now(),
      stats,
      ...robustness,
    }));
    this.counts.done++;
    this.deps.log.info(
      { job_id: job.job_id, model: record.stem, test_trades: record.test_stats.n, report_ms: Math.round(outcome.reportMs) },
      'train job done',
    );
    const model = {
      name: record.model_name,
      stem: record.stem,
      symbol: record.symbol,
      timeframe: record.timeframe,
      model_type: record.model_type,
    };
    const headline = (s: typeof record.test_stats) => ({ n: s.n, wr: s.wr, ret: s.ret, pf: s.pf, mdd: s.mdd });
    await this.deps.activity.emit({ kind: 'TRAINED', bot: job.username, model, metrics: headline(record.train_stats) });
    await this.deps.activity.emit({ kind: 'BACKTEST_DONE', bot: job.username, model, metrics: headline(record.test_stats) });
  }

  /** A running job back to `queued`, its attempt not counted: it was interrupted, not its trainer lost. */
  private requeue(jobId: number): Promise<JobRecord | null> {
    return this.deps.jobs.update(jobId, (job) =>
      job.status === 'running' ? { ...job, status: 'queued', stage: null, attempts: Math.max(0, job.attempts - 1) } : null,
    );
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
  // Both messages are written for the user: the refusal's reason (what the model held) stays in the log.
  if (err instanceof ModelRejectedError || err instanceof PoolFullError) return err.message;
  return 'internal error while training; the failure was logged — submit the job again';
}
