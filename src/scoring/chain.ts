import { createHash } from 'node:crypto';
import type { BarColumns, OhlcColumns } from '../lib/bar-columns.ts';
import { instrument } from '../lib/instruments.ts';
import { UnprocessableError } from '../errors.ts';
import type { FeaturesResult } from '../sandbox/index.ts';
import type { ModelRecord } from '../../schemas/training.ts';
import { entryMask, labelMode, toSignals, type EntryRules } from './decisions.ts';
import { featureColumn, featureRows, type FeatureRows } from './feature-rows.ts';
import { loadModel, type LoadOptions, type OnnxModel } from './onnx-scorer.ts';

/** What the chain needs to know of a model (a ModelRecord has it; a train job builds it). */
export type ScoringSpec = Pick<ModelRecord, 'symbol' | 'timeframe' | 'features' | 'config' | 'settings'>;

/** Computes a strategy's features on bars: a pool job, a warm session, a memo of either. */
export type FeatureComputer = (bars: OhlcColumns) => Promise<FeaturesResult>;

/** What the chain gives per bar of a window: the engine's inputs and what led to them. */
export interface Scored {
  features: FeatureRows;
  /** p(up) per bar (meta-labelled model: P(win) of the rule's trade); NaN where a bar has no feature row (its warm-up). */
  pUp: Float32Array;
  /** −1/0/1 per bar from the threshold (strategySignals: meta mode confirms the entry rules). */
  signals: Int8Array;
  /** Entry mask per bar from entry_long / entry_short, entry_filter, min_atr and trend_filter, with the exit bits of exit_long / exit_short (strategyMask). */
  mask: Uint8Array;
}

/** strategy_config keys that name a feature column. */
const COLUMN_KEYS = ['entry_long', 'entry_short', 'entry_filter', 'trend_filter', 'exit_long', 'exit_short'] as const;

/** Entry masks already worked out on feature rows, by the bars' span, the symbol and the config's rules (read-only, shared). */
const masks = new WeakMap<FeatureRows, Map<string, Uint8Array>>();
/**
 * Masks kept per feature rows: live deployments of one program share a few; the optimiser's sweep
 * tries many `min_atr` values on one set of rows, and must not keep a mask per trial.
 */
const MASKS_PER_ROWS = 16;

/**
 * The entry mask of a strategy_config over bars whose feature rows are known: its rule, filter
 * and exit columns read from the features (422 naming the key when a column is not among them).
 * One place for training, /predict, live and the optimiser's trials. Session hours and skipped
 * days are not in it: the engine judges them on the fill bar (engineOptions' entryTimes).
 * Rows are cut from the bars they were computed on, so the same rows and rules give the same mask:
 * deployments of one program on one bar share it, read-only.
 */
export function strategyMask(bars: BarColumns, spec: Pick<ScoringSpec, 'symbol' | 'config'>, features: FeatureRows): Uint8Array {
  const { config } = spec;
  const n = bars.ts.length;
  const key = [n, bars.ts[0], bars.ts[n - 1], spec.symbol, config.min_atr, ...COLUMN_KEYS.map((k) => config[k] ?? '')].join('\u0000');
  let known = masks.get(features);
  if (!known) masks.set(features, (known = new Map()));
  let mask = known.get(key);
  if (!mask) {
    if (known.size >= MASKS_PER_ROWS) known.clear();
    known.set(key, (mask = computeMask(bars, spec, features)));
  }
  return mask;
}

function computeMask(bars: BarColumns, spec: Pick<ScoringSpec, 'symbol' | 'config'>, features: FeatureRows): Uint8Array {
  const columns = configColumns(spec.config, features, bars.ts.length, COLUMN_KEYS);
  const { config } = spec;
  return entryMask(
    bars,
    {
      minAtr: config.min_atr,
      trendColumn: columns.trend_filter,
      entryFilter: columns.entry_filter,
      entryLong: columns.entry_long,
      entryShort: columns.entry_short,
      exitLong: columns.exit_long,
      exitShort: columns.exit_short,
    },
    instrument(spec.symbol),
  );
}

/** The feature columns a config's keys name, per bar of n (422 naming the key when a column is not among the features). */
function configColumns<K extends (typeof COLUMN_KEYS)[number]>(
  config: ScoringSpec['config'],
  features: FeatureRows,
  n: number,
  keys: readonly K[],
): Record<K, Float64Array | null> {
  const columns = {} as Record<K, Float64Array | null>;
  for (const key of keys) {
    const name = config[key] ?? null;
    const values = name === null ? null : featureColumn(features, name, n);
    if (name !== null && values === null)
      throw new UnprocessableError(
        `${key} names "${name}", which is not a feature column (columns: ${features.names.join(', ')}); name a column feature_engineering adds`,
      );
    columns[key] = values;
  }
  return columns;
}

/**
 * The entry rule columns when the config's model is meta-labelled (labelMode: either rule set),
 * else null (direction mode). What toSignals needs to confirm the rule's trades.
 */
export function entryRules(spec: Pick<ScoringSpec, 'config'>, features: FeatureRows, n: number): EntryRules | null {
  if (labelMode(spec.config) !== 'meta') return null;
  const columns = configColumns(spec.config, features, n, ['entry_long', 'entry_short'] as const);
  return { long: columns.entry_long, short: columns.entry_short };
}

/**
 * The signals of a strategy's probabilities, in the mode its config asks for (toSignals with the
 * entry rules of a meta-labelled model): training, /predict, live and the optimiser's trials.
 * `threshold` defaults to the settings' (0 in meta mode = the rule alone).
 */
export function strategySignals(
  spec: Pick<ScoringSpec, 'config' | 'settings'>,
  features: FeatureRows,
  pUp: Float32Array,
  threshold = spec.settings.confidence_threshold,
): Int8Array {
  return toSignals(pUp, threshold, entryRules(spec, features, pUp.length));
}

/** Bars [from, to) of a scoring: every bar of the feature rows when absent. */
export interface BarRange {
  from: number;
  to: number;
}

/**
 * p(up) per bar of n (NaN where not scored): the model on the float32 cast of the feature rows of
 * `range` (all rows when absent). The one place a model's probabilities are computed.
 */
export async function barProbabilities(scorer: OnnxModel, features: FeatureRows, n: number, range?: BarRange): Promise<Float32Array> {
  const k = features.names.length;
  const from = Math.max(range?.from ?? 0, features.offset);
  const to = Math.min(range?.to ?? n, features.offset + features.rows, n);
  const pUp = new Float32Array(n).fill(Number.NaN);
  if (to > from)
    pUp.set(
      await scorer.score(Float32Array.from(features.matrix.subarray((from - features.offset) * k, (to - features.offset) * k)), to - from),
      from,
    );
  return pUp;
}

/**
 * An ONNX model the sandbox handed back, scored on the trusted side: checked and loaded
 * (loadModel, in the owner's share of the scoring processes), barProbabilities, closed. The train
 * job's main model and its walk-forward fold models, and the optimiser's fold models, all go through here.
 */
export async function modelProbabilities(
  onnx: Uint8Array,
  features: FeatureRows,
  n: number,
  options: LoadOptions & { range?: BarRange } = {},
): Promise<Float32Array> {
  const scorer = await loadModel(onnx, options.owner === undefined ? {} : { owner: options.owner });
  return barProbabilities(scorer, features, n, options.range).finally(() => scorer.close());
}

/**
 * The chain from known feature rows: ONNX p(up) → threshold signals → entry mask. /predict and
 * live enter at `scoreWindow`.
 */
export async function scoreFeatures(scorer: OnnxModel, spec: ScoringSpec, bars: BarColumns, features: FeatureRows): Promise<Scored> {
  return decide(spec, bars, features, await barProbabilities(scorer, features, bars.ts.length));
}

/**
 * p(up) known (modelProbabilities: training enters here, its fit returns the feature rows) →
 * threshold signals → entry mask.
 */
export function decide(spec: ScoringSpec, bars: BarColumns, features: FeatureRows, pUp: Float32Array): Scored {
  return { features, pUp, signals: strategySignals(spec, features, pUp), mask: strategyMask(bars, spec, features) };
}

/**
 * The whole chain over a window of bars: the strategy's features (rows before `lead` are the
 * warm-up and stay unscored), checked against the model's columns, then `scoreFeatures`.
 * With `share` (scoringShare of the model and spec), callers with the same features answer, lead
 * and share get one scoring, shared and never to be written.
 */
export async function scoreWindow(
  compute: FeatureComputer,
  scorer: OnnxModel,
  spec: ScoringSpec,
  bars: BarColumns,
  lead: number,
  share?: string,
): Promise<Scored> {
  const result = await compute(bars);
  const features = featureRows(result, lead, spec.features);
  if (share === undefined) return scoreFeatures(scorer, spec, bars, features);
  let byShare = scorings.get(result);
  if (!byShare) scorings.set(result, (byShare = new Map()));
  let byLead = byShare.get(share);
  if (!byLead) byShare.set(share, (byLead = new Map()));
  let scored = byLead.get(lead);
  if (!scored) {
    const made = (scored = scoreFeatures(scorer, spec, bars, features));
    const known = byLead;
    known.set(lead, made);
    made.catch(() => known.get(lead) === made && known.delete(lead));
  }
  return scored;
}

/**
 * Scorings already made on a features answer, by share (model and spec) and lead: scoreWindow's
 * `share`. An answer belongs to one window of bars of one program in one scope (FeatureSources),
 * so the deployments of one model with one spec on one bar (clones, a user's many deployments of
 * a program) step their engines on one scoring, read-only, instead of each scoring the same row
 * again: its p(up), threshold and signal arrays were a deployment's largest allocations of a bar.
 */
const scorings = new WeakMap<FeaturesResult, Map<string, Map<number, Promise<Scored>>>>();

/**
 * scoreWindow's `share` for a model and spec, worked out once per caller (a live stepper): the
 * model's identity (its bytes and owner) and a digest of what decides a scoring besides the
 * features. Undefined for a model that cannot be shared.
 */
export function scoringShare(scorer: OnnxModel, spec: ScoringSpec): string | undefined {
  if (scorer.shareKey === undefined) return undefined;
  const decides = JSON.stringify([spec.symbol, spec.timeframe, spec.features, spec.config, spec.settings]);
  return `${scorer.shareKey}\u0000${createHash('sha256').update(decides).digest('base64')}`;
}
