import { levelDistance, usdLeg, contractSize, type ClosedTrade, type EngineOptions } from '../../src/backtest/index.ts';
import type { JsonKv } from '../../src/bus/index.ts';
import type { ActivityBus } from '../../src/community/index.ts';
import { MODEL_REFUSED } from '../../src/deployments/index.ts';
import { isoFromMs } from '../../src/lib/iso-time.ts';
import type { Logger } from '../../src/log.ts';
import { type Actor } from '../../src/kernel/index.ts';
import { liveClock, type Clock } from '../../src/lib/clock.ts';
import { instrument, type BarCache, type Instrument } from '../../src/market/index.ts';
import {
  engineOptions,
  freshStartAfter,
  lastClosedIndex,
  LiveStepper,
  loadModel,
  ModelRejectedError,
  type FeatureSource,
  type LiveBar,
  type OhlcColumns,
  type OnnxModel,
} from '../../src/scoring/index.ts';
import type { BarPrediction, DeploymentRecord, SignalEvent } from '../../schemas/live.ts';
import type { Buckets } from '../../schemas/messages.ts';
import type { ModelRecord } from '../../schemas/training.ts';
import { labelMode } from '../../schemas/strategy.ts';
import { lateness } from './late.ts';

export interface ModelActorDeps {
  deployment: DeploymentRecord;
  model: ModelRecord;
  onnx: Uint8Array;
  features: FeatureSource;
  bars: Pick<BarCache, 'get'>;
  /** Where its resume point is saved (the model host's batches the puts of its actors' bar). */
  state: Pick<JsonKv<typeof Buckets.actorState.schema>, 'get' | 'put'>;
  publish(event: SignalEvent): Promise<void>;
  /**
   * The bar (open time) of the last signal the deployment has stored, or null when none: at start,
   * the signals of the bars before it, stepped again from an older resume point, are not sent
   * again. Without it, the actor saves its resume point after every bar.
   */
  lastStored?(): Promise<number | null>;
  /**
   * With `lastStored`: the resume point is saved every this many bars (the first time after
   * firstSaveAfter bars) and at stop, not after every bar. Default 60.
   */
  saveEveryBars?: number;
  /** Each scored bar, after its signals are stored (the WebSocket `predictions` channel); optional. */
  publishPrediction?(prediction: BarPrediction): void;
  /** Whether someone watches its predictions now (WatchedDeployments); absent: always, when they are published. */
  watched?(): boolean;
  activity: Pick<ActivityBus, 'emit'>;
  log: Logger;
  /** Live, the machine's clock; in replay, the bar being replayed. Start catches up to the bars closed by now. */
  clock?: Clock;
  /** With no saved state, the actor starts after this bar (default: the last closed bar minus one, so its signal counts). */
  startAfterTs?: number;
  /**
   * Marks the deployment failed for good, with the owner's reason (the host then stops this actor
   * and never starts it again). Without it, a model that fails the safety check faults the actor
   * like any other error.
   */
  failed?(reason: string): Promise<void>;
}

/** Bars between two saved resume points of an actor that knows its last stored signal (ModelActorDeps.lastStored). */
export const SAVE_EVERY_BARS = 60;

/**
 * Bars an actor handles before its first save (1 to `every`), spread by its deployment id: a
 * host's thousands of actors start together, and saving all on their first bar, then on the same
 * bar every `every` bars, was a stored message per actor at one bar close.
 */
export function firstSaveAfter(deploymentId: string, every: number): number {
  // FNV-1a: any even spread of ids will do, and the same id always saves on the same bars.
  let h = 0x811c9dc5;
  for (let i = 0; i < deploymentId.length; i++) h = Math.imul(h ^ deploymentId.charCodeAt(i), 0x01000193);
  return 1 + ((h >>> 0) % every);
}

/**
 * One deployed model, live: on each closed bar of its symbol and timeframe (`handle(bar open
 * time)`) it runs the scoring chain on its warm window — features (sandboxed), the column check,
 * ONNX p(up), the threshold and filters — and steps the same position engine the backtest uses.
 * Entries and exits become SignalEvents with stable ids; its state (the engine snapshot and the
 * last bar) is saved every SAVE_EVERY_BARS bars and at stop, so a restarted actor — here or on
 * another host — resumes from there, steps the bars since again without sending their stored
 * signals twice, and catches up on the bars it missed.
 */
export class ModelActor implements Actor<number> {
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  private signalsSent = 0;
  private barsHandled = 0;
  private scorer: OnnxModel | null = null;
  private stepper: LiveStepper | null = null;
  /** Signals of bars before this one are stored already (lastStored at start): stepped again, not sent again. */
  private storedThrough = -Infinity;
  /** Bars handled since the resume point was last saved by this actor. */
  private unsaved = 0;
  /** Bars still to handle before the next save (the first one staggered: firstSaveAfter). */
  private saveIn: number;
  private readonly clock: Clock;
  /** What every event of this actor says alike, worked out once (a bar's thousands of events allocate only what differs). */
  private readonly fixed: EventFixed;

  constructor(private readonly deps: ModelActorDeps) {
    this.clock = deps.clock ?? liveClock;
    this.fixed = eventFixed(deps.deployment, deps.model);
    this.saveIn = firstSaveAfter(deps.deployment.deployment_id, this.saveEvery);
  }

  private get saveEvery(): number {
    return this.deps.saveEveryBars ?? SAVE_EVERY_BARS;
  }

  /**
   * Loads the model and the saved state, then handles the bars closed since (by the clock). A
   * stored model that fails the safety check fails the deployment for good: the model is the same
   * on every retry, so it is marked failed rather than restarted forever, and this actor does
   * nothing. Any other load error (the scoring processes busy or dying) faults it, to be retried.
   */
  async start(): Promise<void> {
    const { deployment, model } = this.deps;
    try {
      this.scorer = await loadModel(this.deps.onnx, { owner: deployment.user_id });
    } catch (err) {
      if (!(err instanceof ModelRejectedError) || !this.deps.failed) throw err;
      this.deps.log.warn(
        { deployment_id: deployment.deployment_id, model: model.stem, reason: err.reason },
        'model actor: the stored model failed the safety check; the deployment is marked failed and not restarted',
      );
      await this.deps.failed(MODEL_REFUSED);
      this.stopped = true;
      return;
    }
    const saved = await this.deps.state.get(deployment.deployment_id);
    const series = await this.deps.bars.get(model.symbol, model.timeframe);
    const closed = lastClosedIndex(series, model.timeframe, this.clock.now());
    const stepper = {
      spec: model,
      scorer: this.scorer,
      features: (bars: OhlcColumns) => this.deps.features.features(bars),
      bars: this.deps.bars,
      positions: () => this.predicting(),
    };
    this.storedThrough = (await this.deps.lastStored?.()) ?? -Infinity;
    if (saved) {
      this.stepper = new LiveStepper(stepper, { lastBarTs: saved.value.last_bar_ts, engine: saved.value.engine });
      this.signalsSent = saved.value.signals_sent;
    } else {
      const after = this.deps.startAfterTs ?? freshStartAfter(series, model.timeframe, deployment.created_at, this.clock.now());
      this.stepper = new LiveStepper(stepper, { lastBarTs: after, engine: null });
    }
    if (closed >= 0) await this.handle(series.columns().ts[closed]!);
  }

  get deploymentId(): string {
    return this.deps.deployment.deployment_id;
  }

  /** Open time of the last bar handled. */
  get lastBar(): number {
    return this.stepper?.lastBarTs ?? -1;
  }

  /** Handles every stored bar up to `barTs` (inclusive) not handled yet, in order. Calls queue. */
  handle(barTs: number): Promise<void> {
    const run = this.queue.then(() =>
      this.stopped
        ? undefined
        : this.stepper!.advance(
            barTs,
            (bars) => this.commit(bars),
            () => this.stopped,
          ),
    );
    this.queue = run.catch(() => undefined);
    return run;
  }

  stats() {
    return { last_bar_ts: this.lastBar, bars: this.barsHandled, signals: this.signalsSent };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue;
    // Where it stands, so the next actor of the deployment (here or on another host) steps nothing again.
    if (this.stepper && this.unsaved > 0)
      await this.save().catch((err: unknown) =>
        this.deps.log.warn({ deployment_id: this.deploymentId, err }, 'model actor: saving the resume point at stop failed'),
      );
    await this.deps.features.release();
    await this.scorer?.close();
  }

  private save(): Promise<number> {
    const stepper = this.stepper!;
    this.unsaved = 0;
    this.saveIn = this.saveEvery;
    return this.deps.state.put(this.deps.deployment.deployment_id, {
      last_bar_ts: stepper.lastBarTs,
      engine: stepper.snapshot(),
      signals_sent: this.signalsSent,
    });
  }

  /**
   * A chunk of bars as signals: published, then the resume point saved. With `lastStored` the
   * resume point is saved every `saveEveryBars` bars (and at stop), not after every bar: an actor
   * that restarts steps the bars since again from it (the same engine gives the same signals,
   * with the same ids) and sends only those of the last bar stored and after (the stream drops a
   * repeat by id; one older than its duplicate window goes out again with its id, which receivers
   * de-duplicate). Saving a bar's state cost a stored message per model and bar.
   */
  private async commit(bars: LiveBar[]): Promise<void> {
    const { deployment } = this.deps;
    const events: SignalEvent[] = [];
    const predictions: BarPrediction[] = [];
    for (const bar of bars) {
      let n = 0;
      const first = events.length;
      // Stepped again after a restart: what this bar sent is stored already.
      const sent = bar.ts < this.storedThrough;
      // The entry the previous bar announced and this bar's open did not fill, first: it is news of that open.
      if (bar.cancelled !== 0) events.push(this.cancelEvent(bar.cancelled, bar.open, bar.ts, n++));
      for (const trade of bar.closed) events.push(this.closeEvent(trade, bar.ts, n++));
      if (bar.opened !== 0) events.push(this.openEvent(bar.opened, bar.close, bar.pUp, bar.ts, n++));
      // Stepped with its positions: someone watched when the bar was scored (see predicting).
      if (this.deps.publishPrediction && bar.positions)
        predictions.push(
          this.prediction(
            bar,
            events.slice(first).map((e) => e.id),
          ),
        );
      if (sent) {
        this.signalsSent += events.length - first;
        events.length = first;
      }
    }
    this.barsHandled += bars.length;
    // Published in call order (one connection keeps it); the state is saved only once they are
    // stored, so a crash in between replays the bar and the stream drops the repeats by id.
    await Promise.all(events.map((event) => this.deps.publish(event)));
    for (const prediction of predictions) this.deps.publishPrediction!(prediction);
    this.signalsSent += events.length;
    this.unsaved += bars.length;
    this.saveIn -= bars.length;
    const due = !this.deps.lastStored || this.saveIn <= 0;
    // SIGNAL_FIRED for entries only: a cancel fires nothing new, and the public event (no side) could
    // not say which it withdraws. Not waited for: the host gathers a bot's entries of a bar into one
    // event for half a second (FiredCoalescer), and a public announcement holds up no signal.
    for (const event of events)
      if (event.action === 'open')
        this.deps.activity
          .emit({ kind: 'SIGNAL_FIRED', bot: deployment.username, model: this.fixed.meta, bar_time: event.bar_time })
          .catch((err: unknown) =>
            this.deps.log.warn({ deployment_id: deployment.deployment_id, err }, 'model actor: SIGNAL_FIRED not stored'),
          );
    if (due) await this.save();
  }

  private base(barTs: number, n: number) {
    const { deployment, model } = this.deps;
    const { labels, prefix } = this.fixed;
    const late = lateness(barTs, model.timeframe, deployment.created_at, this.clock.now());
    return {
      ...(late ? { late: true as const, due_at: isoFromMs(late.due_at) } : {}),
      // A meta-labelled model's p_up is P(win) of the rule's trade: the event says so for its readers.
      ...(labels ? { labels } : {}),
      id: `${prefix}${barTs}_${n}`,
      deployment_id: deployment.deployment_id,
      model: model.stem,
      model_name: model.model_name,
      symbol: model.symbol,
      timeframe: model.timeframe,
      bar_time: isoFromMs(barTs),
      created_at: isoFromMs(this.clock.now()),
    };
  }

  /**
   * Whether a bar scored now should give a prediction: published at all, and watched by someone
   * now. The stepper asks it once per window and steps those bars with their positions, which is
   * what makes a bar's prediction (a watch beginning meanwhile cannot make one without them).
   */
  private predicting(): boolean {
    return this.deps.publishPrediction !== undefined && (this.deps.watched?.() ?? true);
  }

  /** One bar as the model saw it: p(up), the filtered decision, the engine's position after it. */
  private prediction(bar: LiveBar, signalIds: string[]): BarPrediction {
    const { deployment, model } = this.deps;
    const open = bar.positions ?? [];
    return {
      deployment_id: deployment.deployment_id,
      model: model.stem,
      symbol: model.symbol,
      timeframe: model.timeframe,
      bar: { time: isoFromMs(bar.ts), open: bar.open, high: bar.high, low: bar.low, close: bar.close },
      p_up: Number.isFinite(bar.pUp) ? bar.pUp : null,
      decision: sideName(bar.decision),
      position: { side: sideName(open[0]?.side ?? 0), open_positions: open.length, entry_price: open[0]?.entryPrice ?? null },
      signal_ids: signalIds,
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

  /** The entry announced on the previous bar, not filled at this bar's open (its time is excluded). */
  private cancelEvent(side: 1 | -1, open: number, barTs: number, n: number): SignalEvent {
    return {
      ...this.base(barTs, n),
      action: 'cancel',
      side: side > 0 ? 'long' : 'short',
      price: open,
      stop_loss: null,
      take_profit: null,
      reason: 'signal',
      p_up: null,
      pnl: null,
    };
  }

  /** An entry at the next open, announced at this bar's close with levels from its close. */
  private openEvent(side: 1 | -1, close: number, pUp: number, barTs: number, n: number): SignalEvent {
    const { stop, take } = this.fixed;
    return {
      ...this.base(barTs, n),
      action: 'open',
      side: side > 0 ? 'long' : 'short',
      price: close,
      stop_loss: stop ? levelAt(stop, 'stop', side, close, this.fixed) : null,
      take_profit: take ? levelAt(take, 'take', side, close, this.fixed) : null,
      reason: 'signal',
      p_up: pUp,
      pnl: null,
    };
  }
}

const sideName = (s: number): 'long' | 'short' | 'flat' => (s > 0 ? 'long' : s < 0 ? 'short' : 'flat');

/** The parts of a model actor's events that never change: its ids' prefix, the activity's model, the levels' inputs. */
interface EventFixed {
  prefix: string;
  labels: 'meta' | undefined;
  meta: { name: string } & Pick<ModelRecord, 'stem' | 'symbol' | 'timeframe' | 'model_type'>;
  stop: EngineOptions['stop'];
  take: EngineOptions['take'];
  inst: Instrument;
  units: number;
}

function eventFixed(deployment: DeploymentRecord, model: ModelRecord): EventFixed {
  const options = engineOptions(model, null);
  const inst = instrument(model.symbol);
  return {
    prefix: `sig_${deployment.deployment_id}_`,
    labels: labelMode(model.config) === 'meta' ? 'meta' : undefined,
    meta: { name: model.model_name, stem: model.stem, symbol: model.symbol, timeframe: model.timeframe, model_type: model.model_type },
    stop: options.stop,
    take: options.take,
    inst,
    units: model.settings.lot_size * contractSize(inst),
  };
}

/** An entry's stop or take-profit level from the signal bar's close (the engine's own distance rule); null when not finite. */
function levelAt(
  level: NonNullable<EngineOptions['stop']>,
  kind: 'stop' | 'take',
  side: 1 | -1,
  close: number,
  { units, inst }: EventFixed,
): number | null {
  const d = levelDistance(level, kind, side, close, units, inst, usdLeg(inst));
  if (!Number.isFinite(d)) return null;
  return kind === 'stop' ? close - side * d : close + side * d;
}
