import { readFromTime, type Bus } from '../../bus/index.ts';
import type { Deployments, DeploymentWatches } from '../../deployments/index.ts';
import { TickTopic, type BarCache } from '../../market/index.ts';
import { sourceName } from '../../store/index.ts';
import { SignalEvent, type BarPrediction, type DeploymentRecord } from '../../../schemas/live.ts';
import type { BarMessage, TickMessage } from '../../../schemas/market.ts';
import { Streams, Topics } from '../../../schemas/messages.ts';
import type { Channel, ServerMessage } from '../../../schemas/stream.ts';
import { frameOnce } from './client-socket.ts';
import type { Fanout } from './fanout.ts';
import { CatchUp, isAfter, parseSince, signalPosition, type Position } from './resume.ts';

/** Missed signals replayed on resume at most (older ones: GET /deploy/{model}/deliveries, the webhook's log). */
export const SIGNAL_REPLAY_LIMIT = 1000;
/** Missed bars replayed on resume at most: the latest ones (older ones: GET /ohlc). */
export const BAR_REPLAY_LIMIT = 1000;

export interface ChannelDeps {
  fanout: Fanout;
  bus: Pick<Bus, 'js' | 'jsm'>;
  bars: Pick<BarCache, 'get'>;
  deployments: Pick<Deployments, 'find'>;
  /** A predictions channel watches its deployment while open: its actor publishes predictions only then. */
  watches: Pick<DeploymentWatches, 'watch'>;
  ticksPerSecond: number;
}

/** Where a channel's frames go: `send` is the socket's (flow-controlled), `ready` acknowledges with the replayed count. */
export interface ChannelSink {
  send(frame: ServerMessage | Buffer): void;
  ready(resumed: number): void;
}

/** A channel as a connection holds it: its identity, and for predictions the deployment it names. */
export interface ResolvedChannel {
  key: string;
  deployment: DeploymentRecord | null;
}

/**
 * The subscription's identity on a connection: one per channel. A model is named by stem or by
 * name, so predictions are keyed by the deployment they resolve to (404 like REST when none; a
 * store read): subscribing by one and then the other is the same subscription, not twice the frames.
 */
export async function resolveChannel(deps: Pick<ChannelDeps, 'deployments'>, userId: number, c: Channel): Promise<ResolvedChannel> {
  if (c.channel === 'bars') return { key: `bars:${c.symbol}:${c.timeframe}`, deployment: null };
  if (c.channel === 'ticks') return { key: `ticks:${c.symbol}`, deployment: null };
  const deployment = await deps.deployments.find(userId, c.model);
  return { key: `predictions:${deployment.deployment_id}`, deployment };
}

/** Opens a resolved channel: replays from `since` when given, then follows live. Returns its stop. */
export function openChannel(
  deps: ChannelDeps,
  channel: Channel,
  resolved: ResolvedChannel,
  since: string | undefined,
  sink: ChannelSink,
): Promise<() => void> {
  switch (channel.channel) {
    case 'bars':
      return openBars(deps, channel.symbol, channel.timeframe, since, sink);
    case 'ticks':
      return Promise.resolve(openTicks(deps, channel.symbol, sink));
    case 'predictions':
      return openPredictions(deps, resolved.deployment!, since, sink);
  }
}

const barFrame = (bar: BarMessage): ServerMessage => ({ type: 'bar', bar });

/** Every closed bar of the series as it is stored; resume from a bar time out of the bar cache. */
async function openBars(
  deps: ChannelDeps,
  symbol: BarMessage['symbol'],
  timeframe: BarMessage['timeframe'],
  since: string | undefined,
  sink: ChannelSink,
): Promise<() => void> {
  let last = since === undefined ? null : parseSince(since)[0];
  const live = new CatchUp<BarMessage>(since !== undefined, (bar) => {
    if (last !== null && bar.ts <= last) return;
    last = bar.ts;
    sink.send(frameOnce(bar, () => barFrame(bar)));
  });
  const stop = deps.fanout.add(Topics.bars, Topics.bars.subject(symbol, timeframe), (bar) => live.push(bar));
  return replayThenLive(live, stop, sink, async () => {
    if (last === null) return 0;
    const series = await deps.bars.get(symbol, timeframe);
    const c = series.columns();
    const from = Math.max(series.lowerBound(last + 1), c.ts.length - BAR_REPLAY_LIMIT);
    for (let i = from; i < c.ts.length; i++) {
      sink.send(
        barFrame({
          symbol,
          timeframe,
          ts: c.ts[i]!,
          open: c.open[i]!,
          high: c.high[i]!,
          low: c.low[i]!,
          close: c.close[i]!,
          volume: c.volume[i]!,
          ticks: c.ticks[i]!,
          spread: c.spread[i]!,
          source: sourceName(c.source[i]!),
        }),
      );
      last = c.ts[i]!;
    }
    return Math.max(0, c.ts.length - from);
  });
}

/**
 * Replays what a resuming client missed while its live frames are held back, acknowledges the
 * subscription, then lets the live frames through; a failed replay ends the live subscription.
 */
async function replayThenLive<T>(
  live: CatchUp<T>,
  stop: () => void,
  sink: ChannelSink,
  replay: () => Promise<number>,
): Promise<() => void> {
  let resumed: number;
  try {
    resumed = await replay();
  } catch (err) {
    stop();
    throw err;
  }
  sink.ready(resumed);
  live.release();
  return stop;
}

/**
 * Live ticks, conflated: at most `ticksPerSecond` frames per second per subscription; a tick that
 * arrives before the next frame is due replaces the waiting one (counted in `conflated`).
 */
function openTicks(deps: ChannelDeps, symbol: BarMessage['symbol'], sink: ChannelSink): () => void {
  const intervalMs = 1000 / deps.ticksPerSecond;
  let waiting: TickMessage | null = null;
  let dropped = 0;
  let sentAt = -Infinity;
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    timer = null;
    if (!waiting) return;
    sink.send({ type: 'tick', symbol, tick: waiting, conflated: dropped });
    waiting = null;
    dropped = 0;
    sentAt = performance.now();
  };
  const take = (tick: TickMessage, before: number) => {
    dropped += before + (waiting ? 1 : 0);
    waiting = tick;
    timer ??= setTimeout(flush, Math.max(0, sentAt + intervalMs - performance.now()));
  };
  // One way in: every feed publishes on `ticks.<SYMBOL>` (the TICKS stream), in `serve` as in `ingest`.
  const stop = deps.fanout.add(TickTopic, TickTopic.subject(symbol), (payload) => {
    const ticks = Array.isArray(payload) ? payload : [payload];
    if (ticks.length > 0) take(ticks[ticks.length - 1]!, ticks.length - 1);
  });
  sink.ready(0);
  return () => {
    if (timer) clearTimeout(timer);
    stop();
  };
}

type PredictionItem = { signal: SignalEvent } | { prediction: BarPrediction };

/**
 * One of the user's deployed models: each signal it emits (`signal`: the SignalEvent of the
 * webhook and SSE, from the same `signals.<deployment>` subject) and, once a bar's signals are
 * stored, the bar's `prediction` (live only). With `since` (a signal id or bar time) the stored
 * signals after it are replayed from JetStream first.
 */
async function openPredictions(
  deps: ChannelDeps,
  deployment: DeploymentRecord,
  since: string | undefined,
  sink: ChannelSink,
): Promise<() => void> {
  const id = deployment.deployment_id;
  const from = since === undefined ? null : parseSince(since, id);
  let lastSignal: Position | null = from;
  // A bar's prediction follows its signals: after a signal id, that bar's prediction is still to come.
  let lastBar = from === null ? -Infinity : from[1] === Number.POSITIVE_INFINITY ? from[0] : from[0] - 1;
  const sendSignal = (signal: SignalEvent, replayed: boolean): boolean => {
    const position = signalPosition(signal.id);
    if (!position || !isAfter(position, lastSignal)) return false;
    lastSignal = position;
    sink.send(replayed ? { type: 'signal', signal, replayed } : frameOnce(signal, () => ({ type: 'signal', signal })));
    return true;
  };
  const live = new CatchUp<PredictionItem>(from !== null, (item) => {
    if ('signal' in item) {
      sendSignal(item.signal, false);
      return;
    }
    const p = item.prediction;
    const barTs = Date.parse(p.bar.time);
    if (barTs <= lastBar) return;
    lastBar = barTs;
    sink.send(frameOnce(p, () => ({ type: 'prediction', prediction: p })));
  });
  // Written before the subscription is confirmed: from the next bar, its actor publishes predictions.
  const unwatch = await deps.watches.watch(id);
  const stops = [
    unwatch,
    deps.fanout.add(Topics.signal, Topics.signal.subject(id), (signal) => live.push({ signal })),
    deps.fanout.add(Topics.prediction, Topics.prediction.subject(id), (prediction) => live.push({ prediction })),
  ];
  const stop = () => {
    for (const s of stops) s();
  };
  return replayThenLive(live, stop, sink, async () => {
    if (from === null) return 0;
    let resumed = 0;
    const stored = await readFromTime(deps.bus, Streams.signals.name, Topics.signal.subject(id), from[0], SIGNAL_REPLAY_LIMIT);
    for (const msg of stored) {
      const event = SignalEvent.safeParse(JSON.parse(new TextDecoder().decode(msg.data)));
      if (event.success && sendSignal(event.data, true)) resumed++;
    }
    return resumed;
  });
}
