/**
 * The live stepper says when an entry it announced did not fill: a bar announces an entry judged
 * on the expected next open, the bar that comes opens at a time the session filter excludes (a
 * feed gap), and that bar carries the cancel — the engine holds no position, the backtest over the
 * same bars has no trade there, and a stepper resumed from the snapshot between the two says the
 * same. A model trained in the real sandbox on real HistData EURUSD 15-min bars, real ONNX scoring.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runBacktest, toBarColumns } from '../../src/backtest/index.ts';
import { BarSeries } from '../../src/market/bar-series.ts';
import { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import { engineOptions, LiveStepper, loadModel, scoreWindow, sliceBars, type BarColumns, type LiveBar, type LiveSpec, type OnnxModel } from '../../src/scoring/index.ts';
import { modelSettings } from '../../src/training/index.ts';
import type { SeriesColumns } from '../../src/store/index.ts';
import { TrainRequest } from '../../schemas/training.ts';
import { log } from '../helpers/nats.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { loadBars } from '../helpers/strategy-bars.ts';

const HOUR = 3_600_000;
// Entries only at bars opening 06:00-21:00 UTC; no stop-and-reverse ambiguity: opposite signals close.
const CODE = strategyCode().replace('"session_filter": None,', '"session_filter": [6, 21],');
const START = 2200; // the first bar stepped (after the fit's 70 %)

/** The bars kept by `keep`, as a series the stepper reads (a bar cache of one series; no 1-minute bars). */
function seriesOf(bars: BarColumns, keep: (i: number) => boolean): BarSeries {
  const idx = Array.from(bars.ts, (_, i) => i).filter(keep);
  const col = (c: Float64Array) => Float64Array.from(idx, (i) => c[i]!);
  const cols: SeriesColumns = {
    ts: col(bars.ts), open: col(bars.open), high: col(bars.high), low: col(bars.low), close: col(bars.close), spread: col(bars.spread),
    volume: new Float64Array(idx.length), ticks: new Uint32Array(idx.length), source: new Uint8Array(idx.length),
  };
  return new BarSeries(cols);
}

describe('LiveStepper: an announced entry whose fill bar comes at an excluded time', () => {
  let runtime: StrategyRuntime;
  let scorer: OnnxModel;
  let spec: LiveSpec;
  let bars: BarColumns;

  const stepper = (series: BarSeries, lastBarTs: number, engine: unknown = null) =>
    new LiveStepper(
      { spec, scorer, features: (w) => runtime.features(CODE, w), bars: { get: async (_s, tf) => (tf === spec.timeframe ? series : seriesOf(bars, () => false)) }, positions: true },
      { lastBarTs, engine },
    );
  const run = async (s: LiveStepper, upTo: number): Promise<LiveBar[]> => {
    const out: LiveBar[] = [];
    await s.advance(upTo, async (chunk) => void out.push(...chunk));
    return out;
  };
  /** Whether a position of `side` opened at bar `b`'s open (still open after it, or closed inside it). */
  const filled = (b: LiveBar, side: number) => b.positions!.some((p) => p.entryTs === b.ts && p.side === side) || b.closed.some((t) => t.entryTs === b.ts && t.side === side);
  /** The contract, bar by bar: an announced entry either fills at the next bar or that bar cancels it. */
  const checkAnnouncements = (out: LiveBar[]) => {
    for (let i = 1; i < out.length; i++) {
      const announced = out[i - 1]!.opened;
      const b = out[i]!;
      if (announced === 0) assert.equal(b.cancelled, 0, `${new Date(b.ts).toISOString()}: a cancel with nothing announced`);
      else assert.equal(b.cancelled, filled(b, announced) ? 0 : announced, `${new Date(b.ts).toISOString()}: announced ${announced}`);
    }
  };

  before(async () => {
    runtime = await StrategyRuntime.start({ log, size: 1 });
    const m = loadBars('EURUSD', '15min', 3000);
    bars = toBarColumns(Array.from(m.ts, (ts, i) => ({ ts, open: m.open[i]!, high: m.high[i]!, low: m.low[i]!, close: m.close[i]! })));
    const trained = await runtime.train(CODE, sliceBars(bars, 0, START), { trainSplit: 0.7 });
    scorer = await loadModel(trained.onnx);
    const settings = modelSettings(TrainRequest.parse({ code: CODE, timeframe: '15min' }), trained.config);
    // The strategy back-fills its rolling windows, so the fit measures no warm-up; 60 bars cover its
    // 20-bar look-back, and every window then scores a bar alike (the restart below relies on it).
    spec = { symbol: 'EURUSD', timeframe: '15min', features: trained.features, config: trained.config, settings, warmup: Math.max(trained.warmup, 60) };
    assert.deepEqual(trained.config.session_filter, [6, 21], 'the session filter reached the model');
  });
  after(async () => {
    await scorer?.close();
    await runtime?.stop();
  });

  it('cancels on the bar that came, opens nothing there, the backtest agrees, and a restart says the same', async () => {
    const ts = bars.ts;
    const n = ts.length;
    const full = await run(stepper(seriesOf(bars, () => true), ts[START - 1]!), ts[n - 1]!);
    assert.equal(full.length, n - START);
    checkAnnouncements(full);

    // A flat bar inside the session (Mon-Thu, 06:00-20:30) announcing an entry, with a 21:00 bar that day.
    const pick = full.findIndex((b, j) => {
      const d = new Date(b.ts);
      const nine = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 21);
      return b.opened !== 0 && b.positions!.length === 0 && d.getUTCDay() >= 1 && d.getUTCDay() <= 4 && b.ts <= nine - 2 * 15 * 60_000 && ts.includes(nine) && j + 1 < full.length && !full[j + 1]!.cancelled;
    });
    assert.ok(pick >= 0, 'an entry announced by a flat bar inside the session');
    const k = START + pick;
    const side = full[pick]!.opened;
    const d = new Date(ts[k]!);
    const nine = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 21);
    assert.ok(filled(full[pick + 1]!, side), 'without the gap the entry fills at the next bar');

    // The feed loses every bar after k until 21:00: the next bar comes outside the session.
    const gapped = seriesOf(bars, (i) => ts[i]! <= ts[k]! || ts[i]! >= nine);
    const gts = gapped.columns().ts;
    const out = await run(stepper(gapped, ts[START - 1]!), gts[gts.length - 1]!);
    checkAnnouncements(out);
    const at = out.findIndex((b) => b.ts === nine);
    assert.equal(out[at - 1]!.ts, ts[k], 'the 21:00 bar follows the signal bar');
    assert.equal(out[at - 1]!.opened, side, 'the same entry announced (the bars before are the same)');
    assert.equal(out[at]!.cancelled, side, 'the 21:00 bar cancels it');
    assert.equal(new Date(nine).getUTCHours(), 21);
    assert.deepEqual(out[at]!.positions, [], 'the engine holds no position');
    assert.ok(!out[at]!.closed.some((t) => t.entryTs === nine), 'nothing entered and closed inside the bar');

    // The backtest over the same bars: no trade enters at 21:00, and its trades are the stepper's.
    const g = gapped.columns();
    const from = gapped.lowerBound(ts[START]!);
    const window = sliceBars(g, from - spec.warmup, g.ts.length);
    const { signals, mask } = await scoreWindow((w) => runtime.features(CODE, w), scorer, spec, window, spec.warmup);
    const backtest = runBacktest(engineOptions(spec, null), window, signals, { from: spec.warmup, to: window.ts.length }, mask);
    assert.ok(!backtest.trades.some((t) => t.entryTs === nine), 'the backtest enters nothing at 21:00');
    assert.deepEqual(
      out.flatMap((b) => b.closed).map((t) => [t.side, t.entryTs, t.exitTs]),
      backtest.trades.filter((t) => t.reason !== 'end').map((t) => [t.side, t.entryTs, t.exitTs]),
      'the stepper trades as the backtest does',
    );

    // A restart between the signal bar and the bar that came: the resumed engine says the same.
    const before = stepper(gapped, ts[START - 1]!);
    await run(before, ts[k]!);
    const resumed = stepper(gapped, before.lastBarTs, JSON.parse(JSON.stringify(before.snapshot())));
    const [first] = await run(resumed, nine);
    assert.equal(first!.ts, nine);
    assert.equal(first!.cancelled, side, 'the resumed stepper cancels it too');
  });
});
