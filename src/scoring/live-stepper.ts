/**
 * The live half of the chain: a model stepped forward bar by bar on the bars a series gains, with
 * the backtest's position engine. Deployed model actors and the community track record both run
 * through here, so a bar gives the same signal and the same trade in either, and in the backtest.
 */
import {
  PositionEngine,
  type ClosedTrade,
  type EngineSnapshot,
  type FirstTouch,
  type IntrabarResolver,
  type OpenPosition,
} from '../backtest/index.ts';
import { sliceBars } from '../lib/bar-columns.ts';
import { TIMEFRAME_MS, type Timeframe } from '../lib/timeframes.ts';
import type { BarCache, BarSeries } from '../market/index.ts';
import type { ModelRecord } from '../../schemas/training.ts';
import { scoreWindow, scoringShare, type FeatureComputer } from './chain.ts';
import { maskedSide } from './decisions.ts';
import { engineOptions, intrabarResolver } from './engine-inputs.ts';
import type { OnnxModel } from './onnx-scorer.ts';

/** Bars handled per features call when catching up after an outage. */
export const CATCH_UP_CHUNK = 2000;

const NO_TRADES: readonly ClosedTrade[] = Object.freeze([]);

/** Whether a position of `side` opened at the open of the bar at `ts`: still open, or closed inside that bar. */
function openedAt(engine: PositionEngine, ts: number, side: 1 | -1, closed: readonly ClosedTrade[]): boolean {
  return engine.openPositions().some((p) => p.entryTs === ts && p.side === side) || closed.some((t) => t.entryTs === ts && t.side === side);
}

/** What a live run needs to know of its model. */
export type LiveSpec = Pick<ModelRecord, 'symbol' | 'timeframe' | 'features' | 'config' | 'settings' | 'warmup'>;

/** What one bar did: its prices, p(up), the decision, the trades it closed, the side its signal enters at the next open, and an announced entry its open did not fill. */
export interface LiveBar {
  /** Open time, epoch ms. */
  ts: number;
  open: number;
  high: number;
  low: number;
  close: number;
  /** NaN while the bar has no feature row (warm-up). */
  pUp: number;
  /**
   * The threshold signal where the entry mask allows its side and the expected next open passes
   * the entry times (session_filter, skip_days): 1 / −1, else 0.
   */
  decision: number;
  /** Trades closed inside this bar (or at its open), in exit order. */
  closed: readonly ClosedTrade[];
  /**
   * 1 / −1: a position opens at the next bar's open on this bar's signal; 0: none. Said before
   * that bar exists, so its session and day are judged on its expected open time (after Friday's
   * last bar, the weekly reopening); should a feed gap or a holiday bring it at a filtered time,
   * the engine, which judges the bar that came, opens nothing there (`cancelled` on that bar).
   */
  opened: -1 | 0 | 1;
  /**
   * 1 / −1: the entry the previous bar announced (its `opened`) did not fill at this bar's open —
   * the bar came at a time the entry times exclude; 0: nothing was announced, or it filled. Read
   * off the engine (what it held pending before this bar against what opened at this open), so it
   * says what the engine did, and holds across a restart (the snapshot keeps the pending signal).
   */
  cancelled: -1 | 0 | 1;
  /** The open positions after the bar, when the stepper was asked for them (`positions`). */
  positions?: OpenPosition[];
}

export interface LiveStepperDeps {
  spec: LiveSpec;
  scorer: OnnxModel;
  features: FeatureComputer;
  bars: Pick<BarCache, 'get'>;
  /** Report the open positions after each bar (LiveBar.positions): always, or while this says so. */
  positions?: boolean | (() => boolean);
}

/** Where a run resumes: the last bar it handled and the engine after it (null: a fresh engine). */
export interface LiveResume {
  lastBarTs: number;
  engine: unknown;
}

/** Index of the last bar of the series closed by `t` (its open + the timeframe is not after it); −1 when none. */
export function lastClosedIndex(series: Pick<BarSeries, 'lowerBound'>, timeframe: Timeframe, t: number): number {
  return series.lowerBound(t - TIMEFRAME_MS[timeframe] + 1) - 1;
}

/**
 * Where a new run starts, as the open time of the bar before its first (−1: from the first bar):
 * on the last bar closed when it was made (`createdAt`), however late it starts — that bar's
 * position is known at once, the bars closed since follow in order.
 */
export function freshStartAfter(series: BarSeries, timeframe: Timeframe, createdAt: number, now: number): number {
  const first = Math.min(lastClosedIndex(series, timeframe, now), lastClosedIndex(series, timeframe, createdAt));
  return first >= 1 ? series.columns().ts[first - 1]! : -1;
}

/**
 * One model's live position engine. `advance(upTo)` scores the stored bars after the last one it
 * handled on a warm window (the model's warm-up before them, so the features equal the backtest's),
 * steps the engine over them, and hands each chunk to `commit` before scoring the next: the caller
 * stores what it must (signals, trades, the snapshot) so a restart resumes from there.
 */
export class LiveStepper {
  private readonly engine: PositionEngine;
  /** The finer bars behind the resolver are re-read per advance: the 1-minute series grows live. */
  private finer: IntrabarResolver | null = null;
  private last: number;
  /** Steppers of one model and spec share each bar's scoring (scoreWindow's `share`). */
  private readonly share: string | undefined;

  constructor(
    private readonly deps: LiveStepperDeps,
    resume: LiveResume,
  ) {
    const resolver: IntrabarResolver = { firstTouch: (...args): FirstTouch => this.finer?.firstTouch(...args) ?? 'SL' };
    const options = engineOptions(deps.spec, resolver);
    this.engine = resume.engine == null ? new PositionEngine(options) : PositionEngine.restore(options, resume.engine);
    this.last = resume.lastBarTs;
    this.share = scoringShare(deps.scorer, deps.spec);
  }

  /** Open time of the last bar handled (−1 before the first). */
  get lastBarTs(): number {
    return this.last;
  }

  /** The engine after the last bar handled (what a restart resumes from). */
  snapshot(): EngineSnapshot {
    return this.engine.snapshot();
  }

  /** Handles every stored bar after the last one handled up to `upToTs` (inclusive), in order. */
  async advance(upToTs: number, commit: (bars: LiveBar[]) => Promise<void>, stopped: () => boolean = () => false): Promise<void> {
    const { spec, scorer, bars } = this.deps;
    const engine = this.engine;
    const series = await bars.get(spec.symbol, spec.timeframe);
    this.finer = spec.settings.intrabar === 'finer' ? await intrabarResolver(bars, spec.symbol, spec.timeframe) : null;
    for (;;) {
      const cols = series.columns();
      const from = series.lowerBound(this.last + 1);
      const to = Math.min(series.lowerBound(upToTs + 1), from + CATCH_UP_CHUNK);
      if (to <= from || stopped()) return;
      const lead = Math.min(from, spec.warmup);
      const window = sliceBars(cols, from - lead, to);
      const { pUp, signals, mask } = await scoreWindow(this.deps.features, scorer, spec, window, lead, this.share);
      const out: LiveBar[] = [];
      const { positions } = this.deps;
      const withPositions = typeof positions === 'function' ? positions() : positions === true;
      for (let i = lead; i < window.ts.length; i++) {
        // What the previous bar announced: nextOpen() on the engine as that bar left it (restored or not).
        const announced = engine.nextOpen();
        engine.step(window, i, signals[i]!, mask[i]!);
        const closed = engine.closedCount > 0 ? engine.drainClosed() : NO_TRADES;
        out.push({
          ts: window.ts[i]!,
          open: window.open[i]!,
          high: window.high[i]!,
          low: window.low[i]!,
          close: window.close[i]!,
          pUp: pUp[i]!,
          decision: engine.entryTimeAllowed(engine.expectedNextTs()) ? maskedSide(signals[i]!, mask[i]!) : 0,
          closed,
          opened: engine.nextOpen(),
          cancelled: announced !== 0 && !openedAt(engine, window.ts[i]!, announced, closed) ? announced : 0,
          ...(withPositions ? { positions: engine.openPositions() } : {}),
        });
      }
      this.last = window.ts[window.ts.length - 1]!;
      await commit(out);
    }
  }
}
