/**
 * A model whose announced entry a feed gap cancels (test/scoring/live-stepper.test.ts, the model
 * actor's test): trained in the real sandbox on real HistData EURUSD 15-min bars with entries only
 * at bars opening 06:00-21:00 UTC, stepped live over the bars after the fit, and the first flat bar
 * inside the session that announces an entry; dropping the bars after it up to 21:00 that day makes
 * the next bar come outside the session.
 */
import assert from 'node:assert/strict';
import { toBarColumns } from '../../src/backtest/index.ts';
import { BarSeries } from '../../src/market/bar-series.ts';
import type { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import {
  LiveStepper,
  loadModel,
  sliceBars,
  type BarColumns,
  type LiveBar,
  type LiveSpec,
  type OnnxModel,
} from '../../src/scoring/index.ts';
import type { SeriesColumns } from '../../src/store/index.ts';
import { modelSettings } from '../../src/training/index.ts';
import { TrainRequest } from '../../schemas/training.ts';
import { strategyCode } from './strategies.ts';
import { loadBars } from './strategy-bars.ts';

export const CODE = strategyCode().replace('"session_filter": None,', '"session_filter": [6, 21],');
/** The first bar stepped (the fit had the bars before). */
export const START = 2200;
const QUARTER = 15 * 60_000;

/** The bars kept by `keep`, as a series the stepper reads. */
export function seriesOf(bars: BarColumns, keep: (i: number) => boolean): BarSeries {
  const idx = Array.from(bars.ts, (_, i) => i).filter(keep);
  const col = (c: Float64Array) => Float64Array.from(idx, (i) => c[i]!);
  const cols: SeriesColumns = {
    ts: col(bars.ts),
    open: col(bars.open),
    high: col(bars.high),
    low: col(bars.low),
    close: col(bars.close),
    spread: col(bars.spread),
    volume: new Float64Array(idx.length),
    ticks: new Uint32Array(idx.length),
    source: new Uint8Array(idx.length),
  };
  return new BarSeries(cols);
}

/** A bar cache of one series (no 1-minute bars beneath: SL before TP inside a bar). */
export const oneSeries = (series: BarSeries) => ({
  get: async (_symbol: string, timeframe: string) => (timeframe === '15min' ? series : seriesOf(series.columns(), () => false)),
});

export interface CancelledEntry {
  bars: BarColumns;
  spec: LiveSpec;
  onnx: Uint8Array;
  scorer: OnnxModel;
  /** Every bar after the fit, stepped live without the gap. */
  full: LiveBar[];
  /** The signal bar (index into bars), the side it announces, and the 21:00 bar its fill becomes. */
  k: number;
  side: 1 | -1;
  nine: number;
  /** The bars without those between the signal bar and 21:00. */
  gapped: BarSeries;
}

export function liveStepper(
  runtime: StrategyRuntime,
  c: Pick<CancelledEntry, 'spec' | 'scorer'>,
  series: BarSeries,
  lastBarTs: number,
  engine: unknown = null,
): LiveStepper {
  return new LiveStepper(
    { spec: c.spec, scorer: c.scorer, features: (w) => runtime.features(CODE, w), bars: oneSeries(series), positions: true },
    { lastBarTs, engine },
  );
}

export async function stepAll(stepper: LiveStepper, upTo: number): Promise<LiveBar[]> {
  const out: LiveBar[] = [];
  await stepper.advance(upTo, async (chunk) => void out.push(...chunk));
  return out;
}

export async function cancelledEntry(runtime: StrategyRuntime): Promise<CancelledEntry> {
  const m = loadBars('EURUSD', '15min', 3000);
  const bars = toBarColumns(Array.from(m.ts, (ts, i) => ({ ts, open: m.open[i]!, high: m.high[i]!, low: m.low[i]!, close: m.close[i]! })));
  const trained = await runtime.train(CODE, sliceBars(bars, 0, START), { trainSplit: 0.7 });
  assert.deepEqual(trained.config.session_filter, [6, 21], 'the session filter reached the model');
  const scorer = await loadModel(trained.onnx);
  const settings = modelSettings(TrainRequest.parse({ code: CODE, timeframe: '15min' }), trained.config);
  // The strategy back-fills its rolling windows, so the fit measures no warm-up; 60 bars cover its
  // 20-bar look-back, and every window then scores a bar alike (a restart relies on it).
  const spec: LiveSpec = {
    symbol: 'EURUSD',
    timeframe: '15min',
    features: trained.features,
    config: trained.config,
    settings,
    warmup: Math.max(trained.warmup, 60),
  };
  const ts = bars.ts;
  const full = await stepAll(
    liveStepper(
      runtime,
      { spec, scorer },
      seriesOf(bars, () => true),
      ts[START - 1]!,
    ),
    ts[ts.length - 1]!,
  );
  const nineOf = (t: number) => {
    const d = new Date(t);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 21);
  };
  // A flat bar inside the session (Mon-Thu, up to 20:30) announcing an entry, with a 21:00 bar that day.
  const pick = full.findIndex((b) => {
    const day = new Date(b.ts).getUTCDay();
    return (
      b.opened !== 0 && b.positions!.length === 0 && day >= 1 && day <= 4 && b.ts <= nineOf(b.ts) - 2 * QUARTER && ts.includes(nineOf(b.ts))
    );
  });
  assert.ok(pick >= 0, 'an entry announced by a flat bar inside the session');
  const k = START + pick;
  const nine = nineOf(ts[k]!);
  const gapped = seriesOf(bars, (i) => ts[i]! <= ts[k]! || ts[i]! >= nine);
  return { bars, spec, onnx: trained.onnx, scorer, full, k, side: full[pick]!.opened as 1 | -1, nine, gapped };
}
