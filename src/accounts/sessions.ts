import type { JsonKv } from '../bus/index.ts';
import type { Logger } from '../log.ts';
import type { SessionRecord } from '../../schemas/account-records.ts';
import { hashSecret, randomToken } from './api-keys.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

/** How long a browser session lasts from its creation (the cookie's Max-Age says the same). */
export const SESSION_MAX_AGE_MS = 30 * 24 * 3600 * 1000;
/** `last_seen_at` is written at most this often per session: one KV write per session per few minutes, not per request. */
export const LAST_SEEN_EVERY_MS = 5 * 60 * 1000;

/** A live session as its owner sees it. `id` is a prefix of the token's hash: it names the session, it cannot act as it. */
export interface SessionInfo {
  id: string;
  user_id: number;
  created_at: number;
  last_seen_at: number;
  /** When the person proved who they are (sign-in, claim); a session renewed by a rotation keeps its predecessor's. */
  signed_in_at: number;
  device: string;
}

/**
 * `<user_id>.<43 random>`: the user id lets the session live under its owner's key in KV, so the
 * owner's sessions are listed by one subject filter. Tokens of before (48 random characters, no
 * owner) still work until they end; they are not listed, and "revoke all" ends them by time.
 */
const TOKEN = /^(\d{1,12})\.([A-Za-z0-9]{43})$/;
const LEGACY_TOKEN = /^[A-Za-z0-9]{48}$/;
const SESSION_ID = /^[0-9a-f]{16}$/;

function storeKey(token: string): string | null {
  const owned = TOKEN.exec(token);
  if (owned) return `${owned[1]}.${hashSecret(token)}`;
  return LEGACY_TOKEN.test(token) ? hashSecret(token) : null;
}

const idOf = (key: string): string => key.slice(key.indexOf('.') + 1).slice(0, 16);

/**
 * The web app's browser sessions: only a hash of each token is kept. A session is live while it
 * is younger than SESSION_MAX_AGE_MS and was started at or after its account's `validFrom` (the
 * current key's issue, the last "revoke all" or password change); a deleted one is over at once.
 */
export class Sessions {
  private readonly clock: Clock;

  constructor(
    private readonly kv: JsonKv<typeof SessionRecord>,
    /** From when the user's sessions count (null: no such user, no session counts). */
    private readonly validFrom: (userId: number) => Promise<number | null>,
    private readonly log: Logger,
    private readonly lastSeenEveryMs = LAST_SEEN_EVERY_MS,
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? liveClock;
  }

  /** Starts a session for the user; returns its token (only its hash is stored). */
  async create(userId: number, device = 'Unknown device', signedInAt?: number): Promise<string> {
    const token = `${userId}.${randomToken(43)}`;
    // Never stamped before the account's cut-off, or a clock step back would make it born dead.
    const createdAt = Math.max(this.clock.now(), (await this.validFrom(userId)) ?? 0);
    await this.kv.put(storeKey(token)!, {
      user_id: userId,
      created_at: createdAt,
      last_seen_at: createdAt,
      device,
      signed_in_at: signedInAt ?? createdAt,
    });
    return token;
  }

  /** The live session of a token, or null; notes its use (at most every few minutes). */
  async resolve(token: string, now = this.clock.now()): Promise<SessionInfo | null> {
    const key = storeKey(token);
    if (!key) return null;
    const entry = await this.kv.get(key);
    if (!entry || !(await this.live(entry.value, now))) return null;
    const session = entry.value;
    if (now - (session.last_seen_at ?? session.created_at) >= this.lastSeenEveryMs) {
      // Compare-and-set: a session revoked meanwhile is not brought back by this write.
      await this.kv.update(key, { ...session, last_seen_at: now }, entry.revision).catch((err: unknown) => {
        this.log.debug({ err }, 'session last-seen not recorded (changed meanwhile)');
      });
    }
    return info(key, session, now);
  }

  /** Ends one session by its token (logout). Unknown tokens are ignored. */
  async end(token: string): Promise<void> {
    const key = storeKey(token);
    if (key) await this.kv.delete(key);
  }

  /** The user's live sessions, most recently used first. */
  async list(userId: number, now = this.clock.now()): Promise<SessionInfo[]> {
    const out: SessionInfo[] = [];
    for (const key of await this.kv.keys(`${userId}.*`)) {
      const entry = await this.kv.get(key);
      if (entry && entry.value.user_id === userId && (await this.live(entry.value, now))) out.push(info(key, entry.value, now));
    }
    return out.sort((a, b) => b.last_seen_at - a.last_seen_at || b.created_at - a.created_at);
  }

  /** Ends the user's session of this id; false when the user has none such. */
  async revoke(userId: number, sessionId: string): Promise<boolean> {
    if (!SESSION_ID.test(sessionId)) return false;
    const key = (await this.kv.keys(`${userId}.*`)).find((k) => idOf(k) === sessionId);
    if (!key || !(await this.kv.get(key))) return false;
    await this.kv.delete(key);
    this.log.info({ user_id: userId, session: sessionId }, 'session revoked');
    return true;
  }

  /**
   * Deletes every listed session of the user. The caller also moves the account's `validFrom`
   * past now, which ends the unlisted ones (older tokens) and any started while this runs.
   */
  async deleteAll(userId: number): Promise<number> {
    const keys = await this.kv.keys(`${userId}.*`);
    await Promise.all(keys.map((k) => this.kv.delete(k)));
    return keys.length;
  }

  /** The session id of a token (to mark "this browser" in a list), or null for a malformed one. */
  static idOfToken(token: string): string | null {
    const key = storeKey(token);
    return key ? idOf(key) : null;
  }

  private async live(session: SessionRecord, now: number): Promise<boolean> {
    if (now - session.created_at > SESSION_MAX_AGE_MS) return false;
    const from = await this.validFrom(session.user_id);
    return from !== null && session.created_at >= from;
  }
}

function info(key: string, session: SessionRecord, now: number): SessionInfo {
  return {
    id: idOf(key),
    user_id: session.user_id,
    created_at: session.created_at,
    last_seen_at: Math.min(now, Math.max(session.last_seen_at ?? session.created_at, session.created_at)),
    signed_in_at: session.signed_in_at ?? session.created_at,
    device: session.device ?? 'Unknown device',
  };
}
