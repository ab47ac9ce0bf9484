/**
 * The other side of `delivery-step`, in its own process so its CPU is not the delivery's: it
 * publishes each bar's signals as model hosts do (the batcher, msgID = the signal id) and answers
 * the webhooks as a receiver that only counts them (recorder-step uses it as a publisher only). Over IPC:
 *   parent → { type: 'bar', bar }            publish one signal per deployment for that bar
 *   peer   → { type: 'ready', url }          once connected and listening
 *   peer   → { type: 'published', bar }      once every signal of that bar is stored on SIGNALS
 *   peer   → { type: 'bar-done', bar }       once every deployment's webhook of that bar arrived
 * `node --import tsx test/bench/lib/delivery-peer.ts '{"natsUrl":…,"deployments":N}'`
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signalPublisher } from '../../../actors/model/index.ts';
import { connectBus, StreamBatcher } from '../../../src/bus/index.ts';
import { createLogger } from '../../../src/log.ts';
import { benchSignal } from './bench-signal.ts';

export interface DeliveryPeerSpec {
  natsUrl: string;
  deployments: number;
}

/** The deployment ids and stems both sides use. */
export const peerDeployment = (i: number) => ({
  deployment_id: `dep_step${i.toString().padStart(6, '0')}`,
  user_id: 10_000 + i,
  model_name: `Step ${i}`,
  stem: `${10_000 + i}_EURUSD_15min_Step ${i}`,
});

type FromParent = { type: 'bar'; bar: number };

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as DeliveryPeerSpec;
  const log = createLogger('warn');
  const bus = await connectBus(spec.natsUrl, 'bench-delivery-peer', log);
  const publish = signalPublisher(bus, new StreamBatcher(bus));
  const received = new Map<number, number>();
  const server = createServer({ keepAliveTimeout: 120_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      // webhook-id = sig_<deployment>_<bar ms>_<n>
      const id = String(req.headers['webhook-id'] ?? '');
      const bar = Number(id.split('_').at(-2));
      const n = (received.get(bar) ?? 0) + 1;
      received.set(bar, n);
      res.writeHead(200).end();
      if (n === spec.deployments) process.send!({ type: 'bar-done', bar });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.send!({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });

  const event = (i: number, bar: number) => benchSignal(peerDeployment(i), bar, { side: i % 2 ? 'long' : 'short' });
  process.on('message', (raw) => {
    const message = raw as FromParent;
    if (message.type !== 'bar') return;
    const published = Array.from({ length: spec.deployments }, (_, i) =>
      publish(event(i, message.bar)).catch((err: unknown) => console.error(`publish failed: ${(err as Error).message}`)),
    );
    void Promise.all(published).then(() => process.send!({ type: 'published', bar: message.bar }));
  });
  process.on('disconnect', () => process.exit(0));
}

if (process.send) void main();
