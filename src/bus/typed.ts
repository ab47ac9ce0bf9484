import type { JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import type { z } from 'zod';
import { isTransientBusError } from './transient.ts';

/** Tries of a JetStream publish with a message id whose answer an outage cut off. */
const PUBLISH_TRIES = 8;

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
  const data = JSON.stringify(topic.schema.parse(payload));
  const subject = topic.subject(...args);
  let headers: ReturnType<typeof natsHeaders> | undefined;
  if (options.headers) {
    headers = natsHeaders();
    for (const [name, value] of Object.entries(options.headers)) headers.set(name, value);
  }
  if (topic.stream) {
    const js = bus.js;
    if (!js) throw new Error(`publishing ${subject} needs JetStream: a stream stores it`);
    const msgID = options.msgID;
    if (!msgID) return { seq: (await js.publish(subject, data, headers ? { headers } : {})).seq };
    // With a message id a lost answer is safe to publish again: the stream keeps one copy (its
    // duplicate window), so a node dying mid-publish neither loses the message nor doubles it.
    for (let attempt = 1; ; attempt++) {
      try {
        return { seq: (await js.publish(subject, data, { msgID, ...(headers ? { headers } : {}) })).seq };
      } catch (err) {
        if (!isTransientBusError(err) || attempt >= PUBLISH_TRIES) throw err;
        await new Promise((r) => setTimeout(r, Math.min(2_000, 100 * 2 ** attempt)));
      }
    }
  }
  bus.nc.publish(subject, data, headers ? { headers } : undefined);
  return null;
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
        parsed = topic.schema.safeParse(msg.json());
      } catch {
        parsed = { success: false };
      }
      if (parsed.success) handler(parsed.data, msg.subject);
      else onMalformed(msg.subject);
    },
  });
}
