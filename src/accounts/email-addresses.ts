import { randomBytes } from 'node:crypto';
import { openBucket, type Bus, type JsonKv } from '../bus/index.ts';
import { BadRequestError, NotFoundError, RateLimitedError, UnprocessableError } from '../errors.ts';
import { isoFromMs } from '../lib/iso-time.ts';
import { nextUtcMidnight, utcDayKey } from '../lib/utc-day.ts';
import { EmailBuckets, type EmailAddressRecord, type EmailStatus } from '../../schemas/email.ts';
import { readEmailToken, signEmailToken } from './email-tokens.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

/** A confirmation link works this long. */
export const CONFIRM_TTL_MS = 24 * 3600_000;
/** Confirmation mails one account may have sent per UTC day (each goes to an address not yet confirmed). */
export const CONFIRM_MAILS_PER_DAY = 5;

const SECRET_KEY = 'hmac';
const NOT_VALID =
  'this link is not valid (it was altered, or it is not from this service): use the link exactly as mailed, or register the address again with POST /api/v1/email';

/** Counts of e-mails sent, per account, kind and UTC day. */
type SentKind = 'signal' | 'confirm';

/**
 * The e-mail addresses of accounts (issue 38's `email` channel): registered by the key's owner,
 * confirmed by a signed single-use link mailed to them, unsubscribed by the signed one-click link
 * every signal mail carries; and the per-day counts of mails sent to each account.
 */
export class EmailAddresses {
  private readonly clock: Clock;

  private constructor(
    private readonly records: JsonKv<typeof EmailBuckets.addresses.schema>,
    private readonly sent: JsonKv<typeof EmailBuckets.sent.schema>,
    private readonly key: Buffer,
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? liveClock;
  }

  /** Opens the buckets; the signing secret is made by the first process of the installation and shared by all. */
  static async open(bus: Bus, replicas = 1, options: { clock?: Clock } = {}): Promise<EmailAddresses> {
    const [records, secret, sent] = await Promise.all([
      openBucket(bus, EmailBuckets.addresses, replicas),
      openBucket(bus, EmailBuckets.secret, replicas),
      openBucket(bus, EmailBuckets.sent, replicas),
    ]);
    await secret.create(SECRET_KEY, { key: randomBytes(32).toString('base64'), created_at: (options.clock ?? liveClock).now() });
    const stored = await secret.get(SECRET_KEY);
    if (!stored) throw new Error('the e-mail signing secret could not be read back from KV sf_email_secret');
    return new EmailAddresses(records, sent, Buffer.from(stored.value.key, 'base64'), options);
  }

  async record(userId: number): Promise<EmailAddressRecord | null> {
    return (await this.records.get(String(userId)))?.value ?? null;
  }

  /** The address signals of this account may go to now; null when none is confirmed. */
  async confirmedAddress(userId: number): Promise<string | null> {
    return (await this.record(userId))?.confirmed?.address ?? null;
  }

  /** The confirmed address, for a deploy with the email channel: 422 saying what to do when there is none. */
  async requireConfirmed(userId: number): Promise<string> {
    const record = await this.record(userId);
    if (record?.confirmed) return record.confirmed.address;
    const pending = record?.pending ? ` (the link mailed to ${record.pending.address} has not been followed yet)` : '';
    throw new UnprocessableError(
      `the email channel needs a confirmed address${pending}: register one with POST /api/v1/email, follow the link mailed to it, then deploy again`,
    );
  }

  /**
   * Registers an address for confirmation: a new single-use token replaces any earlier one.
   * Returns the token (for the mail only: it is never stored or logged). At most
   * CONFIRM_MAILS_PER_DAY a day per account (429), so nobody is mailed over and over.
   */
  async register(
    userId: number,
    address: string,
    linksBase: string,
    now = this.clock.now(),
  ): Promise<{ token: string; expires_at: number }> {
    await this.take(userId, 'confirm', CONFIRM_MAILS_PER_DAY, now, (limit) => {
      const resetsAt = nextUtcMidnight(now);
      throw new RateLimitedError(
        `at most ${limit} confirmation mails per account per UTC day: follow the link already mailed, or try again after ${new Date(resetsAt).toISOString()}`,
        (resetsAt - now) / 1000,
      );
    });
    const nonce = randomBytes(12).toString('base64url');
    const expires = now + CONFIRM_TTL_MS;
    await this.records.mutate(String(userId), (current) => ({
      confirmed: current?.confirmed ?? null,
      unsubscribed: current?.unsubscribed ?? null,
      pending: { address, nonce, expires_at: expires, sent_at: now },
      links_base: linksBase,
      updated_at: now,
    }));
    return { token: signEmailToken(this.key, { p: 'confirm', u: userId, a: address, n: nonce, x: expires }), expires_at: expires };
  }

  /**
   * Confirms the address of a confirmation token: once (its nonce is used up), before it expires,
   * and only the registration it was made for (a later registration makes it void).
   */
  async confirm(token: string, now = this.clock.now()): Promise<{ user_id: number; address: string }> {
    const payload = readEmailToken(this.key, token);
    if (!payload || payload.p !== 'confirm' || !payload.n || payload.x === undefined) throw new BadRequestError(NOT_VALID);
    if (payload.x < now)
      throw new BadRequestError('this confirmation link has expired: register the address again (POST /api/v1/email) for a new one');
    await this.records.mutate(String(payload.u), (current) => {
      const pending = current?.pending;
      if (current && current.confirmed?.address === payload.a && (!pending || pending.nonce !== payload.n)) {
        // Followed twice (a mail client's preview, then the user): already done, nothing to change.
        return current;
      }
      if (!current || !pending || pending.nonce !== payload.n || pending.address !== payload.a) {
        throw new BadRequestError(
          'this confirmation link was already used or replaced by a newer one: follow the newest link mailed to you, or register the address again',
        );
      }
      return {
        ...current,
        confirmed: { address: payload.a, at: now },
        pending: null,
        unsubscribed: current.unsubscribed?.address === payload.a ? null : current.unsubscribed,
        updated_at: now,
      };
    });
    return { user_id: payload.u, address: payload.a };
  }

  /** The one-click unsubscribe token of an account's address (carried by every signal mail). */
  unsubscribeToken(userId: number, address: string): string {
    return signEmailToken(this.key, { p: 'unsubscribe', u: userId, a: address });
  }

  /**
   * Stops signal mails to the token's address: it is no longer the account's confirmed address.
   * Idempotent (a second click, or an address already replaced, changes nothing and says so).
   */
  async unsubscribe(token: string, now = this.clock.now()): Promise<{ user_id: number; address: string; changed: boolean }> {
    const payload = readEmailToken(this.key, token);
    if (!payload || payload.p !== 'unsubscribe') throw new BadRequestError(NOT_VALID);
    let changed = false;
    const existing = await this.records.get(String(payload.u));
    if (!existing) throw new NotFoundError('no e-mail address is registered for this link’s account: nothing to unsubscribe');
    await this.records.mutate(String(payload.u), (current) => {
      changed = current?.confirmed?.address === payload.a;
      if (!current || !changed) return current ?? existing.value;
      return { ...current, confirmed: null, unsubscribed: { address: payload.a, at: now }, updated_at: now };
    });
    return { user_id: payload.u, address: payload.a, changed };
  }

  /** The account's address as the owner sees it. */
  async status(
    userId: number,
    dailyCap: number,
    availability: { available: boolean; reason: string | null },
    now = this.clock.now(),
  ): Promise<EmailStatus> {
    const [record, sentToday] = await Promise.all([this.record(userId), this.sentToday(userId, 'signal', now)]);
    const pending = record?.pending && record.pending.expires_at > now ? record.pending : null;
    const status: EmailStatus['status'] = record?.confirmed
      ? 'confirmed'
      : pending
        ? 'pending'
        : record?.unsubscribed
          ? 'unsubscribed'
          : 'none';
    return {
      available: availability.available,
      unavailable_reason: availability.reason,
      status,
      address: record?.confirmed?.address ?? pending?.address ?? record?.unsubscribed?.address ?? null,
      pending_address: pending?.address ?? null,
      pending_expires_at: pending ? isoFromMs(pending.expires_at) : null,
      signals_sent_today: sentToday,
      daily_cap: dailyCap,
    };
  }

  private sentKey(userId: number, kind: SentKind, now: number): string {
    return `${userId}.${kind}.${utcDayKey(now)}`;
  }

  async sentToday(userId: number, kind: SentKind, now = this.clock.now()): Promise<number> {
    return (await this.sent.get(this.sentKey(userId, kind, now)))?.value.value ?? 0;
  }

  /** Counts one mail of the kind, or calls `over` (which throws) when the day's `limit` is reached. */
  private async take(userId: number, kind: SentKind, limit: number, now: number, over: (limit: number) => never): Promise<number> {
    const { value } = await this.sent.mutate(this.sentKey(userId, kind, now), (current) => {
      const used = current?.value ?? 0;
      if (used >= limit) over(limit);
      return { value: used + 1 };
    });
    return value.value;
  }

  /**
   * Counts one signal mail against the account's daily cap: false (nothing counted) when the cap
   * is reached. A mail that then fails to go is given back with `releaseSignal`.
   */
  async takeSignal(userId: number, limit: number, now = this.clock.now()): Promise<boolean> {
    try {
      await this.take(userId, 'signal', limit, now, () => {
        throw new CapReached();
      });
      return true;
    } catch (err) {
      if (err instanceof CapReached) return false;
      throw err;
    }
  }

  /** Gives back a signal mail counted at `countedAt` that was not sent. */
  async releaseSignal(userId: number, countedAt: number): Promise<void> {
    await this.sent.mutate(this.sentKey(userId, 'signal', countedAt), (current) => ({ value: Math.max(0, (current?.value ?? 0) - 1) }));
  }
}

class CapReached extends Error {}
