import { createHmac, timingSafeEqual } from 'node:crypto';
import { EmailTokenPayload } from '../../schemas/email.ts';

/**
 * The tokens of the e-mail links: `<base64url payload>.<base64url HMAC-SHA256>`, keyed with the
 * installation's secret. Unguessable without it, and bound to one account and one address, so
 * nobody can confirm or unsubscribe an address that is not theirs by changing the token.
 */

const mac = (key: Buffer, body: string): Buffer => createHmac('sha256', key).update(`signalforge-email:${body}`).digest();

export function signEmailToken(key: Buffer, payload: EmailTokenPayload): string {
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${mac(key, body).toString('base64url')}`;
}

/** The payload of a token this key signed; null for anything else (forged, altered, malformed). */
export function readEmailToken(key: Buffer, token: string): EmailTokenPayload | null {
  const [body, signature, ...rest] = token.split('.');
  if (!body || !signature || rest.length > 0) return null;
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(key, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const parsed = EmailTokenPayload.safeParse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
