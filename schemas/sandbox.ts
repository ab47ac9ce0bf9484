import { z } from 'zod';

/**
 * What the sandboxed Python runtime answers (src/sandbox/python): every header a job or session
 * sends back is parsed with these before Node uses a field of it. The protocol is internal; these
 * shapes are not part of the HTTP API.
 */

/** Why a job failed, as the sandbox reports it. */
export const JobFailureKind = z.enum(['refused', 'timeout', 'memory', 'crash', 'error']);
export type JobFailureKind = z.infer<typeof JobFailureKind>;

export const JobFailure = z.object({ ok: z.literal(false), kind: JobFailureKind.catch('error'), error: z.string().max(10_000) });

const name = z.string().max(1000);
const count = z.number().int().nonnegative();

export const FeaturesAnswer = z.object({ columns: z.array(name).max(10_000), rows: count });

export const ConfigAnswer = z.object({ config: z.unknown() });

export const TrainAnswer = z.object({
  config: z.unknown(),
  features: z.array(name).min(1).max(10_000),
  warmup: count,
  rows_train: count,
  rows_test: count,
  split_index: count,
  test_start_ts: z.number(),
  // null with folds_only (no main fit).
  accuracy_train: z.number().nullable(),
  accuracy_test: z.number().nullable(),
  feature_importance: z.record(z.string(), z.number()),
  warnings: z.array(z.string()).default([]),
  onnx_bytes: count,
  proba_offset: count,
  proba_rows: count,
  /** Walk-forward fold models fitted (bar indices, ONNX bytes after the matrix, in this order). */
  folds: z
    .array(z.object({ index: count, train_from: count, train_to: count, test_from: count, test_to: count, onnx_bytes: count }))
    .max(10)
    .default([]),
  /** Trees of each fold forest (fewer than the main forest's); null when the folds are not forests. */
  fold_trees: count.nullable().default(null),
  /**
   * Meta-labels (strategy_config sets entry_long / entry_short; trainer.py, meta_labels.py): the rule
   * rows fitted and tested, those purged by their label's end, bars where both rules fired (skipped),
   * and every labelled rule row of the test span as [bar, side, label, end bar]. null: direction labels.
   */
  meta: z
    .object({
      rows_train: count,
      rows_test: count,
      purged: count,
      both_skipped: count,
      labels: z
        .array(z.tuple([count, z.union([z.literal(1), z.literal(-1)]), z.union([z.literal(0), z.literal(1)]), count]))
        .max(1_000_000),
    })
    .nullable()
    .default(null),
});

export const AnalysisCheck = z.enum(['type', 'rows', 'ohlc', 'numeric', 'finite', 'truncated', 'lookahead', 'warmup_unbounded']);
export type AnalysisCheck = z.infer<typeof AnalysisCheck>;

export const AnalysisProblem = z.object({ check: AnalysisCheck, columns: z.array(name), message: z.string() });
export type AnalysisProblem = z.infer<typeof AnalysisProblem>;

export const AnalyzeAnswer = z.object({
  problems: z.array(AnalysisProblem),
  warmup: count.nullable(),
  feature_columns: z.array(name),
  // When passed: per feature column, sha256 of its float64 LE values on bars warmup … n-1 of the full run.
  column_sha256: z.array(z.string().regex(/^[0-9a-f]{64}$/)).default([]),
});
