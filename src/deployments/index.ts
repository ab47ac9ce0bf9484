import { ensureStream, openBucket, type Bus } from '../bus/index.ts';
import type { Logger } from '../log.ts';
import { Buckets, Streams } from '../../schemas/messages.ts';
import { Deployments, type DeploymentsDeps } from './deployments.ts';
import { DeploymentsView } from './view.ts';

export { Deployments, type DeploymentsDeps } from './deployments.ts';
export { MODEL_REFUSED } from './model-refused.ts';
export { DeploymentWatches, WatchedDeployments, WATCH_RENEW_MS, WATCH_TTL_MS, type WatchedKv } from './watched.ts';
export { DeploymentsView, deploymentKey, type DeploymentChange, type DeploymentIndex, type DeploymentsKv } from './view.ts';

/** The view of deployments over their KV bucket (created when missing). */
export async function openDeployments(bus: Bus, replicas: number): Promise<DeploymentsView> {
  return new DeploymentsView(await openBucket(bus, Buckets.deployments, replicas));
}

export interface DeploymentsDepsIn extends Omit<DeploymentsDeps, 'view' | 'sets'> {
  bus: Bus;
  log: Logger;
  replicas: number;
}

/** Deployments, the API side: desired state in KV, and the SIGNALS stream the actors publish on. */
export async function buildDeployments(deps: DeploymentsDepsIn): Promise<Deployments> {
  await ensureStream(deps.bus, Streams.signals, deps.replicas);
  const { bus, replicas, ...rest } = deps;
  const sets = await openBucket(bus, Buckets.deploymentSets, replicas);
  return new Deployments({ ...rest, sets, view: await openDeployments(bus, replicas) });
}
