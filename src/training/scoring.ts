import { entryMask, toSignals, type BarColumns } from '../backtest/index.ts';
import type { Instrument } from '../market/index.ts';
import { loadModel } from '../strategy/onnx-scorer.ts';
import { UnprocessableError } from '../errors.ts';
import type { StrategyConfig } from '../../schemas/strategy.ts';

/** Feature rows of a stretch of bars: row r belongs to bar `offset + r`. */
export interface FeatureRows {
  names: string[];
  /** Row-major [rows, names.length], float64 as the strategy computed them. */
  matrix: Float64Array;
  rows: number;
  offset: number;
}

/**
 * p(up) per bar from the exported model, through onnxruntime-node — the scorer live uses too.
 * Bars without a feature row (the warm-up) get NaN.
 */
export async function scoreBars(onnx: Uint8Array, features: FeatureRows, nBars: number): Promise<Float32Array> {
  const model = await loadModel(onnx);
  try {
    const up = await model.score(Float32Array.from(features.matrix), features.rows);
    const out = new Float32Array(nBars).fill(Number.NaN);
    out.set(up, features.offset);
    return out;
  } finally {
    await model.close();
  }
}

/** A feature column as a per-bar series (NaN where no row), e.g. the trend_filter column. */
export function featureColumn(features: FeatureRows, name: string, nBars: number): Float64Array | null {
  const j = features.names.indexOf(name);
  if (j < 0) return null;
  const out = new Float64Array(nBars).fill(Number.NaN);
  const k = features.names.length;
  for (let r = 0; r < features.rows; r++) out[features.offset + r] = features.matrix[r * k + j]!;
  return out;
}

/**
 * Signals and the entry mask of a strategy over bars: threshold p(up) (a NaN p is flat), then
 * session_filter, min_atr and trend_filter as entry conditions.
 */
export function strategySignals(
  bars: BarColumns,
  pUp: Float32Array,
  threshold: number,
  config: StrategyConfig,
  features: FeatureRows,
  inst: Instrument,
): { signals: Int8Array; mask: Uint8Array } {
  const trend = config.trend_filter === null ? null : featureColumn(features, config.trend_filter, bars.ts.length);
  if (config.trend_filter !== null && trend === null) {
    throw new UnprocessableError(`trend_filter names "${config.trend_filter}", which is not a feature column (columns: ${features.names.join(', ')})`);
  }
  return {
    signals: toSignals(pUp, threshold),
    mask: entryMask(bars, { sessionFilter: config.session_filter, minAtr: config.min_atr, trendColumn: trend }, inst),
  };
}
