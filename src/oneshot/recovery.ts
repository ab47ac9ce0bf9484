import { isTransientBusError } from '../bus/index.ts';
import { AppError } from '../errors.ts';
import type { OneShotRun } from '../../schemas/oneshot.ts';
import { heldBack } from './deploy-gate.ts';
import { awaitJob, deployRun, holdRun, refundRun, type OutcomeDeps } from './outcome.ts';
import { HEARTBEAT_MS } from './run-store.ts';

/** How often runs of vanished processes are looked for. */
export const SWEEP_MS = 3_000;

/**
 * Finishes one_shot runs whose process died (kill -9, a crash, a stop mid-pipeline): the train
 * job survives in the work queue, so a run that was training waits for it and deploys; a run
 * that never got to a job (it was writing the code) is refunded; a deploy in progress is
 * completed; a model whose robustness verdict falls short of the run's deploy_if is kept off
 * live as it would have been. Every outcome lands on the run and its job, where the client reads it.
 */
export class OneShotRecovery {
  private readonly active = new Set<string>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private beatTimer: NodeJS.Timeout | null = null;
  private stopping = false;
  private sweeping: Promise<void> = Promise.resolve();

  constructor(private readonly deps: OutcomeDeps) {}

  /** Runs this process drives now (their heartbeat is renewed; they are never claimed from us). */
  track(runId: string): () => void {
    this.active.add(runId);
    return () => this.active.delete(runId);
  }

  get stopped(): boolean {
    return this.stopping;
  }

  start(): void {
    const sweep = () => {
      this.sweeping = this.sweep().catch((err: unknown) =>
        this.deps.log.warn({ error: (err as Error).message }, 'one_shot recovery sweep failed'),
      );
    };
    sweep();
    this.sweepTimer = setInterval(sweep, SWEEP_MS);
    this.beatTimer = setInterval(() => void this.deps.runs.heartbeat([...this.active]), HEARTBEAT_MS);
  }

  /** Stops sweeping and renewing: runs still in progress are finished by the next process. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (this.beatTimer) clearInterval(this.beatTimer);
    await this.sweeping;
  }

  private async sweep(): Promise<void> {
    if (this.stopping) return;
    const claimed = await this.deps.runs.claimStale((id) => this.active.has(id));
    for (const run of claimed) {
      this.deps.log.warn(
        { run_id: run.run_id, user_id: run.user_id, status: run.status, job_id: run.job_id },
        'one_shot run picked up after its process stopped',
      );
      const untrack = this.track(run.run_id);
      void this.resume(run).finally(untrack);
    }
  }

  /** Takes a claimed run from where it stands to deployed, refunded or not deployed. */
  async resume(run: OneShotRun): Promise<void> {
    try {
      if (run.status === 'generating' || run.job_id === null) {
        return await refundRun(
          this.deps,
          run,
          'the service stopped while the strategy was being written, before training began; the one_shot fee was refunded: run it again',
        );
      }
      if (run.status === 'training') {
        const job = await awaitJob(this.deps, run, undefined, () => this.stopping);
        if (!job) return;
        if (job.status === 'failed') return await refundRun(this.deps, run, `training failed: ${job.error}; the one_shot fee was refunded`);
        // The same guard as the stream's: a run past it was already 'deploying'.
        const held = heldBack(run.deploy_if, job.robustness, run.model_stem!, run.fee);
        if (held) return await holdRun(this.deps, run, held);
      }
      await deployRun(this.deps, run, true);
    } catch (err) {
      // NATS away or this process stopping: the run stays where it is, for the next sweep.
      if (this.stopping || isTransientBusError(err)) return;
      if (!(err instanceof AppError)) this.deps.log.error({ err, run_id: run.run_id }, 'one_shot recovery failed');
      const reason = err instanceof AppError ? `the deploy was refused: ${err.message}` : 'the pipeline failed after a restart';
      await refundRun(this.deps, run, `${reason}; the one_shot fee was refunded`).catch(() => undefined);
    }
  }
}
