/**
 * The live sources as the service runs them: their counters as Prometheus samples — shed ticks
 * per source and per symbol among them — exact against what was published, through a real
 * nats-server; and the same samples on the running service's GET /_metrics.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Topics } from '../../schemas/messages.ts';
import { loadConfig } from '../../src/config.ts';
import { connectBus, startEmbeddedNats, type Bus, type EmbeddedNats } from '../../src/bus/index.ts';
import { createLogger } from '../../src/log.ts';
import { startLiveSources, type LiveSources } from '../../src/market/live-sources.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { MemorySink } from './sources/memory-sink.ts';
import { until } from './sources/until.ts';

const log = createLogger('silent');
const T0 = 1_700_000_000_000;
const message = (from: number, n: number) =>
  JSON.stringify(Array.from({ length: n }, (_, k) => ({ ts: T0 + from + k, bid: 1.1, ask: 1.1001 })));

describe('live sources: counters as metrics (real nats-server)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-live-sources-'));
  let nats: EmbeddedNats;
  let bus: Bus;
  let sources: LiveSources;

  before(async () => {
    nats = await startEmbeddedNats({ bin: 'nats-server', storeDir: dir, log });
    bus = await connectBus(nats.url, 'live-sources-test', log);
  });
  after(async () => {
    await sources?.stop();
    await bus?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports shed ticks per source and per symbol, and every published tick is stored or shed', async () => {
    const sink = new MemorySink();
    sink.hold();
    // No Kafka, no OANDA: the defaults of an empty environment.
    sources = await startLiveSources(bus, sink, loadConfig({}), log);
    await bus.nc.flush();
    // 2,000 messages of 100 ticks (~10 MB) for one symbol while the sink is stuck: far more than
    // its 4 MiB queue holds. Ten ticks on another symbol fit.
    const messages = 2_000;
    for (let i = 0; i < messages; i++) bus.nc.publish(Topics.ticks.subject('USDCAD'), message(i * 100, 100));
    bus.nc.publish(Topics.ticks.subject('NZDUSD'), message(0, 10));
    await bus.nc.flush();
    const seen = () => sources.stats().nats!;
    await until(() => seen().shed + seen().received + seen().queued * 100 >= messages * 100, 'every message queued or shed', 20_000);
    const held = sources.metrics();
    assert.ok(held.signalforge_source_nats_shed_total! > 0);
    assert.equal(held.signalforge_source_nats_shed_total, seen().shed);
    assert.equal(held['signalforge_source_nats_symbol_shed_total{symbol="USDCAD"}'], seen().shed);
    assert.equal(held['signalforge_source_nats_symbol_shed_total{symbol="NZDUSD"}'], undefined, 'a symbol that shed nothing is left out');
    sink.release();
    await until(() => seen().queued === 0 && seen().pending === 0, 'the queues written', 20_000);
    const done = sources.metrics();
    assert.equal(done.signalforge_source_nats_accepted_total! + done.signalforge_source_nats_shed_total!, messages * 100 + 10);
    assert.equal(sink.count, done.signalforge_source_nats_accepted_total);
    assert.equal(sink.ticksOf('NZDUSD').length, 10);
    assert.equal(done.signalforge_source_nats_received_total, messages * 100 + 10);
    for (const name of ['malformed', 'dropped', 'late']) assert.equal(done[`signalforge_source_nats_${name}_total`], 0, name);
    assert.equal(done.signalforge_source_nats_queued, 0);
  });
});

describe('GET /_metrics on the running service', () => {
  let sf: TestService;
  before(async () => {
    sf = await startTestService({ MARKET_FEED: 'none' });
  });
  after(async () => {
    await sf?.stop();
  });

  it('shows what the NATS source received, stored and shed', async () => {
    const metrics = async () => {
      const text = (await sf.api('GET', '/_metrics')).text;
      return new Map(
        text
          .trim()
          .split('\n')
          .map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))]),
      );
    };
    const now = Date.now();
    for (let i = 0; i < 10; i++) {
      const ticks = Array.from({ length: 50 }, (_, k) => ({ ts: now - 60_000 + i * 50 + k, bid: 0.88, ask: 0.8801 }));
      sf.service.bus.nc.publish(Topics.ticks.subject('USDCHF'), JSON.stringify(ticks));
    }
    await until(async () => (await metrics()).get('signalforge_ticks_stored_total') === 500, 'the ticks stored', 20_000);
    const m = await metrics();
    assert.equal(m.get('signalforge_source_nats_received_total'), 500);
    assert.equal(m.get('signalforge_source_nats_accepted_total'), 500);
    assert.equal(m.get('signalforge_source_nats_shed_total'), 0);
    assert.equal(m.get('signalforge_source_nats_queued'), 0);
  });
});
