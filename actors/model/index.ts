import { openBucket, type Bus } from '../../src/bus/index.ts';
import type { ActivityBus } from '../../src/community/index.ts';
import { ActorHost } from '../../src/kernel/actor-host.ts';
import type { Logger } from '../../src/log.ts';
import type { BarCache } from '../../src/market/index.ts';
import type { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import type { ModelStore } from '../../src/training/index.ts';
import { SignalEvent } from '../../schemas/live.ts';
import { Buckets, Subjects } from '../../schemas/messages.ts';
import { FeatureSources } from './feature-source.ts';
import { ModelActor } from './model-actor.ts';

export { ModelActor, type ModelActorDeps } from './model-actor.ts';
export { FeatureSources, type FeatureSource } from './feature-source.ts';

export interface ModelHostDeps {
  bus: Bus;
  models: ModelStore;
  bars: BarCache;
  runtime: StrategyRuntime;
  activity: Pick<ActivityBus, 'emit'>;
  log: Logger;
  replicas: number;
  /** Warm feature sessions (one sandboxed process each) this host's actors may hold. */
  maxWarmSessions: number;
  renewMs?: number;
}

/** Publishes a signal on its deployment's subject; msgID = its id, so a replayed bar publishes nothing twice. */
export function signalPublisher(bus: Bus): (event: SignalEvent) => Promise<void> {
  return async (event) => {
    await bus.js.publish(Subjects.signal(event.deployment_id), JSON.stringify(SignalEvent.parse(event)), { msgID: event.id });
  };
}

/** The actor host of this process, running a ModelActor per deployment it holds the lease of. */
export async function buildModelHost(deps: ModelHostDeps): Promise<{ host: ActorHost; features: FeatureSources }> {
  const r = deps.replicas;
  const [deployments, leases, state] = await Promise.all([
    openBucket(deps.bus, Buckets.deployments, r),
    openBucket(deps.bus, Buckets.leases, r),
    openBucket(deps.bus, Buckets.actorState, r),
  ]);
  const features = new FeatureSources(deps.runtime, deps.maxWarmSessions, deps.log);
  const publish = signalPublisher(deps.bus);
  const host = new ActorHost({
    nc: deps.bus.nc,
    deployments,
    leases,
    bars: deps.bars,
    log: deps.log,
    ...(deps.renewMs ? { renewMs: deps.renewMs } : {}),
    forget: (id) => state.delete(id),
    startActor: async (deployment) => {
      const model = await deps.models.resolve(deployment.user_id, deployment.model_name);
      if (!model) throw new Error(`deployment ${deployment.deployment_id}: model ${deployment.stem} is gone`);
      const [onnx, code] = await Promise.all([deps.models.onnx(model), deps.models.code(model)]);
      const source = features.acquire(deployment.user_id, code);
      try {
        return await ModelActor.start({ deployment, model, onnx, features: source, bars: deps.bars, state, publish, activity: deps.activity, log: deps.log });
      } catch (err) {
        await source.release();
        throw err;
      }
    },
  });
  return { host, features };
}
