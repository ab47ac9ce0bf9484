import { createHash } from 'node:crypto';
import { Objm, type ObjectStore } from '@nats-io/obj';
import { nanos } from '@nats-io/transport-node';
import type { Bus } from './connection.ts';
import { createRacing } from './provision.ts';
import { nextBySubject } from './stream-reads.ts';

/** Named blobs in a JetStream object store. */
export interface BlobStore {
  put(name: string, data: Uint8Array): Promise<void>;
  /** null when there is no such blob. */
  get(name: string): Promise<Uint8Array | null>;
  delete(name: string): Promise<void>;
}

/** Opens (creating when missing) the object store a switchboard name names (tried until the cluster answers). */
export async function openBlobStore(bus: Pick<Bus, 'js' | 'jsm' | 'retry'>, name: string, replicas = 1, ttlMs = 0): Promise<BlobStore> {
  const store = await bus.retry.run({ op: 'open', kind: 'object store', name }, () =>
    createRacing(bus, `OBJ_${name}`, () => new Objm(bus.js).create(name, { replicas, ...(ttlMs > 0 ? { ttl: nanos(ttlMs) } : {}) })),
  );
  return {
    put: async (blob, data) => void (await store.putBlob({ name: blob }, data)),
    get: (blob) => readBlob(bus, store, name, blob),
    delete: async (blob) => void (await store.delete(blob)),
  };
}

const SHA256 = 'SHA-256=';

/**
 * Reads a blob chunk by chunk by sequence, with no consumer. The client's own read creates a
 * consumer on the server for every get (and nats-server writes and deletes its files): thousands
 * of model actors starting together read thousands of blobs, and that churn took most of the
 * server's time. The digest is checked as the client checks it; a link, or a digest in a form
 * other than base64, goes through the client's read.
 */
async function readBlob(bus: Pick<Bus, 'jsm'>, store: ObjectStore, bucket: string, blob: string): Promise<Uint8Array | null> {
  const info = await store.info(blob);
  if (!info || info.deleted) return null;
  const digest = info.digest.startsWith(SHA256) ? info.digest.slice(SHA256.length) : '';
  if (info.options?.link || !/^[A-Za-z0-9+/_-]+=*$/.test(digest)) return store.getBlob(blob);
  const subject = `$O.${bucket}.C.${info.nuid}`;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let seq = 1; chunks.length < info.chunks;) {
    const chunk = await nextBySubject(bus, `OBJ_${bucket}`, subject, seq);
    if (!chunk) break;
    chunks.push(chunk.data);
    size += chunk.data.length;
    seq = chunk.seq + 1;
  }
  // Its own memory (not a slice of Node's shared pool): callers may hand its buffer on.
  const data = new Uint8Array(size);
  chunks.reduce((at, chunk) => (data.set(chunk, at), at + chunk.length), 0);
  const computed = createHash('sha256').update(data).digest();
  if (size !== info.size || !computed.equals(Buffer.from(digest, 'base64'))) {
    throw new Error(`object ${bucket}/${blob} is corrupt: ${size} bytes of ${info.size}, or its digest does not match`);
  }
  return data;
}
