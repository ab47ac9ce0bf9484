/**
 * The accounts' KV records: what src/accounts keeps in its buckets (schemas/messages.ts `Buckets`
 * names the buckets). Storage shapes, not the wire: the account routes' schemas are in accounts.ts.
 */
import { z } from 'zod';
import { Plan } from './accounts.ts';

export const UserRecord = z.object({
  user_id: z.number().int().positive(),
  username: z.string(),
  plan: Plan,
  is_trial: z.boolean(),
  created_at: z.number().int().describe('epoch ms'),
  key_hash: z.string().describe('sha256 of the current API key'),
  key_hint: z.string().describe('masked key shown by whoami'),
  claimed_at: z.number().int().optional().describe('epoch ms the trial account got its first passkey or password (is_trial false since)'),
  sessions_after: z.number().int().optional().describe('epoch ms: sessions started before this have ended (revoke all, password change)'),
});
export type UserRecord = z.infer<typeof UserRecord>;

/** Who is calling a domain function (training, deployments, generation): the part of the account they act on. */
export const Caller = UserRecord.pick({ user_id: true, username: true, plan: true });
export type Caller = z.infer<typeof Caller>;

export const KeyRecord = z.object({ user_id: z.number().int().positive(), created_at: z.number().int() });
export type KeyRecord = z.infer<typeof KeyRecord>;

export const UsernameRecord = z.object({ user_id: z.number().int().positive() });

/** A browser session (key `<user_id>.<sha256(token)>`; older ones `<sha256(token)>`, unlisted). */
export const SessionRecord = KeyRecord.extend({
  last_seen_at: z.number().int().optional().describe('epoch ms, refreshed at most every few minutes'),
  device: z.string().max(80).optional().describe('browser and system named by its User-Agent, e.g. "Chrome on Linux"'),
  signed_in_at: z.number().int().optional().describe('epoch ms of the sign-in (or claim) it descends from; a renewed session keeps it'),
});
export type SessionRecord = z.infer<typeof SessionRecord>;

export const PasskeyRecord = z.object({
  id: z.string().describe('credential id, base64url'),
  public_key: z.string().describe('COSE public key, base64url'),
  counter: z.number().int().min(0),
  transports: z.array(z.string()).optional(),
  rp_id: z.string().describe('the relying party id it was registered under (sign-in must match)'),
  name: z.string(),
  created_at: z.number().int(),
  last_used_at: z.number().int().optional(),
});
export type PasskeyRecord = z.infer<typeof PasskeyRecord>;

/** How an account signs in. The password only as its Argon2id PHC string, recovery codes only as SHA-256. */
export const CredentialsRecord = z.object({
  password_hash: z.string().optional(),
  password_changed_at: z.number().int().optional(),
  passkeys: z.array(PasskeyRecord),
  recovery_codes: z.array(z.object({ hash: z.string(), used_at: z.number().int().nullable() })),
});
export type CredentialsRecord = z.infer<typeof CredentialsRecord>;

/** A WebAuthn challenge handed out and not yet answered (key: the challenge itself). */
export const ChallengeRecord = z.object({
  purpose: z.enum(['register', 'sign_in']),
  user_id: z.number().int().positive().nullable().describe('who registers; null for a sign-in'),
  rp_id: z.string(),
  origin: z.string(),
  expires_at: z.number().int(),
  used: z.boolean(),
});
export type ChallengeRecord = z.infer<typeof ChallengeRecord>;

/** Sign-in attempts of one account name or address: how many since the last quiet day, and the latest. */
export const AttemptsRecord = z.object({ count: z.number().int().min(0), last_at: z.number().int() });
export type AttemptsRecord = z.infer<typeof AttemptsRecord>;

/**
 * One credit change as its balance entry carries it until the usage recorder has stored it (see
 * CreditLedger). `seq` is the KV revision the change was written at; the change written by the
 * entry's own revision has none yet (the revision is known only once written: it is that entry's).
 */
export const CreditChange = z.object({
  seq: z.number().int().positive().optional(),
  /** The entry's write counter when the change was written (CreditsRecord.writes). */
  n: z.number().int().min(1),
  ts: z.number().int(),
  delta: z.number().int(),
  balance_after: z.number().int().min(0),
  reason: z.string(),
  ref: z.string(),
});
export type CreditChange = z.infer<typeof CreditChange>;

export const CreditsRecord = z.object({
  balance: z.number().int().min(0),
  updated_at: z.number().int(),
  /** Writes to this entry so far (every compare-and-set adds one): tells the ledger which revisions the bucket still keeps. */
  writes: z.number().int().min(0).optional(),
  /** The changes the usage recorder may not have stored yet, oldest first (the newest has no `seq`: it is this revision's). */
  changes: z.array(CreditChange).optional(),
  /**
   * The last UTC day (YYYY-MM-DD) whose fork payout this balance received, written in the same
   * compare-and-set as that credit: the payout sweep's once-only mark (days settle in order).
   */
  payout_day: z.iso.date().optional(),
  /**
   * The last monthly allowance this balance was topped up to: the UTC month (YYYY-MM) and the
   * credits, written in the same compare-and-set as the top-up — the once-per-month mark (only a
   * higher allowance later in the same month, an upgrade to pro, tops up once more, to it).
   */
  allowance: z.object({ month: z.string().regex(/^\d{4}-\d{2}$/), credits: z.number().int().min(0) }).optional(),
});
export type CreditsRecord = z.infer<typeof CreditsRecord>;

/** Sliding window of event times (epoch ms), oldest first. */
export const WindowRecord = z.object({ stamps: z.array(z.number().int()) });

const RateClaim = z.tuple([z.number().int(), z.number().int().positive()]);
/**
 * A key's requests claimed over every edge in its rate window: [stamp, count] pairs, each stamp
 * (epoch ms) at or after the requests it stands for. Claims close in time share a stamp, so the
 * record stays small however fast the key goes. A record of one stamp per request (`stamps`, as
 * edges before wrote it) reads as pairs of one, so a rolling upgrade keeps counting.
 */
export const RateClaimsRecord = z.union([
  z.object({ claims: z.array(RateClaim) }),
  z
    .object({ stamps: z.array(z.number().int()) })
    .transform(({ stamps }) => ({ claims: stamps.map((t): z.infer<typeof RateClaim> => [t, 1]) })),
]);
export type RateClaimsRecord = z.infer<typeof RateClaimsRecord>;

export const CostRecord = z.object({ usd: z.number().min(0) });

/** How far the usage recorder has stored the credits bucket's changes: every revision up to `seq` is in `usage_events`. */
export const UsageCursor = z.object({ seq: z.number().int().min(0), updated_at: z.number().int() });
export type UsageCursor = z.infer<typeof UsageCursor>;
/** The key of the usage recorder's cursor in `sf_usage_cursor`. */
export const USAGE_CURSOR_KEY = 'cursor';
