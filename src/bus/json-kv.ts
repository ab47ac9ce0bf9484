import { Kvm, type KV, type KvEntry, type KvWatchEntry } from '@nats-io/kv';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { z } from 'zod';
import type { BucketSpec } from '../../schemas/messages.ts';
import type { Bus } from './connection.ts';
import { createRacing } from './provision.ts';
import { isTransientBusError } from './transient.ts';
import { followStream } from './consumers.ts';
import type { StreamBatcher } from './stream-batch.ts';
import type { BusRetry } from './retry.ts';

type KvWatch = Awaited<ReturnType<KV['watch']>>;

export interface Versioned<T> {
  value: T;
  revision: number;
}

/** Thrown inside change() to leave a record as it is. */
const UNCHANGED = new Error('unchanged');

/** Raised by `update` when another writer changed the key first. */
export class StaleRevisionError extends Error {
  override name = 'StaleRevisionError';
}

const WRONG_LAST_SEQUENCE = 10071;
const isStale = (err: unknown): boolean => {
  const e = err as { code?: number; message?: string };
  return e?.code === WRONG_LAST_SEQUENCE || /wrong last sequence|key exists/i.test(e?.message ?? '');
};

/** Tries of a conditional write whose answer an outage cut off (each after reading back whether it landed). */
const WRITE_TRIES = 8;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A KV bucket holding JSON values of one schema. Values are parsed on the way in and out,
 * so a bucket never hands back something its schema does not allow.
 */
export class JsonKv<S extends z.ZodType> {
  constructor(
    readonly kv: KV,
    readonly spec: BucketSpec<S>,
    private readonly jsm: JetStreamManager,
    private readonly js: JetStreamClient,
    private readonly retry: BusRetry,
    /** Writes (put, update) go out with the batcher's others of their event-loop turn (openBucket's `batcher`). */
    private readonly batcher?: StreamBatcher,
  ) {}

  /** The stream subject a key's values are stored under (what the KV client writes to). */
  private subjectOf(key: string): string {
    return `$KV.${this.spec.name}.${key}`;
  }

  private decode(entry: KvEntry): z.infer<S> {
    return this.spec.schema.parse(entry.json());
  }

  private encode(value: z.infer<S>): string {
    return JSON.stringify(this.spec.schema.parse(value));
  }

  async get(key: string): Promise<Versioned<z.infer<S>> | null> {
    const entry = await this.kv.get(key);
    if (!entry || entry.operation !== 'PUT') return null;
    return { value: this.decode(entry), revision: entry.revision };
  }

  /** `parse: false`: a value trusted code built (as `update`'s), written without the schema's check. */
  async put(key: string, value: z.infer<S>, { parse = true }: { parse?: boolean } = {}): Promise<number> {
    const encoded = parse ? this.encode(value) : JSON.stringify(value);
    return this.batcher ? this.batcher.publish(this.subjectOf(key), encoded) : this.kv.put(key, encoded);
  }

  /** Creates the key; false when it exists already. */
  async create(key: string, value: z.infer<S>): Promise<number | false> {
    const encoded = this.encode(value);
    const written = await this.conditional(key, encoded, null, () => this.kv.create(key, encoded));
    return written === 'stale' ? false : written;
  }

  /**
   * Writes only if the key is still at `revision`; otherwise throws StaleRevisionError.
   * `parse: false` writes a value the caller's typed code built from values this bucket handed back
   * without parsing it again (once per webhook, the parse was 2.5 KB allocated per write); reads
   * still parse what they get.
   */
  async update(key: string, value: z.infer<S>, revision: number, { parse = true }: { parse?: boolean } = {}): Promise<number> {
    const encoded = parse ? this.encode(value) : JSON.stringify(value);
    const write = this.batcher
      ? () => this.batcher!.publish(this.subjectOf(key), encoded, undefined, { 'Nats-Expected-Last-Subject-Sequence': String(revision) })
      : () => this.kv.update(key, encoded, revision);
    const written = await this.conditional(key, encoded, revision, write);
    if (written === 'stale') throw new StaleRevisionError(`${this.spec.name}/${key} changed under us`);
    return written;
  }

  /**
   * A compare-and-set write (`expected`: the revision it replaces, null = the key is absent) that
   * survives an outage in flight: when the answer is lost (a NATS node died, a reconnect), the
   * write may or may not have landed, so the key is read back first — our value at a new revision
   * means it landed (done, never applied twice: no credit charged twice), the old revision means
   * it did not (written again), anything else means another writer won ('stale').
   */
  private async conditional(
    key: string,
    encoded: string,
    expected: number | null,
    write: () => Promise<number>,
  ): Promise<number | 'stale'> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write();
      } catch (err) {
        if (isStale(err)) return 'stale';
        if (!isTransientBusError(err) || attempt >= WRITE_TRIES) throw err;
      }
      for (let read = 1; ; read++) {
        await sleep(Math.min(2_000, 50 * 2 ** Math.min(attempt + read, 10)));
        let entry: KvEntry | null;
        try {
          entry = await this.kv.get(key);
        } catch (err) {
          if (!isTransientBusError(err) || read >= WRITE_TRIES) throw err;
          continue;
        }
        const current = entry && entry.operation === 'PUT' ? entry : null;
        const revision = current?.revision ?? null;
        if (current && revision !== expected && current.string() === encoded) return current.revision;
        if (expected === null ? current !== null : revision !== expected) return 'stale';
        break; // not landed: written again
      }
    }
  }

  async delete(key: string): Promise<void> {
    await this.kv.delete(key);
  }

  /**
   * Keys matching a subject-style filter (`7.>`), in no particular order; a key deleted lately may
   * be among them (its `get` is null). One stream-info request, not the client's `kv.keys()`: that
   * runs an ordered consumer which, under concurrent writes to the same keys, can wait for its
   * 30-second idle heartbeat before it ends.
   */
  async keys(filter = '>'): Promise<string[]> {
    const prefix = `$KV.${this.spec.name}.`;
    const info = await this.jsm.streams.info(`KV_${this.spec.name}`, { subjects_filter: prefix + filter });
    return Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(prefix.length));
  }

  /**
   * Read-modify-write under compare-and-set, retried until no other writer interferes.
   * `change` sees the current value (null when absent) and returns the new one; it may throw
   * to abort (e.g. not enough credits), and then nothing is written.
   * `known`, the key as the caller last saw it, is tried first without a read: the write lands
   * only if the key is still at that revision. A stale one, or one `change` refuses, costs a
   * read and the change is decided again on what is stored.
   */
  async mutate<R extends z.infer<S>>(
    key: string,
    change: (current: z.infer<S> | null, revision: number | null) => R,
    known?: Versioned<z.infer<S>>,
  ): Promise<{ value: R; revision: number }> {
    for (let attempt = 0; ; attempt++) {
      const remembered = attempt === 0 ? known : undefined;
      const current = remembered ?? (await this.getRetrying(key));
      let next: R;
      try {
        next = change(current?.value ?? null, current?.revision ?? null);
      } catch (err) {
        if (remembered) continue;
        throw err;
      }
      const revision = current
        ? await this.update(key, next, current.revision).catch((err: unknown) => {
            if (err instanceof StaleRevisionError) return false as const;
            throw err;
          })
        : await this.create(key, next);
      if (revision !== false) return { value: next, revision };
      // Back off a little under contention so competing writers interleave rather than collide.
      if (attempt > 2) await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, attempt * 2)));
    }
  }

  /**
   * mutate() of an existing record where `change` may decline: it returns null to write nothing,
   * and then null is returned. A missing key throws `<what> is gone`.
   */
  async change<R extends z.infer<S>>(key: string, what: string, change: (current: z.infer<S>) => R | null): Promise<R | null> {
    try {
      const { value } = await this.mutate(key, (current) => {
        if (!current) throw new Error(`${what} is gone`);
        const next = change(current);
        if (next === null) throw UNCHANGED;
        return next;
      });
      return value;
    } catch (err) {
      if (err === UNCHANGED) return null;
      throw err;
    }
  }

  /** get(), tried again while NATS is away for a moment (a node died, its leader being elected): a read is safe to repeat. */
  private async getRetrying(key: string): Promise<Versioned<z.infer<S>> | null> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.get(key);
      } catch (err) {
        if (!isTransientBusError(err) || attempt >= WRITE_TRIES) throw err;
        await sleep(Math.min(2_000, 50 * 2 ** attempt));
      }
    }
  }

  /**
   * Every revision the bucket still keeps from `from` on (revision = stream sequence), in order, then
   * each new one as it is written, until `close`: a key's superseded revisions are seen as long as
   * the bucket's history keeps them. A delete or purge comes as a null value.
   */
  async revisions(from: number): Promise<{
    [Symbol.asyncIterator](): AsyncIterator<{ key: string; revision: number; value: z.infer<S> | null }>;
    close(): Promise<void>;
  }> {
    const prefix = `$KV.${this.spec.name}.`;
    const stream = { name: `KV_${this.spec.name}`, subjects: [`${prefix}>`], maxMessages: -1, maxAgeSeconds: 0 };
    const followed = await followStream({ js: this.js, retry: this.retry }, stream, `${prefix}>`, from);
    const text = new TextDecoder();
    const decode = (data: Uint8Array) => this.spec.schema.parse(JSON.parse(text.decode(data)));
    return {
      async *[Symbol.asyncIterator]() {
        for await (const msg of followed) {
          const op = msg.header('KV-Operation');
          yield {
            key: msg.subject.slice(prefix.length),
            revision: msg.seq,
            value: op === 'DEL' || op === 'PURGE' ? null : decode(msg.data),
          };
        }
      },
      close: () => followed.close(),
    };
  }

  /** The newest revision written to the bucket (any key), 0 when empty. */
  async lastRevision(): Promise<number> {
    return (await this.jsm.streams.info(`KV_${this.spec.name}`)).state.last_seq;
  }

  /**
   * Every current key and value, then each change as it happens. `ready` resolves once the
   * values that existed when the watch began have all been delivered.
   */
  async watch(onChange: (key: string, value: z.infer<S> | null) => void): Promise<{ stop(): void; ready: Promise<void> }> {
    let markReady!: () => void;
    const ready = new Promise<void>((resolve) => (markReady = resolve));
    // Its ordered consumer is created here: the request that times out while a node is down.
    const first = await this.retry.run({ op: 'watch', kind: 'kv', name: this.spec.name }, () => this.kv.watch());
    if ((await this.retry.run({ op: 'status', kind: 'kv', name: this.spec.name }, () => this.kv.status())).values === 0) markReady();
    const following = this.follow(
      first,
      () => this.kv.watch(),
      (entry) => {
        onChange(entry.key, entry.operation === 'PUT' ? this.decode(entry) : null);
        if (entry.isUpdate || entry.delta === 0) markReady();
      },
    );
    return { stop: following.stop, ready };
  }

  /** One key: its current value (when it has one), then each change, until `stop`. */
  async watchKey(key: string, onChange: (value: z.infer<S> | null) => void): Promise<{ stop(): void }> {
    const first = await this.retry.run({ op: `watch key ${key}`, kind: 'kv', name: this.spec.name }, () => this.kv.watch({ key }));
    return this.follow(
      first,
      () => this.kv.watch({ key }),
      (entry) => onChange(entry.operation === 'PUT' ? this.decode(entry) : null),
    );
  }

  /**
   * Feeds a watch's entries to `each` until stopped. A watch the server ends or breaks (an outage,
   * a restart) is opened again after a pause, its current values delivered again: a follower
   * never silently stops following, and nothing is left to reject unhandled.
   */
  private follow(first: KvWatch, reopen: () => Promise<KvWatch>, each: (entry: KvWatchEntry) => void): { stop(): void } {
    let iter = first;
    let stopped = false;
    void (async () => {
      for (;;) {
        try {
          for await (const entry of iter) each(entry);
        } catch {
          // broken by an outage: opened again below
        }
        if (stopped) return;
        await new Promise((r) => setTimeout(r, 500));
        if (stopped) return;
        try {
          iter = await reopen();
        } catch {
          // still down: the loop tries again
        }
      }
    })();
    return {
      stop: () => {
        stopped = true;
        iter.stop();
      },
    };
  }
}

/**
 * Opens (creating when missing) the bucket a switchboard spec names. A replicated bucket is read
 * through its stream leader: a direct get may be answered by any replica, one that is behind — a
 * value it has not received yet (a job a trainer pulled before its record reached that replica,
 * and dropped as gone), or an older one it already dropped by the bucket's TTL (a live host's
 * heartbeat read as expired). With one replica that replica is the leader, and a direct get is as
 * current and cheaper. `directReads` opts a bucket's reads out where a stale answer only costs a
 * retry, for read load the leader should not carry alone.
 */
export async function openBucket<S extends z.ZodType>(
  bus: Bus,
  spec: BucketSpec<S>,
  replicas = 1,
  {
    directReads = replicas === 1,
    batcher,
  }: {
    directReads?: boolean;
    /** Puts and updates go out in batches (many writers of one process on the same turn: a bar's actors, deliveries). */
    batcher?: StreamBatcher;
  } = {},
): Promise<JsonKv<S>> {
  const history = spec.history ?? 1;
  const kv = await bus.retry.run({ op: 'open', kind: 'kv', name: spec.name }, async () => {
    const kv = await createRacing(bus, `KV_${spec.name}`, () =>
      new Kvm(bus.js).create(spec.name, {
        history,
        replicas,
        ...(spec.ttlSeconds > 0 ? { ttl: spec.ttlSeconds * 1000 } : {}),
        // Chosen by this client: a bucket made with direct gets allowed is still read through the leader here.
        allow_direct: directReads,
      }),
    );
    // A bucket made before its spec kept more revisions is opened as it is: raised here, since a
    // reader of its history counts on them (never lowered: that would drop what a reader still needs).
    if (history > 1) {
      const stream = `KV_${spec.name}`;
      const { config } = await bus.jsm.streams.info(stream);
      if (config.max_msgs_per_subject < history) await bus.jsm.streams.update(stream, { ...config, max_msgs_per_subject: history });
    }
    return kv;
  });
  return new JsonKv(kv, spec, bus.jsm, bus.js, bus.retry, batcher);
}
