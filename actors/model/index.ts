import { openBucket, StreamBatcher, type Bus } from '../../src/bus/index.ts';
import { FiredCoalescer, type ActivityBus } from '../../src/community/index.ts';
import { WatchedDeployments, type DeploymentsView } from '../../src/deployments/index.ts';
import { ActorHost, openClaims, type BackoffPolicy } from '../../src/kernel/index.ts';
import { type Clock } from '../../src/lib/clock.ts';
import { concurrencyLimit } from '../../src/lib/concurrency-limit.ts';
import type { Logger } from '../../src/log.ts';
import type { BarCache } from '../../src/market/index.ts';
import { FeatureSources, type FeatureRuntime } from '../../src/scoring/index.ts';
import type { ModelStore } from '../../src/training/index.ts';
import type { DeploymentRecord } from '../../schemas/live.ts';
import { Buckets } from '../../schemas/messages.ts';
import { ModelActor } from './model-actor.ts';
import { lastStoredBar, predictionPublisher, signalPublisher } from './signal-publisher.ts';

export { firstSaveAfter, ModelActor, SAVE_EVERY_BARS, type ModelActorDeps } from './model-actor.ts';
export { FeatureSources, type FeatureSource } from '../../src/scoring/index.ts';
export { lastStoredBar, predictionPublisher, signalPublisher } from './signal-publisher.ts';

/** Model artifacts (record, ONNX, code) read at once while actors start. */
const ARTIFACT_LOADS_AT_ONCE = 32;

/** The host of model actors: one per deployment, fed with the open time of each closed bar. */
export type ModelHost = ActorHost<DeploymentRecord, number>;

export interface ModelHostDeps {
  bus: Bus;
  deployments: Pick<DeploymentsView, 'follow' | 'markFailed'>;
  models: Pick<ModelStore, 'resolve' | 'onnx' | 'code'>;
  bars: Pick<BarCache, 'get' | 'onBar'>;
  runtime: FeatureRuntime;
  activity: Pick<ActivityBus, 'emit'>;
  log: Logger;
  replicas: number;
  /** Warm feature sessions (one sandboxed process each) this host's actors may hold. */
  maxWarmSessions: number;
  /** Sends the host's signals and saved states per event-loop turn (shared with its activity; default: one of its own). */
  batcher?: StreamBatcher;
  renewMs?: number;
  backoff?: BackoffPolicy;
  clock?: Clock;
}

/**
 * The actor host of this process, running a ModelActor per deployment it holds the lease of and
 * handing each of them the closed bars of its symbol and timeframe as the bar cache takes them.
 */
export async function buildModelHost(
  deps: ModelHostDeps,
): Promise<{ host: ModelHost; features: FeatureSources; stop(graceful?: boolean): Promise<void> }> {
  const r = deps.replicas;
  // A bar's signals and saved states, thousands of actors' on one host, go out as one batch per turn.
  const batcher = deps.batcher ?? new StreamBatcher(deps.bus);
  const [claims, state, watchedKv] = await Promise.all([
    openClaims(deps.bus, r),
    openBucket(deps.bus, Buckets.actorState, r, { batcher }),
    openBucket(deps.bus, Buckets.watched, r),
  ]);
  // Predictions only for deployments a WebSocket client watches.
  const watched = await WatchedDeployments.open(watchedKv, deps.clock);
  const features = new FeatureSources(deps.runtime, deps.maxWarmSessions, deps.log);
  const publish = signalPublisher(deps.bus, batcher);
  // Thousands of deployments claimed at once read their artifacts a few at a time, not all waiting together.
  const loading = concurrencyLimit(ARTIFACT_LOADS_AT_ONCE);
  const publishPrediction = predictionPublisher(deps.bus, batcher);
  // One SIGNAL_FIRED per bot and bar, not one per model.
  const activity = new FiredCoalescer(deps.activity, deps.log);
  const host: ModelHost = new ActorHost<DeploymentRecord, number>({
    names: { actor: 'model actor', spec: 'deployment', id: 'deployment_id' },
    desired: {
      // A failed deployment (its stored model failed the safety check) is run by no host, here or after a restart.
      follow: async (onChange) => {
        const index = await deps.deployments.follow(() => onChange());
        return { all: () => index.all().filter((d) => !d.failure), stop: () => index.stop() };
      },
    },
    idOf: (deployment) => deployment.deployment_id,
    ...claims,
    // Shared out over the hosts, a user's models together: they share warm feature sessions (one per user and code) on one host.
    balance: true,
    groupOf: (deployment) => String(deployment.user_id),
    log: deps.log,
    ...(deps.renewMs ? { renewMs: deps.renewMs } : {}),
    ...(deps.backoff ? { backoff: deps.backoff } : {}),
    ...(deps.clock ? { clock: deps.clock } : {}),
    forget: (id) => state.delete(id),
    create: async (deployment) => {
      const { model, onnx, code } = await loading(async () => {
        const model = await deps.models.resolve(deployment.user_id, deployment.model_name);
        if (!model) throw new Error(`deployment ${deployment.deployment_id}: model ${deployment.stem} is gone`);
        const [onnx, code] = await Promise.all([deps.models.onnx(model), deps.models.code(model)]);
        return { model, onnx, code };
      });
      // Features with the model's own indicator values (an optimised trial's), as at train and backtest.
      const source = features.forModel(model, code);
      return new ModelActor({
        deployment,
        model,
        onnx,
        features: source,
        bars: deps.bars,
        state,
        publish,
        // Its resume point is saved every SAVE_EVERY_BARS bars: after a restart, what the stream holds is not sent again.
        lastStored: () => lastStoredBar(deps.bus, deployment.deployment_id),
        publishPrediction,
        watched: () => watched.isWatched(deployment.deployment_id),
        activity,
        log: deps.log,
        ...(deps.clock ? { clock: deps.clock } : {}),
        failed: async (reason) => void (await deps.deployments.markFailed(deployment, reason, deps.clock?.now())),
      });
    },
  });
  const unsubscribe = deps.bars.onBar((bar) => host.dispatch(bar.ts, (d) => d.symbol === bar.symbol && d.timeframe === bar.timeframe));
  return {
    host,
    features,
    async stop(graceful = true) {
      unsubscribe();
      // The stopping actors' entries go out at once rather than after the window.
      const stopping = host.stop(graceful);
      activity.flush();
      await stopping;
      activity.flush();
      watched.stop();
      if (!deps.batcher) batcher.close();
    },
  };
}
