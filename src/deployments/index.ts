import { ensureStream, openBucket, type Bus } from '../bus/index.ts';
import type { ActivityBus } from '../community/index.ts';
import type { Logger } from '../log.ts';
import type { ModelStore } from '../training/index.ts';
import type { Plan } from '../../schemas/accounts.ts';
import { Buckets, Streams } from '../../schemas/messages.ts';
import { Deployments } from './deployments.ts';

export { Deployments, type Caller as DeployCaller } from './deployments.ts';
export { SignalRecorder } from './signal-recorder.ts';

export interface DeploymentsDepsIn {
  bus: Bus;
  models: ModelStore;
  activity: Pick<ActivityBus, 'emit'>;
  log: Logger;
  replicas: number;
  checkWebhookTarget: (url: string) => Promise<string>;
  limits: Record<Plan, number>;
}

/** Deployments, the API side: desired state in KV, and the SIGNALS stream the actors publish on. */
export async function buildDeployments(deps: DeploymentsDepsIn): Promise<Deployments> {
  await ensureStream(deps.bus, Streams.signals, deps.replicas);
  const kv = await openBucket(deps.bus, Buckets.deployments, deps.replicas);
  const sets = await openBucket(deps.bus, Buckets.deploymentSets, deps.replicas);
  return new Deployments({ kv, sets, models: deps.models, activity: deps.activity, log: deps.log, checkWebhookTarget: deps.checkWebhookTarget, limits: deps.limits });
}
