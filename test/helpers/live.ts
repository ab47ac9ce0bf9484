/** Live-signal helpers for e2e tests: the stored signals of a deployment, and a second actor host. */
import { buildModelHost } from '../../actors/model/index.ts';
import { createLogger } from '../../src/log.ts';
import { SignalEvent } from '../../schemas/live.ts';
import { Streams } from '../../schemas/messages.ts';
import type { TestService } from './service.ts';

/** Every signal stored on the SIGNALS stream for a deployment (read by sequence: the server predates filter_subjects). */
export async function storedSignals(sf: TestService, deploymentId: string): Promise<SignalEvent[]> {
  const { jsm } = sf.service.bus;
  const { state } = await jsm.streams.info(Streams.signals.name);
  const out: SignalEvent[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const msg = await jsm.streams.getMessage(Streams.signals.name, { seq }).catch(() => null);
    if (msg?.subject === `signals.${deploymentId}`) out.push(SignalEvent.parse(msg.json()));
  }
  return out;
}

/** Another actor host on the service's NATS (as another process would run), renewing leases every 500 ms. */
export function secondActorHost(sf: TestService) {
  return buildModelHost({
    bus: sf.service.bus,
    deployments: sf.service.domain.deployments.view,
    models: sf.service.domain.training.models,
    bars: sf.service.domain.market.cache,
    runtime: sf.service.domain.runtime,
    activity: sf.service.domain.activity.bus,
    log: createLogger('silent'),
    replicas: 1,
    maxWarmSessions: 1,
    renewMs: 500,
  });
}

/** Polls `probe` until it returns something truthy, or fails naming `what`. */
export async function eventually<T>(
  what: string,
  probe: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
