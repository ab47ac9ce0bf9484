import type { JetStreamClient } from '@nats-io/jetstream';
import { canonicalMIMEHeaderKey, MsgHdrsImpl, type MsgHdrs } from '@nats-io/transport-node';
import { isTransientBusError } from './transient.ts';

/** Header names already checked (a handful of constants). */
const checkedNames = new Set<string>();

/**
 * A header put straight into the headers' map, checked as `set` checks it (a name NATS can
 * carry, a value without CR or LF): `set` also looks the name up through every key twice and
 * spells it out again, per header of every message (a KV write per webhook).
 */
function put(h: MsgHdrsImpl, name: string, value: string): void {
  if (!checkedNames.has(name)) {
    canonicalMIMEHeaderKey(name); // throws on a character a header name cannot have
    if (checkedNames.size >= 1_000) checkedNames.clear();
    checkedNames.add(name);
  }
  const checked = MsgHdrsImpl.validHeaderValue(value);
  // Replaced, not appended to, and put last, as `set` does.
  h.headers.delete(name);
  h.headers.set(name, [checked]);
}

/** NATS headers of a message: its id (JetStream de-duplicates by it) and the others given; none when there are none. */
export function messageHeaders(msgID?: string, named?: Record<string, string>): MsgHdrs | undefined {
  if (!msgID && !named) return undefined;
  const h = new MsgHdrsImpl();
  if (msgID) put(h, 'Nats-Msg-Id', msgID);
  if (named) for (const name in named) put(h, name, named[name]!);
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
  headers?: MsgHdrs,
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
