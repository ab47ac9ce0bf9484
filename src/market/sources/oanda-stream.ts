/**
 * Live ticks from OANDA's v20 pricing stream: one long HTTP GET whose chunked body is JSON lines
 * (PRICE, and a HEARTBEAT every 5 s). The connection is reopened with exponential backoff and
 * jitter when it fails, ends, or stays silent past `silenceTimeoutMs` (a half-open TCP connection
 * shows up only that way). Prices go through TickLanes like NATS ticks: the stream cannot be
 * paused without OANDA dropping us, so a lagging sink costs counted, shed ticks, not memory.
 */
import type { Symbol } from '../../../schemas/common.ts';
import type { Logger } from '../../log.ts';
import type { TickMessage } from '../../../schemas/market.ts';
import type { TickSink } from '../tick-sink.ts';
import { Backoff, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.ts';
import { LogThrottle } from './log-throttle.ts';
import { parseOandaLine, toOandaInstrument } from './oanda-price.ts';
import { sleep, type LiveSourceStats } from './tick-batching.ts';
import { tickVolume } from './tick-decoder.ts';
import { TickLanes, type LaneCodec, type TickLanesOptions } from './tick-lanes.ts';
import { liveClock, type Clock } from '../../lib/clock.ts';

/** Prices are parsed as lines arrive (they are few); the lanes count them one unit each. */
const PRICE_CODEC: LaneCodec<TickMessage> = {
  size: () => 1,
  records: () => 1,
  decode: (_symbol, t, out) => out.push(t.ts, 0, t.bid, t.ask, tickVolume(t)),
};

/** What the composition root fills from OANDA_STREAM_URL, OANDA_TOKEN and OANDA_ACCOUNT_ID. */
export interface OandaStreamOptions extends Pick<TickLanesOptions, 'maxBatch' | 'maxDelayMs'> {
  /** Per-symbol bound on prices held before they are written (default 50 000); beyond it they are shed. */
  maxPending?: number;
  /** e.g. https://stream-fxpractice.oanda.com (practice) or https://stream-fxtrade.oanda.com (live). */
  streamUrl: string;
  token: string;
  accountId: string;
  sink: TickSink;
  log: Logger;
  /** Default: the seven forex majors (BTC_USD is not offered by most OANDA divisions). */
  symbols?: readonly Symbol[];
  /** Reconnect when no line (price or heartbeat) arrived for this long (default 10 s). */
  silenceTimeoutMs?: number;
  backoff?: Partial<BackoffOptions>;
  /** Jitter source, for tests. */
  random?: () => number;
  /** The time of `lastMessageAt` (liveClock unless a test sets it). */
  clock?: Clock;
}

export interface OandaStreamStats extends LiveSourceStats {
  /** Responses with status 200 so far. */
  connects: number;
  connected: boolean;
  heartbeats: number;
  /** Quotes marked `tradeable: false`, skipped. */
  untradeable: number;
  /** Epoch ms of the last line received, or null. */
  lastMessageAt: number | null;
}

export interface OandaStream {
  stats(): OandaStreamStats;
  /** Closes the stream, stops reconnecting and writes what is buffered. */
  stop(): Promise<void>;
}

export const OANDA_DEFAULT_SYMBOLS: readonly Symbol[] = ['EURUSD', 'GBPUSD', 'USDJPY', 'USDCHF', 'AUDUSD', 'NZDUSD', 'USDCAD'];

/** Longest line we wait for; a PRICE line is a few hundred bytes. */
const MAX_LINE = 1 << 20;

class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`HTTP ${status}`);
  }
}

export function startOandaStream(options: OandaStreamOptions): OandaStream {
  const { log, silenceTimeoutMs = 10_000 } = options;
  const symbols = options.symbols ?? OANDA_DEFAULT_SYMBOLS;
  const instruments = new Map(symbols.map((s) => [toOandaInstrument(s), s]));
  const url =
    `${options.streamUrl.replace(/\/+$/, '')}/v3/accounts/${encodeURIComponent(options.accountId)}/pricing/stream` +
    `?instruments=${[...instruments.keys()].join('%2C')}`;
  const lanes = new TickLanes(PRICE_CODEC, { ...options, maxQueued: options.maxPending ?? 50_000 });
  const throttle = new LogThrottle(log);
  const backoff = new Backoff({ ...DEFAULT_BACKOFF, ...options.backoff }, options.random);
  const stopping = new AbortController();
  const clock = options.clock ?? liveClock;
  let current: AbortController | null = null;
  const counts = { received: 0, malformed: 0, connects: 0, heartbeats: 0, untradeable: 0 };
  let connected = false;
  let connectedAt: number | null = null;
  let lastMessageAt: number | null = null;

  const onLine = (line: string): void => {
    lastMessageAt = clock.now();
    const parsed = parseOandaLine(line, instruments);
    switch (parsed.kind) {
      case 'heartbeat':
        counts.heartbeats++;
        return;
      case 'price':
        counts.received++;
        lanes.offer(parsed.symbol, parsed.tick);
        return;
      case 'untradeable':
        counts.received++;
        counts.untradeable++;
        return;
      case 'other':
        log.debug({ type: parsed.type }, 'OANDA stream message ignored');
        return;
      case 'malformed':
        counts.received++;
        counts.malformed++;
        throttle.warn('line', { reason: parsed.reason, line: line.slice(0, 200) }, 'malformed OANDA stream line');
    }
  };

  /** One connection, until it fails or ends; resolves with why it ended, throws on errors. */
  async function connectOnce(): Promise<string> {
    const request = new AbortController();
    current = request;
    let silent = false;
    let watchdog: NodeJS.Timeout | undefined;
    // Armed before the headers arrive too, so a server that never answers is also "silent".
    const arm = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        silent = true;
        request.abort();
      }, silenceTimeoutMs);
    };
    arm();
    try {
      const res = await fetch(url, {
        headers: { Authorization: `Bearer ${options.token}`, 'Accept-Datetime-Format': 'RFC3339' },
        signal: request.signal,
      });
      if (res.status !== 200 || !res.body) throw new HttpStatusError(res.status, (await res.text()).slice(0, 300));
      counts.connects++;
      connected = true;
      connectedAt = performance.now();
      log.info({ instruments: [...instruments.keys()], connects: counts.connects }, 'OANDA price stream connected');
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'the server ended the stream';
        const lines = (buffer + value).split('\n');
        buffer = lines.pop() ?? '';
        for (const raw of lines) {
          const line = raw.trim();
          if (!line) continue;
          arm();
          onLine(line);
        }
        // A stream that never sends a newline must not grow this buffer for ever.
        if (buffer.length > MAX_LINE) {
          onLine(buffer.slice(0, 200)); // not JSON once cut: counted and logged as a malformed line
          buffer = '';
        }
      }
    } catch (err) {
      if (silent) return `no price or heartbeat for ${silenceTimeoutMs} ms`;
      throw err;
    } finally {
      clearTimeout(watchdog);
      connected = false;
      request.abort(); // releases the socket whatever happened
    }
  }

  /** How a connection's end is logged: an auth refusal is an error someone must fix, the rest is weather. */
  const describeEnd = (err: unknown): { level: 'warn' | 'error'; fields: Record<string, unknown>; message: string } => {
    if (!(err instanceof HttpStatusError)) return { level: 'warn', fields: { err }, message: 'OANDA stream failed' };
    const auth = err.status === 401 || err.status === 403;
    const hint = auth
      ? 'check OANDA_TOKEN and OANDA_ACCOUNT_ID'
      : err.status === 400
        ? 'check the instruments and OANDA_ACCOUNT_ID'
        : err.status >= 500
          ? 'OANDA server error'
          : 'request refused';
    // The body is OANDA's errorMessage; the token itself is never logged.
    return {
      level: auth ? 'error' : 'warn',
      fields: { status: err.status, body: err.body },
      message: `OANDA stream refused (HTTP ${err.status}): ${hint}`,
    };
  };

  const loop = (async () => {
    while (!stopping.signal.aborted) {
      let end: ReturnType<typeof describeEnd>;
      try {
        end = { level: 'warn', fields: { reason: await connectOnce() }, message: 'OANDA stream closed' };
      } catch (err) {
        end = describeEnd(err);
      }
      if (stopping.signal.aborted) break;
      if (connectedAt !== null) backoff.connectionEnded(performance.now() - connectedAt);
      connectedAt = null;
      const delay = backoff.next();
      log[end.level]({ ...end.fields, attempt: backoff.attempts, retryInMs: delay }, `${end.message}; reconnecting`);
      await sleep(delay, stopping.signal);
    }
  })();

  const stats = (): OandaStreamStats => ({
    ...counts,
    accepted: lanes.accepted,
    dropped: lanes.dropped,
    late: lanes.late,
    pending: lanes.pending(),
    shed: lanes.shed,
    shedBySymbol: Object.fromEntries(lanes.shedBySymbol),
    queued: lanes.queued(),
    connected,
    lastMessageAt,
  });

  return {
    stats,
    async stop() {
      stopping.abort();
      current?.abort();
      await loop;
      await lanes.close();
      log.info(stats(), 'OANDA price stream stopped');
    },
  };
}
