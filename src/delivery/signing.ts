import { createHmac } from 'node:crypto';

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

/** `v1,<base64 signature>` of one message. */
export function signWebhook(secret: string | Buffer, id: string, timestampSeconds: number, body: string): string {
  const key = typeof secret === 'string' ? secretKey(secret) : secret;
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers plus the content type, for one attempt. */
export function webhookHeaders(secret: string | Buffer, id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signWebhook(secret, id, timestampSeconds, body),
  };
}
