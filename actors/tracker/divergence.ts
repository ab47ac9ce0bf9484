/**
 * The tracker's check of a shared entry against its own backtest (DIVERGENCE_RULE in
 * src/community): the bars it traded live are replayed through the backtest's path — features
 * on as many rows as its train job computed them on, the same model, the same position engine from
 * the live engine's state — and the trades compared. A strategy whose features depend on how many
 * rows it is given (look-ahead only on long windows, say) trades one way in its backtest and
 * another live: that shows here, check after check.
 */
import { PositionEngine, type ClosedTrade, type OpenPosition } from '../../src/backtest/index.ts';
import { DIVERGENCE_CLEAR_CHECKS, DIVERGENCE_FLAG_CHECKS, DIVERGENCE_WINDOW_CHECKS, PRICE_TOLERANCE } from '../../src/community/index.ts';
import { isoFromMs } from '../../src/lib/iso-time.ts';
import { TIMEFRAME_MS } from '../../src/lib/timeframes.ts';
import type { BarCache } from '../../src/market/index.ts';
import {
  engineOptions,
  intrabarResolver,
  scoreWindow,
  sliceBars,
  type FeatureComputer,
  type LiveSpec,
  type OnnxModel,
} from '../../src/scoring/index.ts';
import { EngineSnapshot } from '../../schemas/backtest.ts';
import type { DivergenceRecord } from '../../schemas/community.ts';
import type { ModelRecord } from '../../schemas/training.ts';
import type { TrackerState } from '../../schemas/tracker.ts';

export type CheckState = NonNullable<TrackerState['check']>;

export const initialCheck = (): CheckState => ({ checks: 0, recent: [], agreeing: 0, flag: null });

/** What a check compares: the live side of the bars (fromTs, toTs]. */
export interface CheckWindow {
  /** Open time of the bar before the first checked (where the engine state below stands). */
  fromTs: number;
  /** The live engine's snapshot after `fromTs`. */
  engine: unknown;
  /** Open time of the last bar checked. */
  toTs: number;
  /** The live engine's snapshot after `toTs`. */
  endEngine: unknown;
  /** Trades the live run closed in the window, in exit order. */
  trades: readonly ClosedTrade[];
}

export interface ReplayDeps {
  spec: LiveSpec & Pick<ModelRecord, 'fit_span' | 'trained_span'>;
  /** The post-cutoff bars the train job scored after the fit span (the entry's `post_cutoff_bars`; 0 when unknown). */
  postCutoffBars?: number;
  scorer: OnnxModel;
  features: FeatureComputer;
  bars: Pick<BarCache, 'get'>;
}

/**
 * The rows the train job computed features on: the fit span's bars (warm-up included) in the
 * series, and the post-cutoff bars after them — exactly, while the series holds the span's start.
 */
export function backtestRows(series: { lowerBound(ts: number): number }, spec: ReplayDeps['spec'], postCutoffBars = 0): number {
  const span = spec.fit_span ?? spec.trained_span;
  return series.lowerBound(span.to + 1) - series.lowerBound(span.from) + postCutoffBars;
}

/**
 * The backtest path over the window's bars: features on the last `backtestRows` bars up to
 * `toTs` (at least the window and its warm-up), then the engine, restored from the live state at
 * `fromTs`, stepped over the window's bars. Returns the trades it closed and what it holds after.
 */
export async function replayWindow(
  deps: ReplayDeps,
  window: Pick<CheckWindow, 'fromTs' | 'engine' | 'toTs'>,
): Promise<{ trades: ClosedTrade[]; open: OpenPosition[] }> {
  const { spec } = deps;
  const series = await deps.bars.get(spec.symbol, spec.timeframe);
  const cols = series.columns();
  const from = series.lowerBound(window.fromTs + 1);
  const to = series.lowerBound(window.toTs + 1);
  const length = Math.max(backtestRows(series, spec, deps.postCutoffBars), to - from + spec.warmup);
  const first = Math.max(0, to - length);
  const bars = sliceBars(cols, first, to);
  const lead = from - first;
  const { signals, mask } = await scoreWindow(deps.features, deps.scorer, spec, bars, lead);
  const resolver = spec.settings.intrabar === 'finer' ? await intrabarResolver(deps.bars, spec.symbol, spec.timeframe) : null;
  const engine = PositionEngine.restore(engineOptions(spec, resolver), window.engine);
  const trades: ClosedTrade[] = [];
  for (let i = lead; i < bars.ts.length; i++) {
    engine.step(bars, i, signals[i]!, mask[i]!);
    if (engine.closedCount > 0) trades.push(...engine.drainClosed());
  }
  return { trades, open: engine.openPositions() };
}

/** What a check compares of an open position. */
export type Held = Pick<OpenPosition, 'side' | 'entryTs' | 'entryPrice'>;

/** The positions an engine snapshot holds. */
export function heldIn(snapshot: unknown): Held[] {
  const s = EngineSnapshot.parse(snapshot);
  return s.positions.map((p) => ({ side: s.side > 0 ? 1 : -1, entryTs: p.entryTs, entryPrice: p.entryPrice }));
}

const near = (a: number, b: number) => Math.abs(a - b) <= PRICE_TOLERANCE * Math.max(Math.abs(a), Math.abs(b), 1);
const sideName = (side: number) => (side > 0 ? 'long' : 'short');
const describeTrade = (t: ClosedTrade) =>
  `${sideName(t.side)} ${isoFromMs(t.entryTs)} at ${t.entryPrice} → ${isoFromMs(t.exitTs)} at ${t.exitPrice} (${t.reason})`;
const describeOpen = (p: Held) => `${sideName(p.side)} open since ${isoFromMs(p.entryTs)} at ${p.entryPrice}`;

/** The first difference between the live trades and the backtest path's, in words; null when they agree. */
export function firstDifference(
  live: readonly ClosedTrade[],
  replay: readonly ClosedTrade[],
  liveOpen: readonly Held[],
  replayOpen: readonly Held[],
): string | null {
  for (let k = 0; k < Math.max(live.length, replay.length); k++) {
    const a = live[k];
    const b = replay[k];
    const same =
      a &&
      b &&
      a.side === b.side &&
      a.entryTs === b.entryTs &&
      a.exitTs === b.exitTs &&
      a.reason === b.reason &&
      near(a.entryPrice, b.entryPrice) &&
      near(a.exitPrice, b.exitPrice);
    if (same) continue;
    const counts = `live closed ${live.length} trade${live.length === 1 ? '' : 's'}, the backtest path ${replay.length}`;
    return `${counts}; trade ${k + 1}: live ${a ? describeTrade(a) : 'none'}, backtest ${b ? describeTrade(b) : 'none'}`;
  }
  for (let k = 0; k < Math.max(liveOpen.length, replayOpen.length); k++) {
    const a = liveOpen[k];
    const b = replayOpen[k];
    if (a && b && a.side === b.side && a.entryTs === b.entryTs && near(a.entryPrice, b.entryPrice)) continue;
    return `the same trades closed, but live holds ${a ? describeOpen(a) : 'nothing'} and the backtest path ${b ? describeOpen(b) : 'nothing'}`;
  }
  return null;
}

/** One check's finding: agreement (with or without anything to compare), or the first difference. */
export type CheckVerdict = { agrees: true; traded: boolean } | { agrees: false; what: string };

/**
 * The flag after one more check (DIVERGENCE_RULE): DIVERGENCE_FLAG_CHECKS divergent among the last
 * DIVERGENCE_WINDOW_CHECKS that compared something raise it, DIVERGENCE_CLEAR_CHECKS agreeing in a
 * row clear it, and an agreeing check with nothing on either side changes nothing.
 */
export function nextCheckState(
  state: CheckState,
  verdict: CheckVerdict,
  window: { fromTs: number; toTs: number; timeframeMs: number },
): CheckState {
  const checks = state.checks + 1;
  if (verdict.agrees && !verdict.traded) return { ...state, checks };
  const divergent = !verdict.agrees;
  const recent = [...state.recent, { from: window.fromTs + window.timeframeMs, divergent }].slice(-DIVERGENCE_WINDOW_CHECKS);
  const count = recent.filter((c) => c.divergent).length;
  const agreeing = divergent ? 0 : state.agreeing + 1;
  let flag: DivergenceRecord | null = state.flag;
  if (divergent) {
    const what = (verdict as { what: string }).what;
    if (flag) flag = { ...flag, checks: count, what, agreeing: 0 };
    else if (count >= DIVERGENCE_FLAG_CHECKS) {
      flag = {
        since: recent.find((c) => c.divergent)!.from,
        flagged_at: window.toTs + window.timeframeMs,
        checks: count,
        what,
        agreeing: 0,
      };
    }
  } else if (flag) {
    flag = agreeing >= DIVERGENCE_CLEAR_CHECKS ? null : { ...flag, checks: count, agreeing };
  }
  return { checks, recent, agreeing, flag };
}

/** Checks a window: replays it and compares; a replay that fails is a divergence (the backtest path cannot reproduce the bars). */
export async function checkWindow(deps: ReplayDeps, window: CheckWindow): Promise<{ verdict: CheckVerdict; error?: unknown }> {
  try {
    const liveOpen = heldIn(window.endEngine);
    const replay = await replayWindow(deps, window);
    const what = firstDifference(window.trades, replay.trades, liveOpen, replay.open);
    if (what !== null) return { verdict: { agrees: false, what } };
    return { verdict: { agrees: true, traded: window.trades.length > 0 || liveOpen.length > 0 } };
  } catch (err) {
    // The reason's kind only: the message may quote the code, and the flag is public.
    const kind =
      typeof (err as { kind?: unknown }).kind === 'string' && /^[a-z_]{1,20}$/.test((err as { kind: string }).kind)
        ? ` (${(err as { kind: string }).kind})`
        : '';
    return { verdict: { agrees: false, what: `the backtest path could not compute the features of these bars${kind}` }, error: err };
  }
}

export const timeframeMsOf = (spec: Pick<LiveSpec, 'timeframe'>): number => TIMEFRAME_MS[spec.timeframe];
