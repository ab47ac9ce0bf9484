import { tradeStats, type ClosedTrade } from '../../src/backtest/index.ts';
import type { JsonKv } from '../../src/bus/index.ts';
import { DIVERGENCE_CHECK_BARS } from '../../src/community/index.ts';
import type { Logger } from '../../src/log.ts';
import { TIMEFRAME_MS, type BarCache } from '../../src/market/index.ts';
import {
  freshStartAfter,
  lastClosedIndex,
  LiveStepper,
  loadModel,
  type FeatureComputer,
  type FeatureSource,
  type LiveBar,
  type OnnxModel,
} from '../../src/scoring/index.ts';
import type { CommunityEntryRecord, LiveRecord } from '../../schemas/community.ts';
import type { Buckets } from '../../schemas/messages.ts';
import type { LiveTrade, TrackerState } from '../../schemas/tracker.ts';
import type { TradeStats } from '../../schemas/backtest.ts';
import { checkWindow, initialCheck, nextCheckState, type CheckState, type CheckVerdict, type CheckWindow } from './divergence.ts';

/** Where live trades are kept (the `community_live_trades` table's repo). */
export interface LiveTradeStore {
  insert(trades: readonly LiveTrade[]): Promise<void>;
}

export interface EntryTrackerDeps {
  entry: CommunityEntryRecord;
  onnx: Uint8Array;
  features: FeatureSource;
  bars: Pick<BarCache, 'get'>;
  state: JsonKv<typeof Buckets.trackerState.schema>;
  records: JsonKv<typeof Buckets.trackRecords.schema>;
  trades: LiveTradeStore;
  /** The saved resume point; null for an entry never tracked (it starts on the bar closed at publication). */
  saved: TrackerState | null;
  /** Net P&L of the `saved.trades` trades stored so far, in exit order. */
  pnls: readonly number[];
  /** Epoch ms now (the host's clock). */
  now: number;
  /** The divergence check (DIVERGENCE_RULE): how often, how many at once in the process, where its failures are logged. */
  checks?: EntryChecks;
}

export interface EntryChecks {
  /** Bars tracked per check (default DIVERGENCE_CHECK_BARS). */
  everyBars?: number;
  /**
   * Computes a replay's features (default: the entry's feature source). A replay's window is as
   * long as the fit span and used once: the host passes one-shot pool jobs, so such answers are
   * neither kept in the live memo nor run in the warm session the live bars wait for.
   */
  features?: FeatureComputer;
  /** Runs a check's replay when the process has room (a features call as long as the entry's fit span). */
  limit?: <T>(run: () => Promise<T>) => Promise<T>;
  log?: Logger;
}

/** The live side of the bars since the last check: where it started, and the trades closed since. */
interface OpenWindow {
  fromTs: number;
  engine: unknown;
  bars: number;
  trades: ClosedTrade[];
}

/**
 * One shared entry followed on live bars, as a deployment of it would be: the frozen model and
 * code through the one live chain (LiveStepper: features, ONNX, the backtest's position engine).
 * After every chunk of bars its closed trades are stored (numbered since publication), then its
 * resume point and its public LiveRecord are written; the record's stats are TradeStats of every
 * stored trade, by the backtest's own function. Calls to `advance` run one at a time, in order.
 *
 * Every `everyBars` bars the bars since the last check are replayed through the backtest's path
 * beside the live run (divergence.ts), off the bar path: only the verdict is applied in order with
 * the bars. A persistent difference flags the record (`divergence`), which takes the entry off
 * the leaderboard; the check's counts are saved with the resume point, and a restart starts the
 * next window at the bar it resumes from.
 */
export class EntryTracker {
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  private since: number | null;
  private bars: number;
  /** Trades stored, as what tradeStats reads. */
  private readonly trades: { pnl: number }[];
  private stats: TradeStats;
  private check: CheckState;
  private window: OpenWindow;
  /** The check in flight (one at a time; a window that fills meanwhile waits for it). */
  private checking: Promise<void> | null = null;

  private constructor(
    private readonly deps: EntryTrackerDeps,
    private readonly scorer: OnnxModel,
    private readonly stepper: LiveStepper,
  ) {
    this.since = deps.saved?.since ?? null;
    this.bars = deps.saved?.bars ?? 0;
    this.trades = deps.pnls.map((pnl) => ({ pnl }));
    this.stats = this.computeStats();
    this.check = deps.saved?.check ?? initialCheck();
    this.window = this.openWindow();
  }

  private openWindow(): OpenWindow {
    return { fromTs: this.stepper.lastBarTs, engine: this.stepper.snapshot(), bars: 0, trades: [] };
  }

  /** Loads the model and resumes (or starts on the last bar closed at publication). */
  static async open(deps: EntryTrackerDeps): Promise<EntryTracker> {
    const { entry, saved } = deps;
    const { model } = entry;
    if (saved && deps.pnls.length !== saved.trades)
      throw new Error(`entry ${entry.community_id}: ${deps.pnls.length} stored trades, the saved state counts ${saved.trades}`);
    const scorer = await loadModel(deps.onnx, { owner: entry.user_id });
    try {
      const lastBarTs = saved
        ? saved.last_bar_ts
        : freshStartAfter(await deps.bars.get(model.symbol, model.timeframe), model.timeframe, entry.created_at, deps.now);
      const features = (bars: Parameters<FeatureSource['features']>[0]) => deps.features.features(bars);
      const stepper = new LiveStepper({ spec: model, scorer, features, bars: deps.bars }, { lastBarTs, engine: saved?.engine ?? null });
      return new EntryTracker(deps, scorer, stepper);
    } catch (err) {
      await scorer.close();
      throw err;
    }
  }

  get communityId(): number {
    return this.deps.entry.community_id;
  }

  /** Its program (sources of one program share a session and each window's features). */
  get program(): string {
    return this.deps.features.program;
  }

  /** Whether a warm session computes its features (else a pool job per call). */
  get warm(): boolean {
    return this.deps.features.warm;
  }

  get timeframeMs(): number {
    return TIMEFRAME_MS[this.deps.entry.model.timeframe];
  }

  /** Whether this entry trades on that series. */
  follows(symbol: string, timeframe: string): boolean {
    const { model } = this.deps.entry;
    return model.symbol === symbol && model.timeframe === timeframe;
  }

  /** Tracks every stored bar up to `barTs` (inclusive) not tracked yet. */
  advance(barTs: number): Promise<void> {
    const run = this.queue.then(() =>
      this.closed
        ? undefined
        : this.stepper.advance(
            barTs,
            (bars) => this.commit(bars),
            () => this.closed,
          ),
    );
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Tracks the bars closed by `now` (an entry just opened: its publication bar and those since). */
  async catchUp(now: number): Promise<void> {
    const { model } = this.deps.entry;
    const series = await this.deps.bars.get(model.symbol, model.timeframe);
    const closed = lastClosedIndex(series, model.timeframe, now);
    if (closed >= 0) await this.advance(series.columns().ts[closed]!);
  }

  /** Where it stands: what the saved state and the record say. */
  status(): { last_bar_ts: number; bars: number; trades: number; check: CheckState } {
    return { last_bar_ts: this.stepper.lastBarTs, bars: this.bars, trades: this.trades.length, check: this.check };
  }

  /** Resolves once the bars handed so far are tracked and any check they started is applied. */
  async settled(): Promise<void> {
    await this.queue;
    while (this.checking) await this.checking;
    await this.queue;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue;
    // A replay in flight is not waited for (it may take a minute): it fails or finishes on its own, and its verdict is dropped.
    await this.deps.features.release();
    await this.scorer.close();
  }

  /**
   * A chunk of bars: trades stored first, then the resume point and the record. A crash in
   * between replays the chunk from the last saved state, and the replay stores the same trades
   * under the same numbers (the table replaces them), so nothing is lost or doubled.
   */
  private async commit(bars: LiveBar[]): Promise<void> {
    const { entry } = this.deps;
    const id = entry.community_id;
    const fresh: LiveTrade[] = [];
    for (const bar of bars) {
      for (const trade of bar.closed) fresh.push({ ...trade, community_id: id, seq: this.trades.length + fresh.length });
      this.window.trades.push(...bar.closed);
    }
    this.window.bars += bars.length;
    await this.deps.trades.insert(fresh);
    if (fresh.length) {
      for (const t of fresh) this.trades.push({ pnl: t.pnl });
      this.stats = this.computeStats();
    }
    this.since ??= bars[0]!.ts + TIMEFRAME_MS[entry.model.timeframe];
    this.bars += bars.length;
    await this.save();
    this.startCheck();
  }

  /** The resume point and the public record, as they stand. */
  private async save(): Promise<void> {
    const { state, records } = this.deps;
    const key = String(this.deps.entry.community_id);
    const lastBarTs = this.stepper.lastBarTs;
    const since = this.since!;
    await Promise.all([
      state.put(key, {
        since,
        last_bar_ts: lastBarTs,
        bars: this.bars,
        trades: this.trades.length,
        engine: this.stepper.snapshot(),
        check: this.check,
      }),
      records.put(key, this.record(since, lastBarTs)),
    ]);
  }

  private record(since: number, lastBarTs: number): LiveRecord {
    return {
      since,
      last_bar_ts: lastBarTs,
      bars: this.bars,
      stats: this.stats,
      ...(this.check.flag ? { divergence: this.check.flag } : {}),
    };
  }

  /** Starts checking the window once it holds `everyBars` bars, unless a check is in flight. */
  private startCheck(): void {
    const checks = this.deps.checks ?? {};
    if (this.checking || this.closed || this.window.bars < (checks.everyBars ?? DIVERGENCE_CHECK_BARS)) return;
    const { entry } = this.deps;
    const window: CheckWindow = { ...this.window, toTs: this.stepper.lastBarTs, endEngine: this.stepper.snapshot() };
    this.window = this.openWindow();
    const features = checks.features ?? ((bars: Parameters<FeatureComputer>[0]) => this.deps.features.features(bars));
    const replay = { spec: entry.model, postCutoffBars: entry.post_cutoff_bars ?? 0, scorer: this.scorer, features, bars: this.deps.bars };
    const run = () => checkWindow(replay, window);
    this.checking = (checks.limit ? checks.limit(run) : run())
      .then(({ verdict, error }) => {
        if (error)
          checks.log?.warn(
            { err: error, community_id: entry.community_id },
            'tracker: the backtest path failed on a checked window; counted as divergent',
          );
        const apply = this.queue.then(() => (this.closed ? undefined : this.applyCheck(verdict, window)));
        this.queue = apply.catch(() => undefined);
        return apply;
      })
      .catch((err: unknown) =>
        checks.log?.warn(
          { err, community_id: entry.community_id },
          'tracker: a divergence check could not be applied; the next bar saves it',
        ),
      )
      .finally(() => {
        this.checking = null;
      });
  }

  /** One more check's verdict: the flag raised, kept or cleared, saved with the record. */
  private async applyCheck(verdict: CheckVerdict, window: CheckWindow): Promise<void> {
    const before = this.check.flag;
    this.check = nextCheckState(this.check, verdict, { fromTs: window.fromTs, toTs: window.toTs, timeframeMs: this.timeframeMs });
    if (!before && this.check.flag) {
      this.deps.checks?.log?.warn(
        { community_id: this.communityId, divergence: this.check.flag },
        'tracker: live trades persistently differ from the backtest path; the entry is off the leaderboard',
      );
    } else if (before && !this.check.flag) {
      this.deps.checks?.log?.info(
        { community_id: this.communityId },
        'tracker: live trades agree with the backtest path again; the divergence flag is cleared',
      );
    }
    if (this.since !== null) await this.save();
  }

  private computeStats(): TradeStats {
    return tradeStats(this.trades, this.deps.entry.model.settings.capital);
  }
}
