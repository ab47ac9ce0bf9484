/**
 * Ingest in two processes: two `signalforge ingest` processes (no ClickHouse server: they reach
 * this test's chdb over NATS, as they would `signalforge store`'s) share the symbols by lease.
 * Ticks are published on `ticks.EURUSD` faster than real time; the process writing EURUSD is
 * killed (SIGKILL) mid-hour; the other takes the symbol over from its cursor. The stored bars of
 * every timeframe are then exactly the bars the resampler makes of all the ticks: none missing,
 * none doubled, none cut short — and every tick is stored once.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { openBucket } from '../../../src/bus/index.ts';
import { StreamingResampler } from '../../../src/market/index.ts';
import { selectRows } from '../../../src/store/index.ts';
import { serveStore } from '../../../src/store-link/index.ts';
import type { BarMessage } from '../../../schemas/market.ts';
import { Buckets, Subjects } from '../../../schemas/messages.ts';
import { startRole } from '../../helpers/role-process.ts';
import { log, startNats, until, type TestNats } from '../../helpers/nats.ts';
import { tempStore } from '../../store/temp-store.ts';

const store = tempStore('ingest-host');
const HOUR = 3_600_000;

describe('ingest in two processes (one writer per symbol by lease)', () => {
  let nats: TestNats;
  const children: ChildProcess[] = [];

  before(async () => {
    nats = await startNats('ingest-host');
    await serveStore(nats.bus, store.client, log);
  });
  after(async () => {
    for (const c of children) c.kill('SIGKILL');
    await nats?.close();
  });

  it('a killed writer’s symbol continues on the other process without a missing, doubled or partial bar', async () => {
    const url = `nats://${nats.bus.nc.getServer()}`;
    // The test is the feed: no synthetic market beside it on the same subjects.
    const env = { BAR_GRACE_MS: '1000', MARKET_FEED: 'none' };
    const a = startRole('ingest', url, env);
    children.push(a.child);
    const hostA = (await a.running()).host as string;
    const b = startRole('ingest', url, env);
    children.push(b.child);
    const hostB = (await b.running()).host as string;
    const leases = await openBucket(nats.bus, Buckets.leases);
    const holder = async () => (await leases.get('ingest.EURUSD'))?.value.host ?? null;
    await until('EURUSD claimed', async () => (await holder()) !== null, 20_000);
    const first = await holder();
    const [doomed, survivorHost] = first === hostA ? [a, hostB] : [b, hostA];

    // Three market hours, a tick every 10 s, starting on an hour four hours ago: ~2 s of wall time per hour.
    const start = Math.floor(Date.now() / HOUR) * HOUR - 4 * HOUR;
    const expected: BarMessage[] = [];
    const resampler = new StreamingResampler((bar) => expected.push(bar), 1000);
    let price = 1.1;
    let seqNo = 0;
    const total = 3 * 360;
    for (let i = 0; i < total; i++) {
      const ts = start + i * 10_000 + 17;
      price = Math.round((price + Math.sin(i / 7) * 0.0003) * 100_000) / 100_000;
      const tick = { ts, bid: price, ask: Math.round((price + 0.0001) * 100_000) / 100_000 };
      nats.bus.nc.publish(Subjects.ticks('EURUSD'), JSON.stringify(tick));
      resampler.push({ symbol: 'EURUSD', ts, seq: 0, bid: tick.bid, ask: tick.ask, volume: 0 }, 'live');
      seqNo++;
      // Mid-hour of the second hour, the writer dies without a goodbye.
      if (i === 360 + 180) {
        await nats.bus.nc.flush();
        await until('the first hour stored', async () => (await selectRows<{ n: number }>(store.client, "SELECT count() AS n FROM bars FINAL WHERE symbol = 'EURUSD' AND timeframe = '1h'"))[0]!.n >= 1, 30_000);
        doomed.child.kill('SIGKILL');
        await doomed.exited;
      }
      if (i % 20 === 19) await new Promise((r) => setTimeout(r, 100));
    }
    await nats.bus.nc.flush();
    resampler.flush();
    assert.equal(seqNo, total);

    const key = (b: { timeframe: string; ts: number }) => `${b.timeframe}@${b.ts}`;
    const want = new Map(expected.map((bar) => [key(bar), bar]));
    type Row = { timeframe: string; ts: number; open: number; high: number; low: number; close: number; ticks: number; n: number };
    const stored = () =>
      selectRows<Row>(
        store.client,
        `SELECT timeframe, toUnixTimestamp64Milli(ts) AS ts, open, high, low, close, ticks, 1 AS n FROM bars FINAL WHERE symbol = 'EURUSD' ORDER BY timeframe, ts`,
      );
    await until('the survivor to take EURUSD over and store every bar', async () => (await stored()).length >= want.size, 90_000);
    assert.equal(await holder(), survivorHost, 'the survivor writes EURUSD now');
    const rows = await stored();
    const raw = await selectRows<{ n: number; keys: number }>(
      store.client,
      "SELECT count() AS n, uniqExact(timeframe, ts) AS keys FROM bars FINAL WHERE symbol = 'EURUSD'",
    );
    assert.equal(raw[0]!.n, raw[0]!.keys, 'each bar once');
    assert.deepEqual(
      rows.map((r) => key(r)).sort(),
      [...want.keys()].sort(),
      'every bar of every timeframe, none missing, none extra',
    );
    for (const row of rows) {
      const bar = want.get(key(row))!;
      assert.deepEqual(
        { open: row.open, high: row.high, low: row.low, close: row.close, ticks: row.ticks },
        { open: bar.open, high: bar.high, low: bar.low, close: bar.close, ticks: bar.ticks },
        `${key(row)}: the bar of all its ticks (not cut short by the take-over)`,
      );
    }
    const ticks = await selectRows<{ n: number }>(store.client, "SELECT count() AS n FROM ticks FINAL WHERE symbol = 'EURUSD'");
    assert.equal(ticks[0]!.n, total, 'every tick stored once');
  });
});
