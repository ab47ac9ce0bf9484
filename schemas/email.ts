import { z } from 'zod';
import { IsoDateTime } from './common.ts';
import { CounterRecord, type BucketSpec } from './messages.ts';
import { strictObject } from './strict.ts';

/**
 * The `email` delivery channel (issue 38): the one address an account has confirmed by a link,
 * kept next to the account's other records in NATS KV, the tokens its links carry, and the routes
 * that register, confirm and unsubscribe it.
 */

/** An e-mail address as accepted: trimmed, at most 254 characters (RFC 5321), one `@`, no spaces or angle brackets. */
export const EmailAddress = z
  .string()
  .trim()
  .max(254)
  .regex(/^[^\s@<>(),;:"\\[\]]+@[^\s@<>(),;:"\\[\]]+\.[^\s@<>(),;:"\\[\]]+$/, 'an e-mail address such as trader@example.com')
  .meta({ examples: ['trader@example.com'] })
  .transform((v) => v.replace(/@(.*)$/, (_, host: string) => `@${host.toLowerCase()}`))
  .describe('An e-mail address (its domain is kept in lower case)');

// ---- KV records --------------------------------------------------------------------------------

/** KV `sf_email_addresses`, key `<user_id>`: the account's signal address. */
export const EmailAddressRecord = z.object({
  /** The address signals go to, once its link was followed; null before, and after an unsubscribe. */
  confirmed: z.object({ address: z.string(), at: z.number().int() }).nullable(),
  /** A registration waiting for its link: the token's single-use nonce (the token itself is never stored). */
  pending: z.object({ address: z.string(), nonce: z.string(), expires_at: z.number().int(), sent_at: z.number().int() }).nullable(),
  /** The last one-click unsubscribe: signals stopped going to this address then. */
  unsubscribed: z.object({ address: z.string(), at: z.number().int() }).nullable(),
  /** Base URL of the service the address was registered through (links in mails when PUBLIC_URL is unset). */
  links_base: z.string(),
  updated_at: z.number().int(),
});
export type EmailAddressRecord = z.infer<typeof EmailAddressRecord>;

/** KV `sf_email_secret`, key `hmac`: the key that signs confirmation and unsubscribe tokens, made once per installation. */
export const EmailSecretRecord = z.object({ key: z.string().describe('base64 of 32 random bytes'), created_at: z.number().int() });
export type EmailSecretRecord = z.infer<typeof EmailSecretRecord>;

export const EmailBuckets = {
  addresses: { name: 'sf_email_addresses', schema: EmailAddressRecord, ttlSeconds: 0 } satisfies BucketSpec<typeof EmailAddressRecord>,
  secret: { name: 'sf_email_secret', schema: EmailSecretRecord, ttlSeconds: 0 } satisfies BucketSpec<typeof EmailSecretRecord>,
  /** `<user_id>.<what>.<yyyymmdd>` → e-mails of that kind sent that UTC day (`signal`, `confirm`). */
  sent: { name: 'sf_email_sent', schema: CounterRecord, ttlSeconds: 2 * 24 * 3600 } satisfies BucketSpec<typeof CounterRecord>,
} as const;

/** What a signed link token says; `n` (single use) and `x` (expiry, epoch ms) on confirmation tokens only. */
export const EmailTokenPayload = z.object({
  p: z.enum(['confirm', 'unsubscribe']),
  u: z.number().int(),
  a: z.string(),
  n: z.string().optional(),
  x: z.number().int().optional(),
});
export type EmailTokenPayload = z.infer<typeof EmailTokenPayload>;

// ---- API -------------------------------------------------------------------------------------

export const EmailRegisterRequest = strictObject({
  address: EmailAddress.describe('Where signals of your deployments with the `email` channel go, once you follow the link mailed to it'),
}).meta({ id: 'EmailRegisterRequest' });
export type EmailRegisterRequest = z.infer<typeof EmailRegisterRequest>;

export const EmailStatus = z
  .object({
    available: z.boolean().describe('false when this server sends no e-mail (no SMTP_URL): the email channel cannot be deployed'),
    unavailable_reason: z.string().nullable().describe('Why the channel is unavailable; null when it is available'),
    status: z
      .enum(['none', 'pending', 'confirmed', 'unsubscribed'])
      .describe(
        'none = no address registered; pending = a link was mailed and not followed yet; confirmed = signals may go to `address`; unsubscribed = the address unsubscribed by its one-click link (register it again to resume)',
      ),
    address: z.string().nullable().describe('The confirmed address, else the one waiting for its link, else the one that unsubscribed'),
    pending_address: z
      .string()
      .nullable()
      .describe('An address waiting for its confirmation link (it replaces the confirmed one once confirmed)'),
    pending_expires_at: IsoDateTime.nullable(),
    signals_sent_today: z.number().int().describe('Signal e-mails sent to this account this UTC day'),
    daily_cap: z
      .number()
      .int()
      .describe(
        'Signal e-mails per account per UTC day (SIGNAL_EMAILS_PER_DAY); the signals beyond are not sent and show in the delivery log as capped',
      ),
  })
  .meta({ id: 'EmailStatus' });
export type EmailStatus = z.infer<typeof EmailStatus>;

export const EmailRegisterResponse = z
  .object({
    status: z.literal('pending'),
    address: z.string(),
    expires_at: IsoDateTime.describe('The confirmation link works once, until then'),
    message: z.string(),
  })
  .meta({ id: 'EmailRegisterResponse' });
export type EmailRegisterResponse = z.infer<typeof EmailRegisterResponse>;

export const EmailTokenQuery = z.object({
  token: z
    .string()
    .min(10)
    .max(2000)
    .describe('The signed token of the link (as mailed; it names the account and the address)')
    .meta({ examples: ['eyJ1IjoxLCJhIjoidHJhZGVyQGV4YW1wbGUuY29tIn0.c2lnbmF0dXJl'] }),
});

export const EmailConfirmResponse = z
  .object({ status: z.literal('confirmed'), address: z.string(), message: z.string() })
  .meta({ id: 'EmailConfirmResponse' });
export type EmailConfirmResponse = z.infer<typeof EmailConfirmResponse>;

export const EmailUnsubscribeResponse = z
  .object({ status: z.literal('unsubscribed'), address: z.string(), message: z.string() })
  .meta({ id: 'EmailUnsubscribeResponse' });
export type EmailUnsubscribeResponse = z.infer<typeof EmailUnsubscribeResponse>;
