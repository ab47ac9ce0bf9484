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
import { buildIngestHost } from '../../../actors/bar-builder/index.ts';
import { connectBus, openBucket } from '../../../src/bus/index.ts';
import { TIMEFRAME_MS } from '../../../src/lib/timeframes.ts';
import { FeedPublisher, StreamingResampler } from '../../../src/market/index.ts';
import { BarsRepo, selectRows, TicksRepo, type TickColumns } from '../../../src/store/index.ts';
import { serveStore } from '../../../src/store-link/index.ts';
import type { Symbol } from '../../../schemas/common.ts';
import type { BarMessage, DataSource } from '../../../schemas/market.ts';
import { Buckets, Streams, Topics } from '../../../schemas/messages.ts';
import { startRole } from '../../helpers/role-process.ts';
import { log, startNats, until, type TestNats } from '../../helpers/nats.ts';
import { pausableProxy } from '../../helpers/pausable-proxy.ts';
import { tempStore } from '../../store/temp-store.ts';
import { clockAt } from '../../../src/lib/clock.ts';

const store = tempStore('ingest-host');
const HOUR = 3_600_000;

/**
 * Every bar of `expected` whose end (plus the 300 ms grace) has passed is stored with exactly its
 * ticks. The wait for them gives up rather than fails: the comparison says which bar is wrong.
 */
async function assertEveryBarOver(symbol: string, expected: readonly BarMessage[]): Promise<void> {
  const over = expected.filter((b) => b.ts + TIMEFRAME_MS[b.timeframe] + 300 <= Date.now());
  type Row = { timeframe: string; ts: number; open: number; high: number; low: number; close: number; ticks: number };
  const rows = () =>
    selectRows<Row>(
      store.client,
      'SELECT timeframe, toUnixTimestamp64Milli(ts) AS ts, open, high, low, close, ticks FROM bars FINAL WHERE symbol = {symbol:String}',
      { symbol },
    );
  await until('every bar over stored', async () => (await rows()).length >= over.length, 15_000).catch(() => undefined);
  const got = new Map(
    (await rows()).map((r) => [`${r.timeframe}@${r.ts}`, { open: r.open, high: r.high, low: r.low, close: r.close, ticks: r.ticks }]),
  );
  for (const bar of over) {
    assert.deepEqual(
      got.get(`${bar.timeframe}@${bar.ts}`),
      { open: bar.open, high: bar.high, low: bar.low, close: bar.close, ticks: bar.ticks },
      `${bar.timeframe}@${bar.ts}: every tick in it`,
    );
  }
}

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

  it('a reader cut off from NATS while ticks keep coming closes no bar early: the quiet rule asks the stream first', async () => {
    // Ticks two hours old (a catch-up behind the clock): every open bar is past its end, so only
    // "the symbol went quiet" keeps it open. A stalled reader must not look like a quiet market.
    const proxy = await pausableProxy(`nats://${nats.bus.nc.getServer()}`);
    const bus = await connectBus(proxy.url, 'ingest-stall', log);
    // Its feed tells no clock: after a second of hearing none, the reader goes by its own.
    const host = await buildIngestHost({
      bus,
      market: { ticks: new TicksRepo(store.client), bars: new BarsRepo(store.client) },
      log,
      graceMs: 300,
      clockSilentMs: 1_000,
      symbols: ['GBPUSD'],
    });
    try {
      await until('GBPUSD claimed', () => host.symbols().includes('GBPUSD'));
      const start = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
      const expected: BarMessage[] = [];
      const resampler = new StreamingResampler((bar) => expected.push(bar), 300);
      const publishTicks = async (from: number, to: number) => {
        for (let i = from; i < to; i++) {
          const tick = { ts: start + i * 10_000 + 17, bid: 1.25 + (i % 7) * 0.0001, ask: 1.2502 + (i % 7) * 0.0001 };
          await nats.bus.js.publish(Topics.ticks.subject('GBPUSD'), JSON.stringify(tick));
          resampler.push({ symbol: 'GBPUSD', ts: tick.ts, seq: 0, bid: tick.bid, ask: tick.ask, volume: 0 }, 'live');
        }
      };
      const storedTicks = async () =>
        (await selectRows<{ n: number }>(store.client, "SELECT count() AS n FROM ticks FINAL WHERE symbol = 'GBPUSD'"))[0]!.n;
      await publishTicks(0, 3);
      await until('the first ticks read and stored', async () => (await storedTicks()) === 3);
      // The reader's connection stalls; the feed goes on (the rest of the minute and the next ones).
      proxy.pause();
      await publishTicks(3, 30);
      await new Promise((r) => setTimeout(r, 1500));
      proxy.resume();
      await publishTicks(30, 40);
      resampler.flush();
      await assertEveryBarOver('GBPUSD', expected);
      assert.equal(await storedTicks(), 40, 'no tick dropped as late');
    } finally {
      await host.stop();
      await bus.close();
      proxy.close();
    }
  });

  /**
   * The same catch-up behind the clock, now with the publisher's connection stalled (a NATS node
   * failing over under it) while the stream answers: it holds nothing unread, yet the feed still
   * holds ticks of the open bars. Its clock, told behind its publishes, falls silent meanwhile.
   * `takeOver`: the symbol's reader is replaced during the stall, so it has never heard that clock.
   */
  const heldFeed = async (symbol: 'AUDUSD' | 'NZDUSD', takeOver: boolean) => {
    const proxy = await pausableProxy(`nats://${nats.bus.nc.getServer()}`);
    const feedBus = await connectBus(proxy.url, `feed-held-${symbol}`, log);
    const start = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
    let handed = start;
    const feed = new FeedPublisher({ bus: feedBus, feed: 'held', clock: clockAt(() => handed) });
    const startHost = () =>
      buildIngestHost({
        bus: nats.bus,
        market: { ticks: new TicksRepo(store.client), bars: new BarsRepo(store.client) },
        log,
        graceMs: 300,
        symbols: [symbol],
      });
    let host = await startHost();
    try {
      await until(`${symbol} claimed`, () => host.symbols().includes(symbol));
      feed.startClock();
      const expected: BarMessage[] = [];
      const resampler = new StreamingResampler((bar) => expected.push(bar), 300);
      const write = (from: number, to: number) => {
        const ticks = Array.from({ length: to - from }, (_, k) => {
          const i = from + k;
          const tick = {
            symbol,
            ts: start + i * 10_000 + 17,
            seq: 0,
            bid: 0.65 + (i % 7) * 0.0001,
            ask: 0.6502 + (i % 7) * 0.0001,
            volume: 0,
          };
          resampler.push(tick, 'live');
          return tick;
        });
        const written = feed.write(ticks);
        handed = ticks.at(-1)!.ts + 1;
        return written;
      };
      const storedTicks = async () =>
        (
          await selectRows<{ n: number }>(store.client, 'SELECT count() AS n FROM ticks FINAL WHERE symbol = {symbol:String}', { symbol })
        )[0]!.n;
      await write(0, 3);
      await until('the first ticks read and stored', async () => (await storedTicks()) === 3);
      proxy.pause();
      const held = write(3, 30);
      if (takeOver) {
        await host.stop();
        host = await startHost();
        await until(`${symbol} claimed again`, () => host.symbols().includes(symbol));
      }
      await new Promise((r) => setTimeout(r, takeOver ? 2500 : 1500));
      proxy.resume();
      await held;
      await write(30, 40);
      // Nothing more to come: the feed's clock moves on to now (a quiet market), closing the rest.
      handed = Date.now();
      resampler.flush();
      await assertEveryBarOver(symbol, expected);
      assert.equal(await storedTicks(), 40, 'no tick dropped as late');
    } finally {
      feed.stopClock();
      await host.stop();
      await feedBus.close();
      proxy.close();
    }
  };

  it('a feed held up on its way to the stream closes no bar early: quiet bars wait for the feed’s clock', () => heldFeed('AUDUSD', false));

  it('a reader that takes a symbol over while its feed is held up waits too: it has not heard the feed yet', () =>
    heldFeed('NZDUSD', true));

  it('a tick store that fails mid-batch loses no tick: they are read again from the stream and stored once, and the bars are exact', async () => {
    const symbol: Symbol = 'USDCAD';
    // The store under a load spike: from the third insert on, eight in a row write half their
    // batches and then fail — more than one insert's attempts, so an insert gives up for good.
    let calls = 0;
    let failures = 0;
    class OverloadedTicks extends TicksRepo {
      override async insertColumns(batches: readonly TickColumns[], source: DataSource): Promise<void> {
        calls++;
        if (calls >= 3 && failures < 8) {
          failures++;
          await super.insertColumns(batches.slice(0, Math.ceil(batches.length / 2)), source);
          throw new Error('the store is overloaded (failure injected by the test)');
        }
        await super.insertColumns(batches, source);
      }
    }
    const host = await buildIngestHost({
      bus: nats.bus,
      market: { ticks: new OverloadedTicks(store.client), bars: new BarsRepo(store.client) },
      log,
      graceMs: 300,
      symbols: [symbol],
    });
    // The feed tells its clock, so the pauses between its rounds are not a quiet market.
    const start = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR;
    let handed = start;
    const feed = new FeedPublisher({ bus: nats.bus, feed: 'overload', clock: clockAt(() => handed) });
    try {
      await until(`${symbol} claimed`, () => host.symbols().includes(symbol));
      feed.startClock();
      // 100 minutes of market three hours ago (every bar over), 10 ticks a message, in rounds.
      const expected: BarMessage[] = [];
      const resampler = new StreamingResampler((bar) => expected.push(bar), 300);
      const total = 600;
      const published = new Map<number, { bid: number; ask: number }>();
      for (let round = 0; round < 6; round++) {
        for (let m = 0; m < 10; m++) {
          const ticks = Array.from({ length: 10 }, (_, k) => {
            const i = round * 100 + m * 10 + k;
            const bid = Math.round((1.36 + Math.sin(i / 9) * 0.002) * 100_000) / 100_000;
            return { symbol, ts: start + i * 10_000 + 17, seq: 0, bid, ask: Math.round((bid + 0.0002) * 100_000) / 100_000, volume: 0 };
          });
          await feed.write(ticks);
          handed = ticks.at(-1)!.ts + 1;
          for (const t of ticks) {
            published.set(t.ts, { bid: t.bid, ask: t.ask });
            resampler.push(t, 'live');
          }
        }
        // A pause longer than the writer's delay: each round is an insert of its own.
        await new Promise((r) => setTimeout(r, 400));
      }
      // Nothing more to come: the feed's clock moves on to now (a quiet market), closing the rest.
      handed = Date.now();
      resampler.flush();
      assert.equal(published.size, total);

      type TickRow = { ts: number; bid: number; ask: number };
      const storedTicks = () =>
        selectRows<TickRow>(
          store.client,
          'SELECT toUnixTimestamp64Milli(ts) AS ts, bid, ask FROM ticks FINAL WHERE symbol = {symbol:String} ORDER BY ts',
          { symbol },
        );
      await until('every tick stored', async () => (await storedTicks()).length >= total, 60_000).catch(() => undefined);
      assert.equal(failures, 8, 'the store failed as injected, more times than one insert tries');
      await assertEveryBarOver(symbol, expected);
      const bars = await selectRows<{ n: number; keys: number }>(
        store.client,
        'SELECT count() AS n, uniqExact(timeframe, ts) AS keys FROM bars FINAL WHERE symbol = {symbol:String}',
        { symbol },
      );
      assert.deepEqual(bars[0], { n: expected.length, keys: expected.length }, 'every bar once, none extra');
      // Merged as the engine will (partly written batches were written again): each tick one row.
      await store.client.command({ query: 'OPTIMIZE TABLE ticks FINAL' });
      const rows = await selectRows<TickRow>(
        store.client,
        'SELECT toUnixTimestamp64Milli(ts) AS ts, bid, ask FROM ticks WHERE symbol = {symbol:String} ORDER BY ts',
        { symbol },
      );
      assert.deepEqual(
        rows,
        [...published].map(([ts, q]) => ({ ts, ...q })),
        'every published tick stored exactly once, with its prices',
      );
      // The reader has caught up with the stream: its consumer has nothing of the symbol left to deliver.
      const readers = async () => {
        const found: { pending: number; unacked: number }[] = [];
        for await (const c of await nats.bus.jsm.consumers.list(Streams.ticks.name)) {
          if (c.config.filter_subject === Topics.ticks.subject(symbol) || c.config.filter_subjects?.includes(Topics.ticks.subject(symbol)))
            found.push({ pending: c.num_pending, unacked: c.num_ack_pending });
        }
        return found;
      };
      await until('the reader to catch up', async () => (await readers()).every((r) => r.pending === 0), 10_000).catch(() => undefined);
      assert.deepEqual(await readers(), [{ pending: 0, unacked: 0 }], 'one reader of the symbol, nothing pending on it');
    } finally {
      feed.stopClock();
      await host.stop();
    }
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
      nats.bus.nc.publish(Topics.ticks.subject('EURUSD'), JSON.stringify(tick));
      resampler.push({ symbol: 'EURUSD', ts, seq: 0, bid: tick.bid, ask: tick.ask, volume: 0 }, 'live');
      seqNo++;
      // Mid-hour of the second hour, the writer dies without a goodbye.
      if (i === 360 + 180) {
        await nats.bus.nc.flush();
        await until(
          'the first hour stored',
          async () =>
            (
              await selectRows<{ n: number }>(
                store.client,
                "SELECT count() AS n FROM bars FINAL WHERE symbol = 'EURUSD' AND timeframe = '1h'",
              )
            )[0]!.n >= 1,
          30_000,
        );
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
    assert.deepEqual(rows.map((r) => key(r)).sort(), [...want.keys()].sort(), 'every bar of every timeframe, none missing, none extra');
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
