import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the signature is
 * `v1,` + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)), where the key is the
 * base64-decoded part of the secret after its `whsec_` prefix.
 */

export const SECRET_PREFIX = 'whsec_';

/** The HMAC key a `whsec_…` secret stands for. */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('webhook secret is empty');
  return key;
}

/** Keys of the secrets signed with lately: a deployment signs with its one secret on every bar. */
const keys = new Map<string, KeyObject>();
const KEYS_KEPT = 50_000;

function keyOf(secret: string | Buffer): KeyObject {
  if (typeof secret !== 'string') return createSecretKey(secret);
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(secretKey(secret));
    if (keys.size >= KEYS_KEPT) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

/** `v1,<base64 signature>` of one message. */
export function signWebhook(secret: string | Buffer, id: string, timestampSeconds: number, body: string): string {
  // The prefix and the body hashed in turn: the same bytes as their concatenation, without a copy of the body.
  const mac = createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers plus the content type (and the user agent, when given), for one attempt. */
export function webhookHeaders(
  secret: string | Buffer,
  id: string,
  timestampSeconds: number,
  body: string,
  userAgent?: string,
): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signWebhook(secret, id, timestampSeconds, body),
  };
  if (userAgent !== undefined) headers['user-agent'] = userAgent;
  return headers;
}
