/**
 * Live ticks from core NATS: `ticks.<SYMBOL>` (schemas/messages.ts), payload one TickMessage or a
 * JSON array of them. Queued per symbol as received, decoded, numbered, batched and written to
 * the TickSink (tick-lanes.ts).
 *
 * Overload: core NATS is at-most-once and has no flow control. A client that stops reading its
 * socket gets its messages buffered by the server up to `max_pending` (64 MB by default) or the
 * write deadline, after which the server drops messages and cuts the connection ("Slow Consumer")
 * — the service's whole bus connection. So this source never stops reading: the subscription
 * uses a callback (nats.js then keeps no queue of its own), the callback only queues the payload
 * bytes, and when the sink lags a symbol's queue fills (`maxQueuedBytes`) and further messages
 * are shed BEFORE any decoding, counted in stats().shed and shedBySymbol, logged at a limited
 * rate. Decoding is the costly step; paying it only for ticks that will be stored keeps the
 * stored rate at capacity however much is offered. Ticks that must not be lost belong on Kafka
 * (or a JetStream stream), which can be read at the sink's pace.
 *
 * Scaling out: do not use a queue group; it would spread one symbol over several processes and
 * break its order. Give each process its own `symbols` instead.
 */
import type { Msg, NatsConnection, Subscription } from '../../bus/index.ts';
import { SYMBOLS, type Symbol } from '../../../schemas/common.ts';
import { Topics } from '../../../schemas/messages.ts';
import type { Logger } from '../../log.ts';
import type { TickSink } from '../tick-sink.ts';
import type { TickColumns } from '../../store/index.ts';
import { countRecords, decodeTicksInto, type ColumnsDecodeResult } from './columns-decoder.ts';
import { LogThrottle } from './log-throttle.ts';
import type { LiveSourceStats } from './tick-batching.ts';
import { describeProblem } from './tick-decoder.ts';
import { TickLanes, type LaneCodec, type TickLanesOptions } from './tick-lanes.ts';

export interface NatsTickSourceOptions extends Pick<TickLanesOptions, 'maxBatch' | 'maxDelayMs' | 'writeAttempts'> {
  nc: Pick<NatsConnection, 'subscribe'>;
  sink: TickSink;
  log: Logger;
  /** Subscribe to these symbols only. Default: one `ticks.>` subscription for every symbol. */
  symbols?: readonly Symbol[];
  /** Per-symbol bound on payload bytes queued undecoded (default 4 MiB, about 80 000 ticks). */
  maxQueuedBytes?: number;
}

export interface NatsTickSource {
  stats(): LiveSourceStats;
  /** Unsubscribes, writes what is buffered, and waits for the sink. */
  stop(): Promise<void>;
}

const SUBJECT_TO_SYMBOL = new Map<string, Symbol>(SYMBOLS.map((s) => [Topics.ticks.subject(s), s]));

export function startNatsTickSource(options: NatsTickSourceOptions): NatsTickSource {
  const { nc, log } = options;
  const throttle = new LogThrottle(log);
  let received = 0;
  let malformed = 0;

  const codec: LaneCodec<Uint8Array> = {
    size: (payload) => payload.byteLength,
    records: countRecords,
    decode(symbol: Symbol, payload: Uint8Array, out: TickColumns) {
      const from = out.length;
      let result: ColumnsDecodeResult;
      try {
        result = decodeTicksInto(payload, out);
      } catch (err) {
        // Never expected (the decoder does not throw), but a payload must not stop the pump.
        out.length = from;
        result = { ticks: 0, malformed: countRecords(payload), problem: { kind: 'json', value: String(err) } };
      }
      received += result.ticks + result.malformed;
      malformed += result.malformed;
      const problem = result.problem;
      if (problem) {
        const details = () => ({ subject: Topics.ticks.subject(symbol), malformed: result.malformed, reason: describeProblem(problem) });
        throttle.warn('payload', details, 'malformed tick message');
      }
    },
  };
  const lanes = new TickLanes(codec, { ...options, maxQueued: options.maxQueuedBytes ?? 4 * 2 ** 20 });

  const onMessage = (msg: Msg): void => {
    const symbol = SUBJECT_TO_SYMBOL.get(msg.subject);
    if (!symbol) {
      received++;
      malformed++;
      throttle.warn('subject', { subject: msg.subject }, 'tick message on an unknown symbol subject');
      return;
    }
    // msg.data is a view of the socket chunk nats.js read (never reused by it): queued as is.
    lanes.offer(symbol, msg.data);
  };

  const callback = (err: Error | null, msg: Msg): void => {
    if (err) {
      throttle.warn('subscription', { err }, 'nats tick subscription error');
      return;
    }
    // A throw here would surface inside the NATS client; nothing a message holds may do that.
    try {
      onMessage(msg);
    } catch (e) {
      malformed++;
      throttle.warn('handler', { err: e, subject: msg.subject }, 'tick message handler failed');
    }
  };

  const subjects = options.symbols ? [...new Set(options.symbols)].map((s) => Topics.ticks.subject(s)) : [Topics.ticks.all];
  const subs: Subscription[] = subjects.map((subject) => nc.subscribe(subject, { callback }));
  log.info({ subjects }, 'nats tick source subscribed');

  const stats = (): LiveSourceStats => ({
    received: received + lanes.shed,
    accepted: lanes.accepted,
    malformed,
    dropped: lanes.dropped,
    late: lanes.late,
    pending: lanes.pending(),
    shed: lanes.shed,
    shedBySymbol: Object.fromEntries(lanes.shedBySymbol),
    queued: lanes.queued(),
  });

  return {
    stats,
    async stop() {
      // drain() lets messages already delivered to the client reach the callback first.
      await Promise.all(subs.map((s) => (s.isClosed() ? undefined : s.drain().catch(() => undefined))));
      await lanes.close();
      log.info(stats(), 'nats tick source stopped');
    },
  };
}
