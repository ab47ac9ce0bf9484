import type { JsonKv } from '../bus/index.ts';
import { ConflictError, NotFoundError, UsernameTakenError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { CounterRecord } from '../../schemas/messages.ts';
import type { KeyRecord, UserRecord, UsernameRecord, SessionRecord } from '../../schemas/account-records.ts';
import { generateApiKey, hashSecret, looksLikeApiKey, maskKey } from './api-keys.ts';
import { randomHandle } from './handles.ts';
import { Sessions, type SessionInfo } from './sessions.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

export interface DirectoryBuckets {
  users: JsonKv<typeof UserRecord>;
  usernames: JsonKv<typeof UsernameRecord>;
  apiKeys: JsonKv<typeof KeyRecord>;
  sessions: JsonKv<typeof SessionRecord>;
  counters: JsonKv<typeof CounterRecord>;
}

export interface NewAccount {
  user: UserRecord;
  apiKey: string;
  sessionToken: string;
}

/** A user id and a handle held for an account not created yet (see `reserveTrial`). */
export interface TrialReservation {
  userId: number;
  username: string;
  /** Gives the handle back (the account will not be created). */
  release(): Promise<void>;
}

/**
 * Users and their keys. KV is the truth; every edge process mirrors the users and key hashes in
 * memory through KV watches, so checking a key on a request costs one hash and two map lookups,
 * and a rotated key stops working everywhere as soon as the deletion propagates.
 */
export class AccountDirectory {
  private readonly usersById = new Map<number, UserRecord>();
  private readonly keysByHash = new Map<string, KeyRecord>();
  private readonly watches: Array<{ stop(): void }> = [];
  /** The browser sessions; one lives no longer than the key it was started under (see `sessionsValidFrom`). */
  readonly sessions: Sessions;

  private readonly clock: Clock;

  constructor(
    private readonly kv: DirectoryBuckets,
    private readonly log: Logger,
    /** Told when another process changes a user's plan or trial state (`signalforge admin plan`, a claim elsewhere). */
    private readonly onPlanChange: (user: UserRecord) => void = () => {},
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? liveClock;
    this.sessions = new Sessions(kv.sessions, (userId) => this.sessionsValidFrom(userId), log, undefined, options);
  }

  /** Loads the mirrors and keeps them current. Resolves once both hold everything in KV. */
  async start(): Promise<void> {
    const users = await this.kv.users.watch((key, value) => {
      if (!value) {
        this.usersById.delete(Number(key));
        return;
      }
      // Changes of this process are mirrored before their echo arrives, and the first load has nothing before.
      const before = this.usersById.get(value.user_id);
      this.usersById.set(value.user_id, value);
      if (before && (before.plan !== value.plan || before.is_trial !== value.is_trial)) this.onPlanChange(value);
    });
    const keys = await this.kv.apiKeys.watch((hash, value) => {
      if (value) this.keysByHash.set(hash, value);
      else this.keysByHash.delete(hash);
    });
    this.watches.push(users, keys);
    await Promise.all([users.ready, keys.ready]);
    this.log.info({ users: this.usersById.size }, 'account directory loaded');
  }

  stop(): void {
    for (const watch of this.watches) watch.stop();
  }

  /** The owner of an API key, or null. Synchronous: no I/O on the request path. */
  authenticate(apiKey: string): UserRecord | null {
    if (!looksLikeApiKey(apiKey)) return null;
    const key = this.keysByHash.get(hashSecret(apiKey));
    return key === undefined ? null : (this.usersById.get(key.user_id) ?? null);
  }

  /** The owner of a browser session, or null (see `resolveSession`). */
  async authenticateSession(token: string, now = this.clock.now()): Promise<UserRecord | null> {
    return (await this.resolveSession(token, now))?.user ?? null;
  }

  /**
   * A browser session and its owner, or null. A session ends with its user's key: one created
   * before the current key (a rotation since), before a "revoke all" or a password change, or
   * older than SESSION_MAX_AGE_MS is dead.
   */
  async resolveSession(token: string, now = this.clock.now()): Promise<{ user: UserRecord; session: SessionInfo } | null> {
    if (token.length < 20 || token.length > 100) return null;
    const session = await this.sessions.resolve(token, now);
    const user = session ? this.get(session.user_id) : null;
    return session && user ? { user, session } : null;
  }

  /** From when the user's sessions count: the current key's issue, or a later cut-off; null for no such user. */
  private async sessionsValidFrom(userId: number): Promise<number | null> {
    const user = this.get(userId);
    if (!user) return null;
    const keyCreatedAt = await this.keyCreatedAt(user.key_hash);
    return keyCreatedAt === null ? null : Math.max(keyCreatedAt, user.sessions_after ?? 0);
  }

  /** When the key of this hash was issued (the mirror, else KV while the mirror catches up). */
  private async keyCreatedAt(keyHash: string): Promise<number | null> {
    const mirrored = this.keysByHash.get(keyHash);
    if (mirrored) return mirrored.created_at;
    return (await this.kv.apiKeys.get(keyHash))?.value.created_at ?? null;
  }

  /** Starts a browser session for the user; returns its token (only its hash is stored). */
  createSession(userId: number, device?: string, signedInAt?: number): Promise<string> {
    return this.sessions.create(userId, device, signedInAt);
  }

  /** Ends one browser session (logout). Unknown tokens are ignored. */
  async endSession(token: string): Promise<void> {
    if (token.length < 20 || token.length > 100) return;
    await this.sessions.end(token);
  }

  /**
   * Ends every session of the user (the caller starts a new one for the browser that asked): the
   * listed ones are deleted, and the cut-off moves past now for any other (older tokens, and one
   * started while this runs).
   */
  async endAllSessions(userId: number): Promise<void> {
    // One past now: a session started in this same millisecond, before this, ends too.
    await this.updateUser(userId, (current) => ({ ...current, sessions_after: this.clock.now() + 1 }));
    const ended = await this.sessions.deleteAll(userId);
    this.log.info({ user_id: userId, ended }, 'all sessions ended');
  }

  /** The trial account becomes a claimed one (it signs in by itself now). Idempotent; returns whether this call claimed it. */
  async markClaimed(userId: number): Promise<boolean> {
    let claimed = false;
    await this.updateUser(userId, (current) => {
      claimed = current.is_trial;
      return current.is_trial ? { ...current, is_trial: false, claimed_at: this.clock.now() } : current;
    });
    if (claimed) this.log.info({ user_id: userId }, 'trial account claimed');
    return claimed;
  }

  /** The owner of a username (any case), or null. */
  async userIdOf(username: string): Promise<number | null> {
    return (await this.kv.usernames.get(username.toLowerCase()))?.value.user_id ?? null;
  }

  /** Changes the user record by compare-and-set and mirrors the result at once (the watch follows). */
  private async updateUser(userId: number, change: (current: UserRecord) => UserRecord): Promise<UserRecord> {
    const { value } = await this.kv.users.mutate(String(userId), (current) => {
      if (!current) throw new NotFoundError(`user ${userId} does not exist`);
      return change(current);
    });
    this.usersById.set(userId, value);
    return value;
  }

  get(userId: number): UserRecord | null {
    return this.usersById.get(userId) ?? null;
  }

  /**
   * Step one of a trial account: takes a user id and reserves the handle, atomically (a KV
   * create), so a taken name is refused (409) before anything else is spent — the caller takes
   * its mint slot only after this, and releases the reservation when the mint is refused.
   */
  async reserveTrial(requested: string | undefined): Promise<TrialReservation> {
    const { value: counter } = await this.kv.counters.mutate('user_id', (c) => ({ value: (c?.value ?? 0) + 1 }));
    const userId = counter.value;
    let username: string;
    if (requested) {
      if ((await this.kv.usernames.create(requested.toLowerCase(), { user_id: userId })) === false) {
        throw new UsernameTakenError(`username "${requested}" is taken: choose another, or omit it to get an auto handle`);
      }
      username = requested;
    } else {
      username = await this.reserveAutoHandle(userId);
    }
    const handleKey = username.toLowerCase();
    return {
      userId,
      username,
      release: async () => {
        const held = await this.kv.usernames.get(handleKey);
        if (held?.value.user_id === userId) await this.kv.usernames.delete(handleKey);
      },
    };
  }

  /**
   * Step two: creates the trial account of a reservation, with its key and a browser session. Given
   * a username (or none) instead, it reserves the handle first, for callers without a mint limit
   * to order around the reservation.
   */
  async createTrial(request: TrialReservation | string | undefined, device?: string): Promise<NewAccount> {
    const { userId, username } = typeof request === 'object' ? request : await this.reserveTrial(request);
    const apiKey = generateApiKey();
    const keyHash = hashSecret(apiKey);
    const now = this.clock.now();
    const user: UserRecord = {
      user_id: userId,
      username,
      plan: 'free',
      is_trial: true,
      created_at: now,
      key_hash: keyHash,
      key_hint: maskKey(apiKey),
    };
    const key = { user_id: userId, created_at: now };
    await this.kv.users.put(String(userId), user);
    await this.kv.apiKeys.put(keyHash, key);
    this.usersById.set(userId, user);
    this.keysByHash.set(keyHash, key);
    const sessionToken = await this.createSession(userId, device);
    this.log.info({ user_id: userId, username }, 'trial account created');
    return { user, apiKey, sessionToken };
  }

  private async reserveAutoHandle(userId: number): Promise<string> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const handle = randomHandle();
      if ((await this.kv.usernames.create(handle, { user_id: userId })) !== false) return handle;
    }
    throw new ConflictError('could not find a free auto handle: pass a username of your own');
  }

  /**
   * Issues a new key for the user; the old one stops working at once, and so does every browser
   * session started before (a session lives no longer than the key it was started under).
   */
  async rotateKey(userId: number): Promise<{ user: UserRecord; apiKey: string }> {
    const apiKey = generateApiKey();
    const keyHash = hashSecret(apiKey);
    // One past now: a session started in this same millisecond, before the rotation, ends too.
    const key = { user_id: userId, created_at: this.clock.now() + 1 };
    await this.kv.apiKeys.put(keyHash, key);
    let oldHash = '';
    const user = await this.updateUser(userId, (current) => {
      oldHash = current.key_hash;
      return { ...current, key_hash: keyHash, key_hint: maskKey(apiKey) };
    });
    this.keysByHash.delete(oldHash);
    this.keysByHash.set(keyHash, key);
    await this.kv.apiKeys.delete(oldHash);
    // Dead already (born before the new key); deleted so no list shows them.
    await this.sessions.deleteAll(userId);
    this.log.info({ user_id: userId }, 'api key rotated; sessions ended');
    return { user, apiKey };
  }
}
