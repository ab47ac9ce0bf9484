/**
 * The bus on a real 3-node NATS cluster (routes, JetStream clustered): streams and buckets made
 * with 3 replicas, and a client that goes on across the death of the node it is connected to —
 * every compare-and-set and every JetStream publish with a message id in flight then completes
 * exactly once (read back or de-duplicated), none lost, none applied twice.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectBus, ensureStream, openBucket, publish, type Bus } from '../../src/bus/index.ts';
import { Buckets, Streams, Topics } from '../../schemas/messages.ts';
import { log } from '../helpers/nats.ts';
import { startNatsCluster, type NatsCluster } from '../helpers/nats-cluster.ts';

describe('bus on a 3-node NATS cluster', () => {
  let cluster: NatsCluster;
  let bus: Bus;

  before(async () => {
    cluster = await startNatsCluster(3);
    bus = await connectBus(cluster.url, 'cluster-test', log);
  });
  after(async () => {
    await bus?.nc.close();
    await cluster?.stop();
  });

  it('creates streams and KV buckets with NATS_REPLICAS copies', async () => {
    await ensureStream(bus, Streams.signals, 3);
    const stream = await bus.jsm.streams.info(Streams.signals.name);
    assert.equal(stream.config.num_replicas, 3);
    await openBucket(bus, Buckets.credits, 3);
    const bucket = await bus.jsm.streams.info(`KV_${Buckets.credits.name}`);
    assert.equal(bucket.config.num_replicas, 3);
  });

  it('reads a replicated bucket through its leader: a replica that is behind never answers', async () => {
    const jobs = await openBucket(bus, Buckets.jobs, 3);
    const asked: string[] = [];
    const spy = bus.nc.subscribe('$JS.API.>', { callback: (_e, msg) => void asked.push(msg.subject) });
    await bus.nc.flush();
    assert.equal(await jobs.get('404'), null);
    await bus.nc.flush();
    spy.unsubscribe();
    assert.ok(asked.includes(`$JS.API.STREAM.MSG.GET.KV_${Buckets.jobs.name}`), asked.join(' '));
    assert.ok(!asked.some((s) => s.startsWith('$JS.API.DIRECT.GET')), asked.join(' '));
  });

  it('a compare-and-set or a publish in flight when its node dies completes once, on another node', async () => {
    const credits = await openBucket(bus, Buckets.credits, 3);
    await ensureStream(bus, Streams.signals, 3);
    const connected = () => cluster.nodes.findIndex((n) => n.url.endsWith(`:${bus.nc.getServer().split(':').pop()}`));
    const victim = connected();
    assert.ok(victim >= 0, 'connected to a node of the cluster');
    const total = 120;
    let done = 0;
    const ops = (async () => {
      for (let i = 0; i < total; i++) {
        // Neither is retried here: a failure is the test's failure, a double the counter's.
        await credits.mutate('42', (current) => ({ balance: (current?.balance ?? 0) + 1, updated_at: Date.now() }));
        await publish(bus, Topics.signal, ['dep_cluster'], signalOf(i), { msgID: `cluster-${i}` });
        done++;
      }
    })();
    while (done < total / 3) await new Promise((r) => setTimeout(r, 5));
    await cluster.kill(victim);
    await ops;
    assert.notEqual(connected(), victim, 'the client moved to a live node');
    assert.equal((await credits.get('42'))?.value.balance, total, 'each increment applied once');
    const stream = await bus.jsm.streams.info(Streams.signals.name, { subjects_filter: 'signals.dep_cluster' });
    assert.equal(stream.state.subjects?.['signals.dep_cluster'], total, 'each publish stored once');
    await cluster.restart(victim);
  });
});

function signalOf(n: number) {
  const bar = Date.UTC(2024, 0, 1) + n * 900_000;
  return {
    id: `sig_dep_cluster_${bar}_0`,
    deployment_id: 'dep_cluster',
    model: '1_EURUSD_15min_C',
    model_name: 'C',
    symbol: 'EURUSD',
    timeframe: '15min',
    action: 'open',
    side: 'long',
    price: 1.1,
    stop_loss: null,
    take_profit: null,
    reason: 'signal',
    p_up: 0.6,
    pnl: null,
    bar_time: new Date(bar).toISOString(),
    created_at: new Date(bar + 900_000).toISOString(),
  } as const;
}
