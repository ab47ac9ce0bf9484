import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { Bus } from './connection.ts';

/** A stored message read back by sequence. */
export interface StoredMessage {
  seq: number;
  subject: string;
  data: Uint8Array;
}

/** The first message on `subject` at or after `fromSeq` in a stream; null when there is none (yet). */
export async function nextBySubject(
  bus: Pick<Bus, 'jsm'>,
  stream: string,
  subject: string,
  fromSeq: number,
): Promise<StoredMessage | null> {
  // next_by_subj is served by nats-server ≥ 2.9 though the client's type for this call omits it.
  const query = { seq: Math.max(1, fromSeq), next_by_subj: subject } as unknown as { seq: number };
  const msg = await bus.jsm.streams.getMessage(stream, query);
  return msg ? { seq: msg.seq, subject: msg.subject, data: msg.data } : null;
}

/** The last message on `subject` a stream holds; null when it holds none. */
export async function lastBySubject(bus: Pick<Bus, 'jsm'>, stream: string, subject: string): Promise<StoredMessage | null> {
  const msg = await bus.jsm.streams.getMessage(stream, { last_by_subj: subject });
  return msg ? { seq: msg.seq, subject: msg.subject, data: msg.data } : null;
}

/** The sequence of the last message a stream stored (0 when it never stored one). */
export async function lastSeq(bus: Pick<Bus, 'jsm'>, stream: string): Promise<number> {
  const info = await bus.jsm.streams.info(stream);
  return info.state.last_seq;
}

/** How many messages on `subject` a stream holds after sequence `afterSeq` (a throw-away consumer counts them). */
export async function countAfter(bus: Pick<Bus, 'jsm'>, stream: string, subject: string, afterSeq: number): Promise<number> {
  const info = await bus.jsm.consumers.add(stream, {
    ack_policy: AckPolicy.None,
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: afterSeq + 1,
    filter_subject: subject,
    inactive_threshold: nanos(10_000),
    mem_storage: true,
  });
  await bus.jsm.consumers.delete(stream, info.name).catch(() => undefined);
  return info.num_pending;
}

/** Reads a stream forward in batches (see openRangeReader). */
export interface RangeReader {
  /** Up to `max` next messages, in stream order; fewer (maybe none) when `waitMs` passes first. */
  next(max: number, waitMs: number): Promise<StoredMessage[]>;
  close(): Promise<void>;
}

/**
 * A stream's messages on `filter` from sequence `fromSeq` on, fetched in batches by a throw-away
 * consumer (no acknowledgements, in memory, gone once idle): the reader asks for as many as it
 * knows are stored, so a batch comes back at once rather than when a pull expires.
 */
export async function openRangeReader(bus: Pick<Bus, 'js' | 'jsm'>, stream: string, filter: string, fromSeq: number): Promise<RangeReader> {
  const info = await bus.jsm.consumers.add(stream, {
    ack_policy: AckPolicy.None,
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: Math.max(1, fromSeq),
    filter_subject: filter,
    inactive_threshold: nanos(30_000),
    mem_storage: true,
  });
  const consumer = await bus.js.consumers.get(stream, info.name);
  return {
    async next(max, waitMs) {
      const out: StoredMessage[] = [];
      const batch = await consumer.fetch({ max_messages: max, expires: Math.max(1_000, waitMs) });
      for await (const msg of batch) {
        out.push({ seq: msg.seq, subject: msg.subject, data: msg.data });
        if (out.length >= max) break;
      }
      return out;
    },
    close: async () => {
      await bus.jsm.consumers.delete(stream, info.name).catch(() => undefined);
    },
  };
}

/**
 * The messages on `subject` a stream stored from `startMs` on (epoch ms), oldest first, at most
 * `limit`: read through a throw-away consumer, so a resuming client gets what it missed.
 */
export async function readFromTime(
  bus: Pick<Bus, 'js' | 'jsm'>,
  stream: string,
  subject: string,
  startMs: number,
  limit: number,
): Promise<StoredMessage[]> {
  const info = await bus.jsm.consumers.add(stream, {
    ack_policy: AckPolicy.None,
    deliver_policy: DeliverPolicy.StartTime,
    opt_start_time: new Date(Math.max(0, startMs)).toISOString(),
    filter_subject: subject,
    inactive_threshold: nanos(10_000),
    mem_storage: true,
  });
  try {
    const wanted = Math.min(info.num_pending, limit);
    const out: StoredMessage[] = [];
    if (wanted === 0) return out;
    const consumer = await bus.js.consumers.get(stream, info.name);
    const batch = await consumer.fetch({ max_messages: wanted, expires: 5_000 });
    for await (const msg of batch) {
      out.push({ seq: msg.seq, subject: msg.subject, data: msg.data });
      if (out.length >= wanted) break;
    }
    return out;
  } finally {
    await bus.jsm.consumers.delete(stream, info.name).catch(() => undefined);
  }
}
