import type { JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { z } from 'zod';
import { messageHeaders, publishStored } from './publish-stored.ts';
import type { StreamBatcher } from './stream-batch.ts';

/** What publishing needs: core NATS, and JetStream for topics a stream stores. */
export interface PublishVia {
  nc: Pick<NatsConnection, 'publish'>;
  js?: Pick<JetStreamClient, 'publish'>;
}

/** What subscribing needs: core NATS (a part that only listens takes this, never the connection). */
export interface SubscribeVia {
  nc: Pick<NatsConnection, 'subscribe'>;
}

/** A subject family of the switchboard and the schema of its payload (schemas/messages.ts `Topics`). */
export interface Topic<S extends z.ZodType, A extends readonly unknown[]> {
  subject: (...args: A) => string;
  all: string;
  schema: S;
  stream?: { name: string };
  /**
   * How a message's bytes become the value the schema checks (default: JSON). A topic with a
   * compact binary form too (ticks: tick frames) decodes both, and the schema judges either.
   */
  decode?: (data: Uint8Array) => unknown;
}

/**
 * Publishes a payload already in its topic's compact binary form (a tick frame, whose readers
 * decode it with the topic's `decode` and judge every record by its schema), as `publish` does.
 */
export async function publishEncoded<S extends z.ZodType, A extends readonly unknown[]>(
  bus: PublishVia,
  topic: Topic<S, A>,
  args: A,
  data: Uint8Array,
  options: { msgID?: string; headers?: Record<string, string> } = {},
): Promise<Published> {
  if (!topic.decode) throw new Error(`${topic.all} has no binary form to publish`);
  return send(bus, topic, args, data, options);
}

/**
 * Validates a payload against its topic's schema and publishes it with the batcher's others of
 * this event-loop turn (StreamBatcher): a topic a stream stores resolves once stored, with its
 * sequence; a core NATS topic resolves null once handed to the connection.
 */
export async function publishBatched<S extends z.ZodType, A extends readonly unknown[]>(
  batcher: StreamBatcher,
  topic: Topic<S, A>,
  args: A,
  payload: z.input<S>,
  msgID?: string,
): Promise<Published> {
  const data = JSON.stringify(topic.schema.parse(payload));
  if (!topic.stream) {
    batcher.send(topic.subject(...args), data);
    return null;
  }
  return { seq: await batcher.publish(topic.subject(...args), data, msgID) };
}

/** Where a published message went: the stream sequence when a stream stored it, else null. */
export type Published = { seq: number } | null;

/**
 * Validates a payload against its topic's schema and publishes it on the subject the arguments
 * name (with `headers`, if given): through JetStream when a stream stores the topic (resolves once
 * it is stored; `msgID` de-duplicates a repeat), else on core NATS.
 */
export async function publish<S extends z.ZodType, A extends readonly unknown[]>(
  bus: PublishVia,
  topic: Topic<S, A>,
  args: A,
  payload: z.input<S>,
  options: { msgID?: string; headers?: Record<string, string> } = {},
): Promise<Published> {
  return send(bus, topic, args, JSON.stringify(topic.schema.parse(payload)), options);
}

/** A subscription; `unsubscribe` ends it. */
export interface TopicSubscription {
  unsubscribe(): void;
}

/**
 * Calls `handler` with each message on `subject` (one subject of the topic, or its `all`) that
 * parses by the topic's schema; a malformed one goes to `onMalformed` (default: dropped).
 */
export function subscribe<S extends z.ZodType, A extends readonly unknown[]>(
  bus: SubscribeVia,
  topic: Topic<S, A>,
  subject: string,
  handler: (payload: z.infer<S>, subject: string) => void,
  onMalformed: (subject: string) => void = () => undefined,
  /** A queue group: each message goes to one subscriber of the group (work shared by processes). */
  queue?: string,
): TopicSubscription {
  return bus.nc.subscribe(subject, {
    ...(queue ? { queue } : {}),
    callback: (err, msg) => {
      if (err) return;
      let parsed: { success: true; data: z.infer<S> } | { success: false };
      try {
        parsed = topic.schema.safeParse(topic.decode ? topic.decode(msg.data) : msg.json());
      } catch {
        parsed = { success: false };
      }
      if (parsed.success) handler(parsed.data, msg.subject);
      else onMalformed(msg.subject);
    },
  });
}

/** Publishes encoded data on the topic's subject: through JetStream when a stream stores the topic (its sequence), else on core NATS. */
async function send<S extends z.ZodType, A extends readonly unknown[]>(
  bus: PublishVia,
  topic: Topic<S, A>,
  args: A,
  data: string | Uint8Array,
  options: { msgID?: string; headers?: Record<string, string> },
): Promise<Published> {
  const subject = topic.subject(...args);
  const headers = messageHeaders(undefined, options.headers);
  if (!topic.stream) {
    bus.nc.publish(subject, data, headers ? { headers } : undefined);
    return null;
  }
  if (!bus.js) throw new Error(`publishing ${subject} needs JetStream: a stream stores it`);
  return { seq: await publishStored(bus.js, subject, data, options.msgID, headers) };
}
