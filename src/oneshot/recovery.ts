import { isTransientBusError } from '../bus/index.ts';
import { AppError } from '../errors.ts';
import { LeaseHost, type LeaseContext, type LeaseHolder } from '../kernel/index.ts';
import { liveClock, type Clock } from '../lib/clock.ts';
import type { OneShotRun } from '../../schemas/oneshot.ts';
import { heldBack } from './deploy-gate.ts';
import { awaitJob, deployRun, holdRun, refundRun, type OutcomeDeps } from './outcome.ts';
import { isFinished } from './run-store.ts';

/**
 * A run no process holds yet is left to its creator this long: the creator claims it as it
 * starts (its claim keeps every other host off from then on), so only a run whose creator died
 * before claiming it waits this long to be picked up.
 */
export const UNCLAIMED_MS = 6_000;

/** A run's lease in `sf_claims`. */
export const leaseOf = (runId: string): string => `oneshot.${runId}`;

/** A start that failed (NATS not there yet) is tried again after this long. */
const RESTART_MS = 5_000;

export interface OneShotRecoveryDeps extends OutcomeDeps {
  /** Whether a run is old enough to be taken by any host (`alive_at`, written with the run store's clock); liveClock unless set. */
  clock?: Clock;
  /** How often the lease host renews its heartbeat and looks for runs (default the kernel's). */
  renewMs?: number;
}

/**
 * Finishes one_shot runs whose process died (kill -9, a crash, a stop mid-pipeline): the train
 * job survives in the work queue, so a run that was training waits for it and deploys; a run
 * that never got to a job (it was writing the code) is refunded; a deploy in progress is
 * completed; a model whose robustness verdict falls short of the run's deploy_if is kept off
 * live as it would have been. Every outcome lands on the run and its job, where the client reads it.
 *
 * Who drives a run is the kernel's lease `oneshot.<run_id>` (a LeaseHost of kind `one_shot
 * runner`, one heartbeat per process): the process that creates a run claims it at once with an
 * idle holder while it drives the run itself (`track`); an unfinished run nobody drives is
 * claimed by some host, whose holder resumes it. A process that dies leaves its claims to expire
 * with its heartbeat, and another process takes them over: a run is never resumed twice at once.
 */
export class OneShotRecovery {
  /** Runs this process drives itself → the lease of their idle holder here (null until it is created). */
  private readonly driving = new Map<string, LeaseContext | null>();
  /** Every unfinished run (a watch of `sf_one_shots`). */
  private readonly unfinished = new Map<string, OneShotRun>();
  private readonly clock: Clock;
  private host: LeaseHost<OneShotRun, LeaseHolder> | null = null;
  private starting: Promise<void> | null = null;
  private stopping = false;

  constructor(private readonly deps: OneShotRecoveryDeps) {
    this.clock = deps.clock ?? liveClock;
  }

  /** Runs this process drives now (claimed here at once, never resumed meanwhile); the returned function ends that. */
  track(runId: string): () => void {
    this.driving.set(runId, null);
    this.kick();
    return () => {
      const lease = this.driving.get(runId);
      this.driving.delete(runId);
      if (this.stopping) return;
      // Left unfinished (NATS away mid-pipeline): its idle holder faults, and the one that follows it resumes the run.
      void this.deps.runs
        .get(runId)
        .then((run) => {
          if (run && !isFinished(run)) lease?.fault(new Error(`one_shot run ${runId} was left unfinished by its pipeline: resuming it`));
          else this.unfinished.delete(runId);
          this.kick();
        })
        .catch((err: unknown) =>
          this.deps.log.warn({ err, run_id: runId }, 'one_shot: reading a run back failed; the recovery resumes it'),
        );
    };
  }

  get stopped(): boolean {
    return this.stopping;
  }

  /** Starts following the runs (resolves once started; a start that fails is logged and tried again until `stop`). */
  start(): Promise<void> {
    return (this.starting ??= (async () => {
      while (!this.stopping) {
        const host = this.lease();
        try {
          await host.start();
          this.host = host;
          return;
        } catch (err) {
          this.deps.log.error({ err }, `one_shot recovery could not start; trying again in ${RESTART_MS / 1000} s`);
          await host.stop(false).catch(() => undefined);
          await new Promise((r) => setTimeout(r, RESTART_MS));
        }
      }
    })());
  }

  /**
   * Stops: holders here stop (a resume in progress stops at its next step), and the claims of this
   * process expire with its heartbeat, as after a crash. Runs still in progress are finished by
   * another process, or by the next one.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.starting;
    await this.host?.stop(false);
  }

  /** Looks at the runs and the leases now (rather than at the next renewal); resolves when that pass is done. */
  async reconcile(): Promise<void> {
    await this.starting;
    await this.host?.reconcile();
  }

  /** The runs whose lease this process holds now (driven or being resumed here). */
  held(): string[] {
    return (this.host?.runningIds() ?? []).map((id) => id.slice(leaseOf('').length));
  }

  private kick(): void {
    void this.host?.reconcile().catch((err: unknown) => this.deps.log.warn({ err }, 'one_shot recovery: reconcile failed'));
  }

  /** The runs that should be held: those driven here, and those unfinished and old enough that their creator would have claimed them. */
  private desired(): OneShotRun[] {
    const now = this.clock.now();
    return [...this.unfinished.values()].filter((run) => this.driving.has(run.run_id) || now - run.alive_at >= UNCLAIMED_MS);
  }

  private lease(): LeaseHost<OneShotRun, LeaseHolder> {
    return new LeaseHost<OneShotRun, LeaseHolder>({
      names: { actor: 'one_shot runner', spec: 'one_shot run', id: 'run_id' },
      desired: {
        follow: async (onChange) => {
          const watch = await this.deps.runs.watch((runId, run) => {
            if (run && !isFinished(run)) this.unfinished.set(runId, run);
            else this.unfinished.delete(runId);
            onChange();
          });
          await watch.ready;
          return { all: () => this.desired(), stop: () => watch.stop() };
        },
      },
      idOf: (run) => leaseOf(run.run_id),
      ...this.deps.runs.claims,
      create: async (run, lease) => (this.driving.has(run.run_id) ? this.idle(run.run_id, lease) : this.resumer(run.run_id, lease)),
      log: this.deps.log,
      // The heartbeat and the backoff run on the machine's time (the claims expire in real seconds).
      clock: liveClock,
      ...(this.deps.renewMs ? { renewMs: this.deps.renewMs } : {}),
    });
  }

  /** The holder of a run driven here: it only keeps the lease, so no other host resumes the run meanwhile. */
  private idle(runId: string, lease: LeaseContext): LeaseHolder {
    if (this.driving.has(runId)) this.driving.set(runId, lease);
    return {
      start: async () => undefined,
      stop: async () => {
        if (this.driving.get(runId) === lease) this.driving.set(runId, null);
      },
    };
  }

  /** The holder of a run nobody drives: it resumes it, and faults (to be tried again after a backoff) if the run is still unfinished after. */
  private resumer(runId: string, lease: LeaseContext): LeaseHolder {
    let resuming: Promise<void> = Promise.resolve();
    return {
      start: async () => {
        resuming = (async () => {
          const run = await this.deps.runs.get(runId);
          if (!run || isFinished(run)) return;
          this.deps.log.warn(
            { run_id: run.run_id, user_id: run.user_id, status: run.status, job_id: run.job_id },
            'one_shot run picked up after its process stopped',
          );
          await this.resume(run, () => this.stopping || lease.leaseLeftMs() === 0);
          const after = await this.deps.runs.get(runId);
          if (after && !isFinished(after) && !this.stopping)
            throw new Error(`one_shot run ${runId} is still ${after.status} after resuming it`);
        })().catch((err: unknown) => lease.fault(err));
      },
      // A resume in progress stops at its next step (the wait for the train job ends); the lease is left after it.
      stop: () => resuming,
    };
  }

  /**
   * Takes a run from where it stands to deployed, refunded or not deployed. `stopped`: the lease
   * may be gone (this process stopping), so the wait for the train job ends and the run stays where it is.
   */
  async resume(run: OneShotRun, stopped: () => boolean = () => this.stopping): Promise<void> {
    try {
      if (run.status === 'generating' || run.job_id === null) {
        return await refundRun(
          this.deps,
          run,
          'the service stopped while the strategy was being written, before training began; the one_shot fee was refunded: run it again',
        );
      }
      if (run.status === 'training') {
        const job = await awaitJob(this.deps, run, undefined, stopped);
        if (!job) return;
        if (job.status === 'failed') return await refundRun(this.deps, run, `training failed: ${job.error}; the one_shot fee was refunded`);
        // The same guard as the stream's: a run past it was already 'deploying'.
        const held = heldBack(run.deploy_if, job.robustness, run.model_stem!, run.fee);
        if (held) return await holdRun(this.deps, run, held);
      }
      await deployRun(this.deps, run, true);
    } catch (err) {
      // NATS away or this process stopping: the run stays where it is, to be resumed again.
      if (stopped() || isTransientBusError(err)) return;
      if (!(err instanceof AppError)) this.deps.log.error({ err, run_id: run.run_id }, 'one_shot recovery failed');
      const reason = err instanceof AppError ? `the deploy was refused: ${err.message}` : 'the pipeline failed after a restart';
      await refundRun(this.deps, run, `${reason}; the one_shot fee was refunded`).catch(() => undefined);
    }
  }
}
