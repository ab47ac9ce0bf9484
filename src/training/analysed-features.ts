/**
 * The fit must see the features the look-ahead analysis passed. Both are computed in the sandbox,
 * in separate jobs, by code that may guess which job it is in (or draw random numbers); this
 * check runs here, on the trusted side: each column of the matrix the train job returned (the
 * rows it fitted and scored) hashes to what analysis.py hashed on its full run.
 */
import { createHash } from 'node:crypto';
import { UnprocessableError } from '../errors.ts';

/** Per column of a row-major [rows, columns] matrix, sha256 (hex) of its float64 little-endian values: analysis.py's column_sha256. */
export function columnDigests(matrix: Float64Array, columns: number): string[] {
  const rows = columns ? matrix.length / columns : 0;
  const column = new Float64Array(rows);
  const out: string[] = [];
  for (let j = 0; j < columns; j++) {
    for (let i = 0; i < rows; i++) column[i] = matrix[i * columns + j]!;
    // Float64Array is little-endian on every platform Node runs us on (x64, arm64).
    out.push(createHash('sha256').update(new Uint8Array(column.buffer)).digest('hex'));
  }
  return out;
}

export interface AnalysedFeatures {
  featureColumns: string[];
  warmup: number | null;
  columnSha256: string[];
}

export interface FittedFeatures {
  features: string[];
  warmup: number;
  matrix: Float64Array;
}

/** Throws 422 naming the columns when the train job's features are not those the analysis passed. */
export function assertAnalysedFeatures(analysis: AnalysedFeatures, fitted: FittedFeatures): void {
  const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  if (
    !same(fitted.features, analysis.featureColumns) ||
    fitted.warmup !== (analysis.warmup ?? 0) ||
    analysis.columnSha256.length !== fitted.features.length
  ) {
    throw new UnprocessableError(
      `feature_engineering returned other columns in the fit (${fitted.features.join(', ')}) than in the look-ahead analysis ` +
        `(${analysis.featureColumns.join(', ')}): add the same uniquely named columns on every run`,
    );
  }
  const digests = columnDigests(fitted.matrix, fitted.features.length);
  const differing = fitted.features.filter((_, j) => digests[j] !== analysis.columnSha256[j]);
  if (differing.length) {
    throw new UnprocessableError(
      `feature_engineering computed other values in the fit than in the look-ahead analysis on the same bars (columns: ${differing.join(', ')}): ` +
        'features must depend only on the bars given, the same on every run (no randomness, no state kept between calls)',
    );
  }
}
