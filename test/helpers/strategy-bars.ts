/**
 * Bars for running generated strategies: real HistData 1-minute bid bars of the seven majors
 * (2017-01 … 2017-09, ../shared/data/fx) resampled to the timeframe, and for BTCUSD (no real
 * file) the service's seeded synthetic market through the streaming resampler.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { Symbol, Timeframe } from '../../schemas/common.ts';
import type { BarMessage } from '../../schemas/market.ts';
import { INSTRUMENTS } from '../../src/lib/instruments.ts';
import { StreamingResampler } from '../../src/market/resampler.ts';
import { SyntheticTickGenerator, initialState } from '../../src/market/synthetic/generator.ts';
import { TIMEFRAME_MS } from '../../src/lib/timeframes.ts';
import type { OhlcColumns } from '../../src/lib/bar-columns.ts';

const FX_DIR = new URL('../../../shared/data/fx/histdata_m1/normalized/', import.meta.url);
const minuteCache = new Map<Symbol, OhlcColumns>();

function columns(n: number): OhlcColumns {
  return {
    ts: new Float64Array(n),
    open: new Float64Array(n),
    high: new Float64Array(n),
    low: new Float64Array(n),
    close: new Float64Array(n),
  };
}

/** Every 1-minute bar of the symbol's HistData file (ts_utc,bid_open,bid_high,bid_low,bid_close). */
function realMinutes(symbol: Symbol): OhlcColumns {
  const cached = minuteCache.get(symbol);
  if (cached) return cached;
  const text = gunzipSync(readFileSync(new URL(`histdata_${symbol}_m1_2017-01_2017-09.csv.gz`, FX_DIR))).toString('utf8');
  const lines = text.trim().split('\n');
  const out = columns(lines.length - 1);
  for (let i = 1; i < lines.length; i++) {
    const f = lines[i]!.split(',');
    out.ts[i - 1] = Date.parse(f[0]!);
    out.open[i - 1] = Number(f[1]);
    out.high[i - 1] = Number(f[2]);
    out.low[i - 1] = Number(f[3]);
    out.close[i - 1] = Number(f[4]);
  }
  minuteCache.set(symbol, out);
  return out;
}

/** First open, max high, min low, last close per bucket of `ms`, at most `count` bars. */
function resample(m: OhlcColumns, ms: number, count: number): OhlcColumns {
  const out: Record<keyof OhlcColumns, number[]> = { ts: [], open: [], high: [], low: [], close: [] };
  for (let i = 0; i < m.ts.length; i++) {
    const bucket = Math.floor(m.ts[i]! / ms) * ms;
    const last = out.ts.length - 1;
    if (last >= 0 && out.ts[last] === bucket) {
      out.high[last] = Math.max(out.high[last]!, m.high[i]!);
      out.low[last] = Math.min(out.low[last]!, m.low[i]!);
      out.close[last] = m.close[i]!;
    } else {
      if (out.ts.length === count) break;
      out.ts.push(bucket);
      out.open.push(m.open[i]!);
      out.high.push(m.high[i]!);
      out.low.push(m.low[i]!);
      out.close.push(m.close[i]!);
    }
  }
  return {
    ts: Float64Array.from(out.ts),
    open: Float64Array.from(out.open),
    high: Float64Array.from(out.high),
    low: Float64Array.from(out.low),
    close: Float64Array.from(out.close),
  };
}

/** `count` bars of the synthetic market (seeded: the same bars every run). */
function synthetic(symbol: Symbol, timeframe: Timeframe, count: number): OhlcColumns {
  const inst = INSTRUMENTS[symbol];
  const start = Date.UTC(2025, 0, 6);
  const rows: BarMessage[] = [];
  const resampler = new StreamingResampler((bar) => {
    if (bar.timeframe === timeframe && rows.length < count) rows.push(bar);
  });
  const gen = new SyntheticTickGenerator(inst, initialState(inst, start, 'generator-tests'));
  // Generate a day at a time until enough bars are closed.
  let until = start;
  while (rows.length < count) {
    until += 86_400_000;
    gen.generate(until, (t) => void resampler.push(t, 'synthetic'));
  }
  return {
    ts: Float64Array.from(rows, (b) => b.ts),
    open: Float64Array.from(rows, (b) => b.open),
    high: Float64Array.from(rows, (b) => b.high),
    low: Float64Array.from(rows, (b) => b.low),
    close: Float64Array.from(rows, (b) => b.close),
  };
}

/** `count` bars of the symbol at the timeframe: real for the seven majors, synthetic for BTCUSD. */
export function loadBars(symbol: Symbol, timeframe: Timeframe, count: number): OhlcColumns {
  if (symbol === 'BTCUSD') return synthetic(symbol, timeframe, count);
  return resample(realMinutes(symbol), TIMEFRAME_MS[timeframe], count);
}

/** Bars enough for the analysis to measure a warm-up of `warmup` bars (it looks back 75 % of the bars at most). */
export const barsFor = (warmup: number, base = 3000): number => Math.max(base, Math.ceil(warmup / 0.7) + 300);
