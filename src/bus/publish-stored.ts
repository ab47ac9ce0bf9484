import type { JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { isTransientBusError } from './transient.ts';

/** NATS headers of a message: its id (JetStream de-duplicates by it) and the others given; none when there are none. */
export function messageHeaders(msgID?: string, named?: Record<string, string>): ReturnType<typeof natsHeaders> | undefined {
  if (!msgID && !named) return undefined;
  const h = natsHeaders();
  if (msgID) h.set('Nats-Msg-Id', msgID);
  for (const [name, value] of Object.entries(named ?? {})) h.set(name, value);
  return h;
}

/** Tries of a JetStream publish with a message id whose answer an outage cut off. */
const PUBLISH_TRIES = 8;

/**
 * Publishes to a stream and resolves with the sequence it was stored under. With a message id a
 * lost answer is safe to publish again: the stream keeps one copy (its duplicate window), so a
 * node dying mid-publish neither loses the message nor doubles it.
 */
export async function publishStored(
  js: Pick<JetStreamClient, 'publish'>,
  subject: string,
  data: string | Uint8Array,
  msgID?: string,
  headers?: ReturnType<typeof natsHeaders>,
): Promise<number> {
  if (!msgID) return (await js.publish(subject, data, headers ? { headers } : {})).seq;
  for (let attempt = 1; ; attempt++) {
    try {
      return (await js.publish(subject, data, { msgID, ...(headers ? { headers } : {}) })).seq;
    } catch (err) {
      if (!isTransientBusError(err) || attempt >= PUBLISH_TRIES) throw err;
      await new Promise((r) => setTimeout(r, Math.min(2_000, 100 * 2 ** attempt)));
    }
  }
}
