import { BadRequestError } from '../errors.ts';
import type { FeaturesResult } from '../sandbox/index.ts';

/** Feature rows of a stretch of bars: row r belongs to bar `offset + r`. */
export interface FeatureRows {
  names: string[];
  /** Row-major [rows, names.length], float64 as the strategy computed them. */
  matrix: Float64Array;
  rows: number;
  offset: number;
}

/**
 * Rows already cut from a features answer, by lead. Deployments of one program on one bar get the
 * same answer (FeatureSources computes a window once), so they share its rows, read-only.
 */
const cut = new WeakMap<FeaturesResult, Map<number, FeatureRows>>();
/** Feature columns already laid out per bar, by name and bar count (read-only, shared as the rows are). */
const laidOut = new WeakMap<FeatureRows, Map<string, Float64Array | null>>();

/**
 * The rows of a features answer from row `lead` on (the rows before lack their warm-up),
 * row-major for the scorer — after checking they are the columns the model was trained on.
 * The same answer and lead give the same (shared, never written) rows.
 */
export function featureRows(result: FeaturesResult, lead: number, expected: readonly string[]): FeatureRows {
  if (!sameNames(result.columns, expected)) {
    throw new BadRequestError(
      `the strategy produced other feature columns than at training (${result.columns.join(', ')}); retrain the model`,
    );
  }
  let byLead = cut.get(result);
  if (!byLead) cut.set(result, (byLead = new Map()));
  let rows = byLead.get(lead);
  if (!rows) byLead.set(lead, (rows = cutRows(result, lead)));
  return rows;
}

/** Whether two column lists are the same names in the same order (checked per deployment and bar: no joined copies). */
function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function cutRows(result: FeaturesResult, lead: number): FeatureRows {
  const k = result.columns.length;
  const rows = Math.max(0, result.rows - lead);
  const matrix = new Float64Array(rows * k);
  for (let j = 0; j < k; j++) {
    const col = result.values[j]!;
    for (let r = 0; r < rows; r++) matrix[r * k + j] = col[lead + r]!;
  }
  return { names: result.columns, matrix, rows, offset: lead };
}

/** A feature column as a per-bar series (NaN where no row), e.g. the trend_filter column; shared with the rows' other readers, read-only. */
export function featureColumn(features: FeatureRows, name: string, nBars: number): Float64Array | null {
  let columns = laidOut.get(features);
  if (!columns) laidOut.set(features, (columns = new Map()));
  const key = `${nBars}\u0000${name}`;
  let column = columns.get(key);
  if (column === undefined) columns.set(key, (column = layOut(features, name, nBars)));
  return column;
}

function layOut(features: FeatureRows, name: string, nBars: number): Float64Array | null {
  const j = features.names.indexOf(name);
  if (j < 0) return null;
  const out = new Float64Array(nBars).fill(Number.NaN);
  const k = features.names.length;
  for (let r = 0; r < features.rows; r++) out[features.offset + r] = features.matrix[r * k + j]!;
  return out;
}
