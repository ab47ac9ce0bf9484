import { openBlobStore, openBucket, type BlobStore, type Bus, type JsonKv } from '../bus/index.ts';
import { userNameKey } from '../lib/user-keys.ts';
import type { CommunityEntryRecord, ForkRecord } from '../../schemas/community.ts';
import { Buckets, ObjectStores } from '../../schemas/messages.ts';
import type { CommunityIndex } from './community-index.ts';

export interface CommunityBuckets {
  entries: JsonKv<typeof Buckets.community.schema>;
  live: JsonKv<typeof Buckets.trackRecords.schema>;
  shares: JsonKv<typeof Buckets.communityShares.schema>;
  forks: JsonKv<typeof Buckets.forks.schema>;
  counters: JsonKv<typeof Buckets.counters.schema>;
}

/** The KV key of a user's fork of an entry. */
const forkKey = (userId: number, entryId: number): string => `${userId}.${entryId}`;

/** The KV key naming one trained artifact of one model: sharing it again finds the same entry. */
export const shareKey = (userId: number, stem: string, artifact: string): string =>
  `${userNameKey(userId, stem)}.${Buffer.from(artifact, 'utf8').toString('hex')}`;

/**
 * Community state in NATS: entries (frozen, written once by create), the share claims that make
 * sharing idempotent, forks, and the frozen files (code, ONNX) in object stores. Every write that
 * must happen once is a KV create, so concurrent writers in any number of processes agree.
 */
export class CommunityStore {
  constructor(
    readonly kv: CommunityBuckets,
    private readonly files: BlobStore,
    private readonly forkFiles: BlobStore,
  ) {}

  static async open(bus: Bus, replicas = 1): Promise<CommunityStore> {
    const [entries, live, shares, forks, counters, files, forkFiles] = await Promise.all([
      openBucket(bus, Buckets.community, replicas),
      openBucket(bus, Buckets.trackRecords, replicas),
      openBucket(bus, Buckets.communityShares, replicas),
      openBucket(bus, Buckets.forks, replicas),
      openBucket(bus, Buckets.counters, replicas),
      openBlobStore(bus, ObjectStores.community, replicas),
      openBlobStore(bus, ObjectStores.forks, replicas),
    ]);
    return new CommunityStore({ entries, live, shares, forks, counters }, files, forkFiles);
  }

  /** The next community_id: a monotonic counter, never handed out twice. */
  async nextId(): Promise<number> {
    const { value } = await this.kv.counters.mutate('community_id', (c) => ({ value: (c?.value ?? 0) + 1 }));
    return value.value;
  }

  async entry(id: number): Promise<CommunityEntryRecord | null> {
    return (await this.kv.entries.get(String(id)))?.value ?? null;
  }

  /** Writes the entry once; false when an entry of that id exists already. */
  async createEntry(record: CommunityEntryRecord): Promise<boolean> {
    return (await this.kv.entries.create(String(record.community_id), record)) !== false;
  }

  /** The entry an artifact was claimed for, or null. */
  async shareClaim(key: string): Promise<number | null> {
    return (await this.kv.shares.get(key))?.value.community_id ?? null;
  }

  /** Claims the artifact for `id`; returns the id that holds it (ours, or the first claimant's). */
  async claimShare(key: string, id: number): Promise<number> {
    if ((await this.kv.shares.create(key, { community_id: id })) !== false) return id;
    const held = await this.shareClaim(key);
    if (held === null) throw new Error(`share claim ${key} exists but cannot be read`);
    return held;
  }

  async freezeFiles(id: number, code: string, onnx: Uint8Array): Promise<void> {
    await this.files.put(`${id}/strategy.py`, Buffer.from(code, 'utf8'));
    await this.files.put(`${id}/model.onnx`, onnx);
  }

  /** The frozen strategy code of an entry. */
  async entryCode(id: number): Promise<string> {
    const data = await this.files.get(`${id}/strategy.py`);
    if (!data) throw new Error(`community entry ${id}: strategy.py is missing from the object store`);
    return Buffer.from(data).toString('utf8');
  }

  async fork(userId: number, entryId: number): Promise<ForkRecord | null> {
    return (await this.kv.forks.get(forkKey(userId, entryId)))?.value ?? null;
  }

  /** Stores the copy of the code, then the fork record (once); false when the user had forked it already. */
  async createFork(record: ForkRecord, code: string): Promise<boolean> {
    await this.forkFiles.put(`${record.user_id}/${record.community_id}/strategy.py`, Buffer.from(code, 'utf8'));
    return (await this.kv.forks.create(forkKey(record.user_id, record.community_id), record)) !== false;
  }

  /** Records that a fork made while its account was new counts now (the account, established, forked again). */
  async markForkCounted(record: ForkRecord): Promise<void> {
    await this.kv.forks.put(forkKey(record.user_id, record.community_id), { ...record, counts: true });
  }

  /** The user's copy of an entry's code (their fork). */
  async forkCode(userId: number, entryId: number): Promise<string | null> {
    const data = await this.forkFiles.get(`${userId}/${entryId}/strategy.py`);
    return data ? Buffer.from(data).toString('utf8') : null;
  }

  /**
   * Keeps `index` current with every entry, live track record and fork, in any process. Resolves
   * once what existed when it began is in the index.
   */
  async follow(index: CommunityIndex): Promise<{ stop(): void }> {
    const watches = await Promise.all([
      this.kv.entries.watch((key, value) => (value ? index.putEntry(value) : index.removeEntry(Number(key)))),
      this.kv.live.watch((key, value) => index.putLive(Number(key), value)),
      this.kv.forks.watch((key, value) => {
        const [user, entry] = key.split('.').map(Number) as [number, number];
        index.putFork(user, entry, value ? (value.counts ?? true) : null);
      }),
    ]);
    await Promise.all(watches.map((w) => w.ready));
    return { stop: () => watches.forEach((w) => w.stop()) };
  }
}
