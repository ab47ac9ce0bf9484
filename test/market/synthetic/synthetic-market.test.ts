/**
 * SyntheticMarket on real stores (an embedded nats-server with the `sf_synthetic` KV bucket,
 * chdb): the first start builds history bars for every timeframe up to the current hour and
 * hands over to the live feed; a second start on the same stores resumes from the hourly
 * checkpoint without rebuilding history, and what it produces is exactly what a generator that
 * never stopped produces. The reference is an independent, uninterrupted SyntheticTickGenerator.
 *
 * The market runs on a clock pinned to a Saturday (it moves at the wall clock's pace): FX is
 * closed and BTCUSD trades, so every day both the live hours and the closed ones are exercised.
 * The first start is given a time 5 hours behind that clock, so its live feed has hours to catch up
 * (crossing hour boundaries and writing checkpoints) before the restart.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Symbol } from '../../../schemas/common.ts';
import type { BarMessage, GeneratorState, SyntheticCheckpoint, Tick } from '../../../schemas/market.ts';
import { Buckets } from '../../../schemas/messages.ts';
import { connectBus, openBucket, startEmbeddedNats, type Bus, type EmbeddedNats, type JsonKv } from '../../../src/bus/index.ts';
import { createLogger } from '../../../src/log.ts';
import { instrument } from '../../../src/lib/instruments.ts';
import { StreamingResampler } from '../../../src/market/resampler.ts';
import { SyntheticTickGenerator, initialState } from '../../../src/market/synthetic/generator.ts';
import { SyntheticMarket } from '../../../src/market/synthetic/synthetic-market.ts';
import type { TickSink } from '../../../src/market/tick-sink.ts';
import { TIMEFRAMES } from '../../../src/lib/timeframes.ts';
import { BarsRepo, openClickHouse, selectRows, TicksRepo, type ClickHouseClient } from '../../../src/store/index.ts';
import { clockAt } from '../../../src/lib/clock.ts';

const HOUR = 3_600_000;
const DAY = 86_400_000;
const SEED = 'synthetic-market-test';
const SYMBOLS: Symbol[] = ['EURUSD', 'BTCUSD'];
const HISTORY_DAYS = 3;
const TICK_DAYS = 1;
const log = createLogger('silent');
/**
 * The next Saturday 12:00 UTC: FX has been closed since Friday 22:00, BTCUSD trades every hour. In
 * the future rather than the past, so the stored synthetic ticks are inside their 7-day TTL.
 */
const SATURDAY_NOON = (() => {
  const today = Math.floor(Date.now() / DAY) * DAY;
  const noon = today + ((6 - new Date(today).getUTCDay() + 7) % 7) * DAY + 12 * HOUR;
  return noon > Date.now() ? noon : noon + 7 * DAY;
})();
const shift = SATURDAY_NOON - Date.now();
/** The clock the markets and the test read: Saturday noon when the test started, moving in real time. */
const clock = () => Date.now() + shift;
/** Which symbols trade on that Saturday: FX closes from Friday 22:00 to Sunday 22:00 UTC, BTCUSD never. */
const TRADES_ON_SATURDAY: Record<string, boolean> = { EURUSD: false, BTCUSD: true };

/** The live sink: ticks kept in memory, per symbol, in the order written. */
class MemorySink implements TickSink {
  readonly ticks = new Map<Symbol, Tick[]>();
  async write(batch: readonly Tick[]): Promise<void> {
    for (const t of batch) {
      let list = this.ticks.get(t.symbol);
      if (!list) this.ticks.set(t.symbol, (list = []));
      list.push(t);
    }
  }
  of(symbol: Symbol): Tick[] {
    return this.ticks.get(symbol) ?? [];
  }
}

/**
 * An uninterrupted run of the same series, from the start of history to `until`, with its state
 * at every hour boundary, and its state right after generating up to the history's end hour
 * (what the hand-over checkpoint holds when the market is closed at that hour).
 */
function reference(symbol: Symbol, startMs: number, endHour: number, until: number) {
  const generator = new SyntheticTickGenerator(instrument(symbol), initialState(instrument(symbol), startMs, SEED));
  const ticks: Tick[] = [];
  const hours = new Map<number, GeneratorState>();
  generator.generate(
    endHour,
    (t) => ticks.push(t),
    (hour, state) => hours.set(hour, state),
  );
  const atEnd = generator.snapshot();
  generator.generate(
    until,
    (t) => ticks.push(t),
    (hour, state) => hours.set(hour, state),
  );
  /** The state a checkpoint labelled `hour` must hold. */
  const stateAt = (hour: number): GeneratorState | undefined => hours.get(hour) ?? (hour === endHour ? atEnd : undefined);
  return { ticks, hours, stateAt };
}

type Row = [ts: number, open: number, high: number, low: number, close: number, volume: number, ticks: number, spread: number];
const row = (b: BarMessage): Row => [b.ts, b.open, b.high, b.low, b.close, b.volume, b.ticks, b.spread];
const tickKey = (t: Tick) => `${t.ts}/${t.seq} ${t.bid} ${t.ask} ${t.volume}`;

function barsOf(ticks: readonly Tick[]): Map<string, Row[]> {
  const out = new Map<string, Row[]>(TIMEFRAMES.map((tf) => [tf, []]));
  const resampler = new StreamingResampler((bar) => out.get(bar.timeframe)!.push(row(bar)));
  for (const t of ticks) assert.ok(resampler.push(t, 'synthetic'));
  resampler.flush();
  return out;
}

/** Null when equal, else the first difference. */
function difference<T>(a: readonly T[], b: readonly T[]): string | null {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (JSON.stringify(a[i]) !== JSON.stringify(b[i]))
      return `item ${i} of ${a.length}/${b.length}: ${JSON.stringify(a[i])} vs ${JSON.stringify(b[i])}`;
  }
  return null;
}

const between = (ticks: readonly Tick[], from: number, to: number) => ticks.filter((t) => t.ts >= from && t.ts <= to);
const iso = (ms: number) => new Date(ms).toISOString();

let dir: string;
let nats: EmbeddedNats;
let bus: Bus;
let clickhouse: ClickHouseClient;
let kv: JsonKv<typeof SyntheticCheckpoint>;
let ticksRepo: TicksRepo;
let barsRepo: BarsRepo;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sf-synthetic-market-'));
  nats = await startEmbeddedNats({ bin: process.env.NATS_SERVER_BIN ?? 'nats-server', storeDir: join(dir, 'nats'), log });
  bus = await connectBus(nats.url, 'synthetic-market-test', log);
  clickhouse = await openClickHouse({ path: join(dir, 'clickhouse'), log });
  kv = await openBucket(bus, Buckets.synthetic);
  ticksRepo = new TicksRepo(clickhouse);
  barsRepo = new BarsRepo(clickhouse);
});

after(async () => {
  await bus?.close();
  await clickhouse?.close();
  await nats?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const tableRows = async (table: 'ticks' | 'bars') =>
  (await selectRows<{ n: number }>(clickhouse, `SELECT toUInt64(count()) AS n FROM ${table}`))[0]!.n;

const market = (sink: TickSink) =>
  new SyntheticMarket({
    ticks: ticksRepo,
    bars: barsRepo,
    checkpoints: kv,
    sink,
    log,
    seed: SEED,
    historyDays: HISTORY_DAYS,
    tickDays: TICK_DAYS,
    intervalMs: 50,
    clock: clockAt(clock),
  });

describe('SyntheticMarket (real NATS KV and chdb)', () => {
  const nowA = clock() - 5 * HOUR;
  const endHour = Math.floor(nowA / HOUR) * HOUR;
  const historyStart = Math.floor(nowA / DAY) * DAY - HISTORY_DAYS * DAY;
  const sinkA = new MemorySink();
  let startedA = 0;
  let msA = 0;
  let kvAfterA = new Map<Symbol, SyntheticCheckpoint>();

  it(`builds ${HISTORY_DAYS} days of bars for every timeframe up to the current hour, then feeds the live sink`, async (t) => {
    const a = market(sinkA);
    startedA = clock();
    await a.start(SYMBOLS, nowA);
    msA = clock() - startedA;
    await new Promise((r) => setTimeout(r, 300)); // a few live beats
    await a.stop();
    const stoppedA = clock();

    for (const symbol of SYMBOLS) {
      const trades = TRADES_ON_SATURDAY[symbol]!;
      const ref = reference(symbol, historyStart, endHour, stoppedA + 1000);
      // History: the stored bars are the bars of the uninterrupted series, every timeframe, up to endHour.
      const expected = barsOf(ref.ticks.filter((x) => x.ts < endHour));
      for (const timeframe of TIMEFRAMES) {
        const stored = await barsRepo.load(symbol, timeframe);
        const rows: Row[] = Array.from(stored.ts, (ts, i) => [
          ts,
          stored.open[i]!,
          stored.high[i]!,
          stored.low[i]!,
          stored.close[i]!,
          stored.volume[i]!,
          stored.ticks[i]!,
          stored.spread[i]!,
        ]);
        assert.ok(rows.length > 0, `${symbol} ${timeframe} has bars`);
        assert.equal(difference(rows, expected.get(timeframe)!), null, `${symbol} ${timeframe}`);
        assert.ok(
          stored.source.every((s) => s === 0),
          'source = synthetic',
        );
        assert.ok(rows[0]![0] >= historyStart && rows.at(-1)![0] < endHour);
      }
      if (symbol === 'BTCUSD') {
        // Trades every hour: the last hourly bar is the hour before the current one.
        const hourly = await barsRepo.load(symbol, '1h');
        assert.equal(iso(hourly.ts.at(-1)!), iso(endHour - HOUR));
        assert.equal(hourly.ts.length, (endHour - historyStart) / HOUR);
      }
      // Raw ticks: only the last TICK_DAYS before the hand-over are stored.
      const keepFrom = endHour - TICK_DAYS * DAY;
      const stored = await ticksRepo.range(symbol, 0, 8.64e15, 10_000_000, false);
      assert.equal(
        difference(stored.map(tickKey), ref.ticks.filter((x) => x.ts >= keepFrom && x.ts < endHour).map(tickKey)),
        null,
        `${symbol} stored ticks`,
      );

      // Live: the sink got the same series from the hand-over hour on, up to at least the start.
      const live = sinkA.of(symbol);
      const expectedLive = between(ref.ticks, endHour, live.at(-1)?.ts ?? endHour - 1);
      assert.equal(difference(live.map(tickKey), expectedLive.map(tickKey)), null, `${symbol} live ticks`);
      assert.ok(between(ref.ticks, endHour, startedA).length <= live.length, `${symbol}: the live feed caught up with the clock`);
      if (trades) assert.ok(live.length > 1000, `${live.length} ${symbol} live ticks over ~5 hours`);
      else assert.equal(live.length, 0, `${symbol} is closed: no live tick`);

      // The checkpoint in KV is the uninterrupted run's state at its hour, with the hour before.
      const saved = (await kv.get(symbol))!.value;
      kvAfterA.set(symbol, saved);
      assert.equal(saved.seed, SEED);
      assert.equal(saved.hour > endHour, trades, `${symbol}: a live hour was crossed only if it trades`);
      if (trades) {
        assert.deepEqual(saved.state, ref.stateAt(saved.hour));
        assert.ok(saved.previous, 'a live checkpoint keeps the one before');
        assert.deepEqual(saved.previous.state, ref.stateAt(saved.previous.hour));
        assert.equal(iso(saved.previous.hour), iso(saved.hour - HOUR));
        assert.ok(saved.hour >= Math.floor(startedA / HOUR) * HOUR, 'checkpointed up to the current hour');
      } else {
        // No live hour crossed (FX closed): still the hand-over from history.
        assert.equal(saved.hour, endHour);
        assert.equal(saved.previous, null);
        assert.deepEqual(saved.state, ref.stateAt(endHour));
      }
      t.diagnostic(
        `${symbol}: history ${iso(historyStart)} → ${iso(endHour)}, ${ref.ticks.filter((x) => x.ts < endHour).length} ticks; live ${live.length} ticks; checkpoint ${iso(saved.hour)}`,
      );
    }
    t.diagnostic(`first start (history + catch-up): ${msA} ms`);
  });

  it('resumes from the checkpoint on restart: no history rebuild, and exactly the ticks and bars of a run that never stopped', async (t) => {
    const barsBefore = await tableRows('bars');
    const ticksBefore = await tableRows('ticks');
    const sinkB = new MemorySink();
    const b = market(sinkB);
    const startedB = clock();
    await b.start(SYMBOLS, startedB);
    const msB = clock() - startedB;
    await new Promise((r) => setTimeout(r, 200));
    await b.stop();
    const stoppedB = clock();

    // Nothing rebuilt: history writes bars and ticks; resuming writes neither.
    assert.equal(await tableRows('bars'), barsBefore);
    assert.equal(await tableRows('ticks'), ticksBefore);

    for (const symbol of SYMBOLS) {
      const trades = TRADES_ON_SATURDAY[symbol]!;
      const before = kvAfterA.get(symbol)!;
      const resumeHour = before.previous?.hour ?? before.hour;
      const ref = reference(symbol, historyStart, endHour, stoppedB + 1000);
      const live = sinkB.of(symbol);
      assert.equal(live.length > 0, trades, `${symbol}: ticks after the restart only if it trades`);
      // The restart regenerates from the hour before the last checkpoint: the same ticks.
      const expectedLive = trades ? between(ref.ticks, resumeHour, live.at(-1)!.ts) : [];
      assert.equal(difference(live.map(tickKey), expectedLive.map(tickKey)), null, `${symbol} ticks after the restart`);
      assert.ok(between(ref.ticks, resumeHour, startedB).length <= live.length, `${symbol}: caught up with the clock`);

      // The bars the live pipeline builds from them, around the restart hour, are the uninterrupted run's.
      if (trades) {
        // Every tick up to the restart's clock was regenerated (checked above): the hours before it are complete.
        const lastWhole = Math.floor(startedB / HOUR) * HOUR;
        const fromSink = barsOf(live);
        const uninterrupted = barsOf(ref.ticks.filter((x) => x.ts <= live.at(-1)!.ts));
        for (const timeframe of TIMEFRAMES) {
          const window = (rows: Row[]) => rows.filter((r) => r[0] >= resumeHour && r[0] < lastWhole);
          const mine = window(fromSink.get(timeframe)!);
          assert.equal(difference(mine, window(uninterrupted.get(timeframe)!)), null, `${symbol} ${timeframe} bars after the restart`);
          // It trades every hour: the restart hour's own bars are among those compared, so they are whole.
          assert.ok(mine.length > 0 && mine[0]![0] === resumeHour, `${symbol} ${timeframe}: bars from ${iso(resumeHour)} compared`);
        }
      }

      // The checkpoint is left as an uninterrupted run leaves it: the state at its hour and the hour before.
      const saved = (await kv.get(symbol))!.value;
      if (trades) {
        assert.ok(saved.previous, `${symbol}: the restart crossed live hours`);
        assert.deepEqual(saved.state, ref.stateAt(saved.hour));
        assert.deepEqual(saved.previous.state, ref.stateAt(saved.previous.hour));
        assert.equal(iso(saved.previous.hour), iso(saved.hour - HOUR), 'previous is the hour before');
      } else assert.deepEqual(saved, before, `${symbol}: closed, the checkpoint is left as it was`);
      t.diagnostic(
        `${symbol}: resumed at ${iso(resumeHour)}, ${live.length} ticks regenerated; checkpoint ${iso(saved.hour)} (previous ${saved.previous ? iso(saved.previous.hour) : 'none'})`,
      );
    }
    t.diagnostic(`restart: ${msB} ms (first start ${msA} ms)`);
  });
});
