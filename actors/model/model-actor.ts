import { levelDistance, usdLeg, contractSize, PositionEngine, type ClosedTrade, type FirstTouch, type IntrabarResolver } from '../../src/backtest/index.ts';
import type { JsonKv } from '../../src/bus/index.ts';
import type { ActivityBus } from '../../src/community/index.ts';
import { isoFromMs } from '../../src/lib/iso-time.ts';
import type { Logger } from '../../src/log.ts';
import { instrument, type BarCache } from '../../src/market/index.ts';
import { loadModel, type OnnxModel } from '../../src/scoring/onnx-scorer.ts';
import { engineOptions, featureRows, intrabarResolver, ohlcInput, scoreRows, sliceBars, strategySignals } from '../../src/training/index.ts';
import type { DeploymentRecord, SignalEvent } from '../../schemas/live.ts';
import type { Buckets } from '../../schemas/messages.ts';
import type { ModelRecord } from '../../schemas/training.ts';
import type { FeatureSource } from './feature-source.ts';
import { lateness } from './late.ts';

/** Bars handled per features call when catching up after an outage. */
const CATCH_UP_CHUNK = 2000;

export interface ModelActorDeps {
  deployment: DeploymentRecord;
  model: ModelRecord;
  onnx: Uint8Array;
  features: FeatureSource;
  bars: Pick<BarCache, 'get'>;
  state: JsonKv<typeof Buckets.actorState.schema>;
  publish(event: SignalEvent): Promise<void>;
  activity: Pick<ActivityBus, 'emit'>;
  log: Logger;
  /** With no saved state, the actor starts after this bar (default: the latest bar minus one, so its signal counts). */
  startAfterTs?: number;
}

/**
 * One deployed model, live: on each closed bar of its symbol and timeframe it computes the
 * strategy's features on its warm window (sandboxed), scores them with the ONNX model, turns the
 * score into a signal with the threshold and filters, and steps the same position engine the
 * backtest uses. Entries and exits become SignalEvents with stable ids; its state (the engine
 * snapshot and the last bar) is saved after every bar, so a restarted actor — here or on another
 * host — resumes where it stopped and catches up on the bars it missed.
 */
export class ModelActor {
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  private signalsSent = 0;
  /** The finer bars behind the resolver are re-read per batch: the 1-minute series grows live. */
  private finer: IntrabarResolver | null = null;

  private constructor(
    private readonly deps: ModelActorDeps,
    private readonly scorer: OnnxModel,
    private engine: PositionEngine,
    private lastBarTs: number,
  ) {}

  static async start(deps: ModelActorDeps): Promise<ModelActor> {
    const { deployment, model } = deps;
    const scorer = await loadModel(deps.onnx);
    const saved = await deps.state.get(deployment.deployment_id);
    const holder: { actor?: ModelActor } = {};
    // The engine asks the actor's current finer bars, re-read per batch (see advance()).
    const resolver: IntrabarResolver = {
      firstTouch: (...args): FirstTouch => holder.actor?.finer?.firstTouch(...args) ?? 'SL',
    };
    const options = engineOptions(model.symbol, model.timeframe, model.config, model.settings, resolver);
    let engine: PositionEngine;
    let lastBarTs: number;
    if (saved) {
      engine = PositionEngine.restore(options, saved.value.engine);
      lastBarTs = saved.value.last_bar_ts;
    } else {
      engine = new PositionEngine(options);
      const series = await deps.bars.get(model.symbol, model.timeframe);
      const ts = series.columns().ts;
      lastBarTs = deps.startAfterTs ?? (ts.length >= 2 ? ts[ts.length - 2]! : -1);
    }
    const actor = new ModelActor(deps, scorer, engine, lastBarTs);
    actor.signalsSent = saved?.value.signals_sent ?? 0;
    holder.actor = actor;
    return actor;
  }

  get deploymentId(): string {
    return this.deps.deployment.deployment_id;
  }

  /** Open time of the last bar handled. */
  get lastBar(): number {
    return this.lastBarTs;
  }

  /** Handles every stored bar up to `barTs` (inclusive) not handled yet, in order. Calls queue. */
  onBar(barTs: number): Promise<void> {
    const run = this.queue.then(() => (this.stopped ? undefined : this.advance(barTs)));
    this.queue = run.catch(() => undefined);
    return run;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue;
    await this.deps.features.release();
    await this.scorer.close();
  }

  private async advance(upToTs: number): Promise<void> {
    const { model, deployment } = this.deps;
    const series = await this.deps.bars.get(model.symbol, model.timeframe);
    this.finer = model.settings.intrabar === 'finer' ? await intrabarResolver(this.deps.bars, model.symbol, model.timeframe) : null;
    for (;;) {
      const cols = series.columns();
      const from = series.lowerBound(this.lastBarTs + 1);
      const to = Math.min(series.lowerBound(upToTs + 1), from + CATCH_UP_CHUNK);
      if (to <= from || this.stopped) return;
      const lead = Math.min(from, model.warmup);
      const window = sliceBars(cols, from - lead, to);
      const result = await this.deps.features.features(ohlcInput(window));
      if (result.columns.join('\u0000') !== model.features.join('\u0000')) {
        throw new Error(`the strategy produced other feature columns than at training (${result.columns.join(', ')})`);
      }
      const features = featureRows(result, lead);
      const pUp = await scoreRows(this.scorer, features, window.ts.length);
      const { signals, mask } = strategySignals(window, pUp, model.settings.confidence_threshold, model.config, features, instrument(model.symbol));
      const events: SignalEvent[] = [];
      for (let i = lead; i < window.ts.length; i++) {
        this.engine.step(window, i, signals[i]!, mask[i]!);
        let n = 0;
        const barTs = window.ts[i]!;
        for (const trade of this.engine.drainClosed()) events.push(this.closeEvent(trade, barTs, n++));
        const side = this.engine.nextOpen();
        if (side !== 0) events.push(this.openEvent(side, window.close[i]!, pUp[i]!, barTs, n++));
      }
      this.lastBarTs = window.ts[window.ts.length - 1]!;
      // Published in call order (one connection keeps it); the state is saved only once they are
      // stored, so a crash in between replays the bar and the stream drops the repeats by id.
      await Promise.all(events.map((event) => this.deps.publish(event)));
      this.signalsSent += events.length;
      const meta = { name: model.model_name, stem: model.stem, symbol: model.symbol, timeframe: model.timeframe, model_type: model.model_type };
      await Promise.all([
        this.deps.state.put(deployment.deployment_id, { last_bar_ts: this.lastBarTs, engine: this.engine.snapshot(), signals_sent: this.signalsSent }),
        ...events
          .filter((event) => event.action === 'open')
          .map((event) =>
            this.deps.activity.emit({ kind: 'SIGNAL_FIRED', bot: deployment.username, model: meta, metrics: { side: event.side, price: event.price } }),
          ),
      ]);
    }
  }

  private base(barTs: number, n: number) {
    const { deployment, model } = this.deps;
    const late = lateness(barTs, model.timeframe, deployment.created_at, Date.now());
    return {
      ...(late ? { late: true as const, due_at: isoFromMs(late.due_at) } : {}),
      id: `sig_${deployment.deployment_id}_${barTs}_${n}`,
      deployment_id: deployment.deployment_id,
      model: model.stem,
      model_name: model.model_name,
      symbol: model.symbol,
      timeframe: model.timeframe,
      bar_time: isoFromMs(barTs),
      created_at: isoFromMs(Date.now()),
    };
  }

  private closeEvent(trade: ClosedTrade, barTs: number, n: number): SignalEvent {
    return {
      ...this.base(barTs, n),
      action: 'close',
      side: trade.side > 0 ? 'long' : 'short',
      price: trade.exitPrice,
      stop_loss: null,
      take_profit: null,
      reason: trade.reason === 'end' ? 'signal' : trade.reason,
      p_up: null,
      pnl: trade.pnl,
    };
  }

  /** An entry at the next open, announced at this bar's close with levels from its close. */
  private openEvent(side: 1 | -1, close: number, pUp: number, barTs: number, n: number): SignalEvent {
    const { model } = this.deps;
    const inst = instrument(model.symbol);
    const options = engineOptions(model.symbol, model.timeframe, model.config, model.settings, null);
    const units = model.settings.lot_size * contractSize(inst);
    const level = (kind: 'stop' | 'take') => {
      const l = kind === 'stop' ? options.stop : options.take;
      if (!l) return null;
      const d = levelDistance(l, kind, side, close, units, inst, usdLeg(inst));
      if (!Number.isFinite(d)) return null;
      return kind === 'stop' ? close - side * d : close + side * d;
    };
    return {
      ...this.base(barTs, n),
      action: 'open',
      side: side > 0 ? 'long' : 'short',
      price: close,
      stop_loss: level('stop'),
      take_profit: level('take'),
      reason: 'signal',
      p_up: pUp,
      pnl: null,
    };
  }
}
