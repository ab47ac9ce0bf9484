import type { Metering } from '../accounts/index.ts';
import type { Deployments } from '../deployments/index.ts';
import type { Logger } from '../log.ts';
import type { JobStore, Training } from '../training/index.ts';
import type { DeployResponse } from '../../schemas/live.ts';
import type { OneShotRun } from '../../schemas/oneshot.ts';
import type { JobView, OneShotOutcome } from '../../schemas/training.ts';
import type { OneShotRuns } from './run-store.ts';

/** What finishing a run needs: the parts that deploy, refund and record. */
export interface OutcomeDeps {
  training: Pick<Training, 'job' | 'finished'>;
  jobs: Pick<JobStore, 'update'>;
  deployments: Pick<Deployments, 'deploy' | 'find'>;
  metering: Pick<Metering, 'refund'>;
  runs: OneShotRuns;
  log: Logger;
  /** How often a train job is read beside the watch of its key (default 1 s). */
  pollMs?: number;
}

/** Writes the pipeline's outcome on its train job, where the client reads it (GET /train/{job_id}). */
export async function recordOnJob(deps: Pick<OutcomeDeps, 'jobs'>, jobId: number | null, outcome: OneShotOutcome): Promise<void> {
  if (jobId === null) return;
  await deps.jobs.update(jobId, (job) => ({ ...job, one_shot: outcome }));
}

/** Gives the fee back and says why, on the run and on its job. */
export async function refundRun(deps: OutcomeDeps, run: OneShotRun, reason: string): Promise<void> {
  if (run.fee > 0) await deps.metering.refund(run.user_id, run.fee, `one_shot:${run.run_id}`);
  await deps.runs.update(run.run_id, { status: 'refunded', reason });
  await recordOnJob(deps, run.job_id, { status: 'refunded', reason });
  deps.log.info({ run_id: run.run_id, user_id: run.user_id, job_id: run.job_id, fee: run.fee, reason }, 'one_shot refunded');
}

/**
 * Keeps the trained model off live because its robustness verdict fell short of deploy_if: the
 * fee is refunded as for a pipeline that stopped before the deploy, and the run and its job say why.
 */
export async function holdRun(deps: OutcomeDeps, run: OneShotRun, reason: string): Promise<void> {
  if (run.fee > 0) await deps.metering.refund(run.user_id, run.fee, `one_shot:${run.run_id}`);
  await deps.runs.update(run.run_id, { status: 'not_deployed', reason });
  await recordOnJob(deps, run.job_id, { status: 'not_deployed', reason });
  deps.log.info(
    { run_id: run.run_id, user_id: run.user_id, job_id: run.job_id, model: run.model_stem, fee: run.fee, deploy_if: run.deploy_if },
    'one_shot not deployed: verdict short of deploy_if',
  );
}

/** Polls the run's train job until it is done or failed (`stopped` ends the wait with null). */
export async function awaitJob(
  deps: Pick<OutcomeDeps, 'training' | 'pollMs'>,
  run: Pick<OneShotRun, 'user_id' | 'job_id'>,
  onStage: (stage: string) => void = () => undefined,
  stopped: () => boolean = () => false,
): Promise<JobView | null> {
  // The job's key is watched; a slow read beside it covers a watch lost to a NATS restart and
  // notices this process stopping.
  const finished = deps.training.finished(run.user_id, run.job_id!, onStage);
  finished.catch(() => undefined); // observed by the race; not unhandled once the read path returns
  for (;;) {
    const job = await Promise.race([finished, new Promise<null>((r) => setTimeout(r, deps.pollMs ?? 1000, null))]);
    if (job) return job;
    if (stopped()) return null;
    const read = await deps.training.job(run.user_id, run.job_id!);
    if (read.status === 'done' || read.status === 'failed') return read;
  }
}

/**
 * Deploys the run's trained model (once: a deployment already there from an earlier attempt
 * counts) and records `deployed` on the run and its job.
 */
export async function deployRun(deps: OutcomeDeps, run: OneShotRun, recovered: boolean): Promise<DeployResponse | null> {
  await deps.runs.update(run.run_id, { status: 'deploying' });
  const existing = await deps.deployments.find(run.user_id, run.model_stem!).catch(() => null);
  let response: DeployResponse | null = null;
  let deploymentId = existing?.deployment_id ?? null;
  if (!existing) {
    response = await deps.deployments.deploy(
      { user_id: run.user_id, username: run.username, plan: run.plan },
      {
        model_name: run.model_stem!,
        channels: run.channels,
        ...(run.webhook_url ? { webhook_url: run.webhook_url } : {}),
        ...(run.messenger_chat_id ? { messenger_chat_id: run.messenger_chat_id } : {}),
        ...(run.webhook_template ? { webhook_template: run.webhook_template } : {}),
        ...(run.discord_webhook_url ? { discord_webhook_url: run.discord_webhook_url } : {}),
        ...(run.slack_webhook_url ? { slack_webhook_url: run.slack_webhook_url } : {}),
      },
    );
    deploymentId = response.deployment_id;
  }
  await deps.runs.update(run.run_id, { status: 'deployed', deployment_id: deploymentId });
  // The job says a webhook secret exists, never what it is (its view is read again and again; the secret stays on the deployment).
  const secret = Boolean(response?.webhook_secret ?? existing?.webhook_secret);
  await recordOnJob(deps, run.job_id, {
    status: 'deployed',
    ...(deploymentId ? { deployment_id: deploymentId } : {}),
    ...(secret ? { webhook_secret_set: true as const } : {}),
  });
  deps.log.info(
    { run_id: run.run_id, user_id: run.user_id, model: run.model_stem, deployment_id: deploymentId, recovered },
    'one_shot deployed',
  );
  return response;
}
