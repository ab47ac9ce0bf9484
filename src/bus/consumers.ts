import { AckPolicy, DeliverPolicy, type ConsumerConfig, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { ConsumerSpec, StreamSpec } from '../../schemas/messages.ts';
import type { Bus } from './connection.ts';

/** A message delivered by a durable consumer; acknowledge it once its work is done. */
export interface Delivered {
  subject: string;
  /** Its stream sequence. */
  seq: number;
  /** 1 on the first delivery, more when it came again (not acknowledged in time, or nak'ed). */
  deliveryCount: number;
  data: Uint8Array;
  json(): unknown;
  ack(): void;
  /** Deliver it again, after `delayMs` when given. */
  nak(delayMs?: number): void;
  /** Never deliver it again. */
  term(): void;
  /** Still working on it: the ack wait starts again. */
  working(): void;
}

/**
 * A stored JsMsg as the bus hands it out: getters and methods on the prototype, not an object and
 * closures per message (a recorder or a delivery process takes thousands a bar).
 */
class StoredMsg {
  constructor(protected readonly msg: JsMsg) {}
  get subject(): string {
    return this.msg.subject;
  }
  get seq(): number {
    return this.msg.seq;
  }
  get data(): Uint8Array {
    return this.msg.data;
  }
}

/** A JsMsg as Delivered. */
class DeliveredMsg extends StoredMsg implements Delivered {
  get deliveryCount(): number {
    return this.msg.info.deliveryCount;
  }
  json(): unknown {
    return this.msg.json();
  }
  ack(): void {
    this.msg.ack();
  }
  nak(delayMs?: number): void {
    this.msg.nak(delayMs);
  }
  term(): void {
    this.msg.term();
  }
  working(): void {
    this.msg.working();
  }
}

const delivered = (msg: JsMsg): Delivered => new DeliveredMsg(msg);

/**
 * Creates the durable consumer the spec names, or brings the settings that may change (ack wait,
 * max ack pending) of an existing one to the spec. `ackWaitMs` overrides the spec's (configured).
 * Ensure its stream first: a "stream not found" here is then a cluster that has not caught up
 * with it, tried again like any start-up transient (isStartupTransient).
 */
export async function ensureConsumer(
  bus: Pick<Bus, 'jsm' | 'retry'>,
  spec: ConsumerSpec,
  overrides: { ackWaitMs?: number } = {},
): Promise<void> {
  const ackWaitMs = overrides.ackWaitMs ?? spec.ackWaitMs;
  const mutable: Partial<ConsumerConfig> = {
    ...(ackWaitMs !== undefined ? { ack_wait: nanos(ackWaitMs) } : {}),
    ...(spec.maxAckPending !== undefined ? { max_ack_pending: spec.maxAckPending } : {}),
  };
  await bus.retry.run({ op: 'ensure', kind: 'consumer', name: `${spec.stream.name}/${spec.name}` }, async () => {
    try {
      await bus.jsm.consumers.info(spec.stream.name, spec.name);
    } catch {
      await bus.jsm.consumers.add(spec.stream.name, {
        durable_name: spec.name,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: spec.deliver === 'new' ? DeliverPolicy.New : DeliverPolicy.All,
        ...(spec.filterSubject ? { filter_subject: spec.filterSubject } : {}),
        ...(spec.maxDeliver !== undefined ? { max_deliver: spec.maxDeliver } : {}),
        ...mutable,
      });
      return;
    }
    if (Object.keys(mutable).length > 0) await bus.jsm.consumers.update(spec.stream.name, spec.name, mutable);
  });
}

/** A durable consumer's messages being handed to a callback; `close` stops them. */
export interface Consuming {
  close(): Promise<void>;
  /** Resolves when it has ended: with the error that ended it, if one did (a throwing callback among them). */
  closed: Promise<Error | void>;
}

/**
 * Consumes a durable consumer (ensure it first): each message is handed to `each` as it arrives
 * (up to `max` unacknowledged in the client's buffer), in the client's own read loop rather than
 * through an async iterator's promise per message (the recorder takes every signal).
 */
export async function consume(
  bus: Pick<Bus, 'js' | 'retry'>,
  spec: ConsumerSpec,
  max: number,
  each: (msg: Delivered) => void,
): Promise<Consuming> {
  const messages = await bus.retry.run({ op: 'consume', kind: 'consumer', name: `${spec.stream.name}/${spec.name}` }, async () =>
    (await bus.js.consumers.get(spec.stream.name, spec.name)).consume({ max_messages: max, callback: (msg) => each(delivered(msg)) }),
  );
  return {
    close: async () => {
      await messages.close();
    },
    closed: messages.closed(),
  };
}

/** Pulls one message at a time from a durable consumer (ensure it first). */
export interface Puller {
  /** The next message, or null when none came within `expiresMs`. */
  next(expiresMs: number): Promise<Delivered | null>;
}

export async function puller(bus: Pick<Bus, 'js' | 'retry'>, spec: ConsumerSpec): Promise<Puller> {
  const consumer = await bus.retry.run({ op: 'get', kind: 'consumer', name: `${spec.stream.name}/${spec.name}` }, () =>
    bus.js.consumers.get(spec.stream.name, spec.name),
  );
  return {
    async next(expiresMs) {
      const msg = await consumer.next({ expires: expiresMs });
      return msg ? delivered(msg) : null;
    },
  };
}

/** A stored message as a follower sees it (no acknowledgement: nothing is kept on the server for it). */
export interface Followed {
  subject: string;
  seq: number;
  data: Uint8Array;
  /** A header of the message, if it has it. */
  header(name: string): string | undefined;
}

/** A JsMsg as Followed. */
class FollowedMsg extends StoredMsg implements Followed {
  header(name: string): string | undefined {
    return this.msg.headers?.get(name) || undefined;
  }
}

export interface FollowedStream extends AsyncIterable<Followed> {
  close(): Promise<void>;
}

/** A follower that hands each message to a callback (followStreamEach). */
export interface FollowedEach {
  close(): Promise<void>;
  /** Resolves when it has ended: with the error that ended it, if one did (a throwing callback among them). */
  closed: Promise<Error | void>;
}

/**
 * The ordered consumer of a follower and its messages (pushed to `callback` when given, else
 * iterated); `close` deletes the consumer after stopping them.
 */
async function openFollower(
  bus: Pick<Bus, 'js' | 'retry'>,
  stream: StreamSpec,
  filter: string,
  from: number | 'new',
  aheadBytes: number | undefined,
  callback?: (msg: JsMsg) => void,
) {
  const { consumer, messages } = await bus.retry.run({ op: 'follow (ordered consumer)', kind: 'stream', name: stream.name }, async () => {
    const consumer = await bus.js.consumers.get(stream.name, {
      filter_subjects: filter,
      ...(from === 'new'
        ? { deliver_policy: DeliverPolicy.New }
        : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: Math.max(1, from) }),
    });
    const ahead = aheadBytes ? { max_bytes: aheadBytes } : { max_messages: 1_000 };
    return { consumer, messages: await consumer.consume(callback ? { ...ahead, callback } : ahead) };
  });
  return {
    messages,
    close: async () => {
      await messages.close();
      // Not left on the server until it expires (5 min), still counting messages it will never
      // deliver (a symbol restarted after a failed store reads on a new one). Not waited for: a
      // close must not hang on a NATS node that is gone; then it simply expires.
      void consumer.delete().catch(() => undefined);
    },
  };
}

/**
 * A stream's messages on `filter`, in stream order and without a gap, for this process alone: an
 * ordered consumer, which the client recreates past the last message it saw when it breaks (a
 * NATS node gone, a reconnect). `from` = the first sequence to see, or 'new' for what is
 * published from now on. Nothing durable is left on the server when the process dies.
 */
export async function followStream(
  bus: Pick<Bus, 'js' | 'retry'>,
  stream: StreamSpec,
  filter: string,
  from: number | 'new',
  /**
   * How much the server may send ahead, in bytes (default: 1,000 messages). Large messages read
   * by several followers on one connection (ticks: a follower per symbol) need a bound in bytes:
   * the server cuts off a connection whose unread data outgrows its pending limit.
   */
  aheadBytes?: number,
): Promise<FollowedStream> {
  const { messages, close } = await openFollower(bus, stream, filter, from, aheadBytes);
  return {
    async *[Symbol.asyncIterator]() {
      for await (const msg of messages) yield new FollowedMsg(msg);
    },
    close,
  };
}

/**
 * followStream's messages handed to `each` as they arrive, in the same order, instead of through
 * async iterators (their promises and result objects per message: delivery follows every signal).
 * A callback that throws ends it (`closed` says with what).
 */
export async function followStreamEach(
  bus: Pick<Bus, 'js' | 'retry'>,
  stream: StreamSpec,
  filter: string,
  from: number | 'new',
  each: (msg: Followed) => void,
): Promise<FollowedEach> {
  const { messages, close } = await openFollower(bus, stream, filter, from, undefined, (msg) => each(new FollowedMsg(msg)));
  return { close, closed: messages.closed() };
}
