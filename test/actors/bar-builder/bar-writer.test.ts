/**
 * The bar writer shared by the bar builders of a process, on a real nats-server and a real chdb
 * store: the bars of every symbol closing together go out in one insert after one tick insert,
 * each builder hears of its own bars only, and a builder whose ticks were handed back stores no
 * bar while the others' are stored and published.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BarBuilder } from '../../../actors/bar-builder/index.ts';
import { BarWriter } from '../../../actors/bar-builder/bar-writer.ts';
import { subscribe } from '../../../src/bus/index.ts';
import { ReplayClock } from '../../../src/lib/clock.ts';
import { BarsRepo, TicksRepo, TickWriter } from '../../../src/store/index.ts';
import type { BarMessage, Tick } from '../../../schemas/market.ts';
import { Topics } from '../../../schemas/messages.ts';
import type { Symbol } from '../../../schemas/common.ts';
import { log, startNats, until, type TestNats } from '../../helpers/nats.ts';
import { tempStore } from '../../store/temp-store.ts';

const store = tempStore('bar-writer');
const T0 = Date.UTC(2024, 4, 1, 10, 0, 0);
const tick = (symbol: Symbol, ts: number, bid: number): Tick => ({ symbol, ts, seq: 0, bid, ask: bid + 0.0001, volume: 0 });

describe('BarWriter', () => {
  let nats: TestNats;
  let bars: BarsRepo;
  let ticks: TicksRepo;
  /** Rows per insert, by table (counted on the way to the real repositories). */
  const inserts = { bars: [] as number[], ticks: [] as number[] };
  /** While set, every tick insert fails (the store away). */
  let storeAway = false;
  const published: BarMessage[] = [];

  before(async () => {
    nats = await startNats('bar-writer');
    bars = new BarsRepo(store.client);
    ticks = new TicksRepo(store.client);
    subscribe(nats.bus, Topics.bars, 'bars.>', (bar) => void published.push(bar));
  });
  after(async () => {
    await nats?.close();
  });

  /** Builders of `symbols` on one writer, each recording what it is told. */
  function builders(symbols: Symbol[], clock: ReplayClock) {
    const tickWriter = new TickWriter(
      {
        insertColumns: async (list, source) => {
          if (storeAway) throw new Error('the store is away');
          inserts.ticks.push(list.reduce((n, b) => n + b.length, 0));
          return ticks.insertColumns(list, source);
        },
      },
      log,
      { attempts: 2 },
    );
    const writer = new BarWriter({
      ticks: tickWriter,
      bars: {
        insert: (rows) => {
          inserts.bars.push(rows.length);
          return bars.insert(rows);
        },
      },
      bus: nats.bus,
      log,
      clock,
    });
    return symbols.map((symbol) => {
      const told = { stored: [] as BarMessage[], failed: [] as unknown[], handedBack: [] as unknown[] };
      const builder = new BarBuilder({
        writer,
        ticks,
        bars,
        bus: nats.bus,
        log,
        clock,
        onStored: (b) => void told.stored.push(...b),
        onStoreFailed: (err) => void told.failed.push(err),
        onTicksFailed: (err) => void told.handedBack.push(err),
      });
      return { symbol, builder, told, tickWriter };
    });
  }

  it('stores the bars of every symbol closing together in one insert, after one tick insert, and tells each builder its own', async () => {
    const clock = new ReplayClock(T0 + 61_000);
    const all = builders(['EURUSD', 'GBPUSD', 'USDJPY'], clock);
    inserts.bars.length = inserts.ticks.length = 0;
    for (const [i, { symbol, builder }] of all.entries()) {
      await builder
        .sink('live')
        .write([tick(symbol, T0 + 1_000, 1 + i), tick(symbol, T0 + 30_000, 1.001 + i), tick(symbol, T0 + 61_000, 1.002 + i)]);
    }
    await until('three bars stored', () => all.every(({ told }) => told.stored.length === 1));
    assert.deepEqual(inserts.bars, [3], 'one insert carried the three symbols’ bars');
    assert.deepEqual(inserts.ticks, [9], 'their ticks went first, in one insert');
    for (const { symbol, told } of all) {
      assert.deepEqual(
        told.stored.map((b) => [b.symbol, b.timeframe, b.ts]),
        [[symbol, '1min', T0]],
      );
      assert.equal((await bars.load(symbol, '1min', T0, T0 + 1)).ts.length, 1);
    }
    await until('the bars published', () => published.filter((b) => b.ts === T0).length === 3);
    for (const { builder } of all) await builder.stop();
  });

  it('tells every builder sharing the writer of a tick insert that failed for good, and none stores a bar built on those ticks', async () => {
    const t = T0 + 3_600_000;
    const clock = new ReplayClock(t + 61_000);
    const [a, b] = builders(['AUDUSD', 'NZDUSD'], clock);
    storeAway = true;
    try {
      await a!.builder.sink('live').write([tick('AUDUSD', t + 1_000, 0.7), tick('AUDUSD', t + 61_000, 0.71)]);
      await b!.builder.sink('live').write([tick('NZDUSD', t + 2_000, 0.6), tick('NZDUSD', t + 61_000, 0.61)]);
      await until('both told', () => a!.told.handedBack.length === 1 && b!.told.handedBack.length === 1);
    } finally {
      storeAway = false;
    }
    await a!.builder.flush();
    for (const symbol of ['AUDUSD', 'NZDUSD'] as const) {
      assert.equal((await bars.load(symbol, '1min', t, t + 1)).ts.length, 0, `no ${symbol} bar stored on ticks handed back`);
    }
    assert.deepEqual([a!.told.stored, b!.told.stored], [[], []]);
    assert.equal(published.filter((bar) => bar.ts === t).length, 0, 'nor published');
    await a!.builder.stop();
    await b!.builder.stop();
  });
});
