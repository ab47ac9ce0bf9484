import type { JsonKv } from '../bus/index.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { KeyRecord, UserRecord, UsernameRecord, CounterRecord } from '../../schemas/messages.ts';
import { generateApiKey, hashSecret, looksLikeApiKey, maskKey, randomToken } from './api-keys.ts';
import { randomHandle } from './handles.ts';

export interface DirectoryBuckets {
  users: JsonKv<typeof UserRecord>;
  usernames: JsonKv<typeof UsernameRecord>;
  apiKeys: JsonKv<typeof KeyRecord>;
  sessions: JsonKv<typeof KeyRecord>;
  counters: JsonKv<typeof CounterRecord>;
}

export interface NewAccount {
  user: UserRecord;
  apiKey: string;
  sessionToken: string;
}

/**
 * Users and their keys. KV is the truth; every edge process mirrors the users and key hashes in
 * memory through KV watches, so checking a key on a request costs one hash and two map lookups,
 * and a rotated key stops working everywhere as soon as the deletion propagates.
 */
export class AccountDirectory {
  private readonly usersById = new Map<number, UserRecord>();
  private readonly userIdByKeyHash = new Map<string, number>();
  private readonly watches: Array<{ stop(): void }> = [];

  constructor(
    private readonly kv: DirectoryBuckets,
    private readonly log: Logger,
  ) {}

  /** Loads the mirrors and keeps them current. Resolves once both hold everything in KV. */
  async start(): Promise<void> {
    const users = await this.kv.users.watch((key, value) => {
      if (value) this.usersById.set(value.user_id, value);
      else this.usersById.delete(Number(key));
    });
    const keys = await this.kv.apiKeys.watch((hash, value) => {
      if (value) this.userIdByKeyHash.set(hash, value.user_id);
      else this.userIdByKeyHash.delete(hash);
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
    const userId = this.userIdByKeyHash.get(hashSecret(apiKey));
    return userId === undefined ? null : (this.usersById.get(userId) ?? null);
  }

  async authenticateSession(token: string): Promise<UserRecord | null> {
    if (token.length < 20 || token.length > 100) return null;
    const session = await this.kv.sessions.get(hashSecret(token));
    return session ? this.get(session.value.user_id) : null;
  }

  get(userId: number): UserRecord | null {
    return this.usersById.get(userId) ?? null;
  }

  /** Creates a trial account. The username is reserved first, so two callers never share one. */
  async createTrial(requested: string | undefined): Promise<NewAccount> {
    const { value: counter } = await this.kv.counters.mutate('user_id', (c) => ({ value: (c?.value ?? 0) + 1 }));
    const userId = counter.value;
    const username = requested ?? (await this.reserveAutoHandle(userId));
    if (requested && (await this.kv.usernames.create(requested.toLowerCase(), { user_id: userId })) === false) {
      throw new ConflictError(`username "${requested}" is taken: choose another, or omit it to get an auto handle`);
    }
    const apiKey = generateApiKey();
    const keyHash = hashSecret(apiKey);
    const now = Date.now();
    const user: UserRecord = {
      user_id: userId,
      username,
      plan: 'free',
      is_trial: true,
      created_at: now,
      key_hash: keyHash,
      key_hint: maskKey(apiKey),
    };
    await this.kv.users.put(String(userId), user);
    await this.kv.apiKeys.put(keyHash, { user_id: userId, created_at: now });
    this.usersById.set(userId, user);
    this.userIdByKeyHash.set(keyHash, userId);
    const sessionToken = randomToken(48);
    await this.kv.sessions.put(hashSecret(sessionToken), { user_id: userId, created_at: now });
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

  /** Issues a new key for the user; the old one stops working at once. */
  async rotateKey(userId: number): Promise<{ user: UserRecord; apiKey: string }> {
    const apiKey = generateApiKey();
    const keyHash = hashSecret(apiKey);
    const now = Date.now();
    await this.kv.apiKeys.put(keyHash, { user_id: userId, created_at: now });
    let oldHash = '';
    const { value: user } = await this.kv.users.mutate(String(userId), (current) => {
      if (!current) throw new NotFoundError(`user ${userId} does not exist`);
      oldHash = current.key_hash;
      return { ...current, key_hash: keyHash, key_hint: maskKey(apiKey) };
    });
    this.userIdByKeyHash.delete(oldHash);
    this.userIdByKeyHash.set(keyHash, userId);
    this.usersById.set(userId, user);
    await this.kv.apiKeys.delete(oldHash);
    this.log.info({ user_id: userId }, 'api key rotated');
    return { user, apiKey };
  }
}
