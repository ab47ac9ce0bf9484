import { entryMask, toSignals, type BarColumns } from '../backtest/index.ts';
import type { Instrument } from '../market/index.ts';
import { loadModel, type OnnxModel } from '../scoring/onnx-scorer.ts';
import type { FeaturesResult } from '../sandbox/runtime-pool.ts';
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
 * The rows of a features job's answer from row `lead` on (the rows before lack their warm-up),
 * row-major for the scorer.
 */
export function featureRows(result: FeaturesResult, lead: number): FeatureRows {
  const k = result.columns.length;
  const rows = Math.max(0, result.rows - lead);
  const matrix = new Float64Array(rows * k);
  for (let j = 0; j < k; j++) {
    const col = result.values[j]!;
    for (let r = 0; r < rows; r++) matrix[r * k + j] = col[lead + r]!;
  }
  return { names: result.columns, matrix, rows, offset: lead };
}

/**
 * p(up) per bar from the exported model through onnxruntime-node: backtest, /predict and the live
 * actor all score here. Bars without a feature row (the warm-up) get NaN.
 */
export async function scoreRows(model: OnnxModel, features: FeatureRows, nBars: number): Promise<Float32Array> {
  const out = new Float32Array(nBars).fill(Number.NaN);
  if (features.rows > 0) out.set(await model.score(Float32Array.from(features.matrix), features.rows), features.offset);
  return out;
}

/** scoreRows with a model loaded for the one call. */
export async function scoreBars(onnx: Uint8Array, features: FeatureRows, nBars: number): Promise<Float32Array> {
  const model = await loadModel(onnx);
  try {
    return await scoreRows(model, features, nBars);
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
