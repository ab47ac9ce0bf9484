import { Objm } from '@nats-io/obj';
import { nanos } from '@nats-io/transport-node';
import type { Bus } from './connection.ts';

/** Named blobs in a JetStream object store. */
export interface BlobStore {
  put(name: string, data: Uint8Array): Promise<void>;
  /** null when there is no such blob. */
  get(name: string): Promise<Uint8Array | null>;
  delete(name: string): Promise<void>;
}

/** Opens (creating when missing) the object store a switchboard name names (tried until the cluster answers). */
export async function openBlobStore(bus: Pick<Bus, 'js' | 'retry'>, name: string, replicas = 1, ttlMs = 0): Promise<BlobStore> {
  const store = await bus.retry.run({ op: 'open', kind: 'object store', name }, () =>
    new Objm(bus.js).create(name, { replicas, ...(ttlMs > 0 ? { ttl: nanos(ttlMs) } : {}) }),
  );
  return {
    put: async (blob, data) => void (await store.putBlob({ name: blob }, data)),
    get: (blob) => store.getBlob(blob),
    delete: async (blob) => void (await store.delete(blob)),
  };
}
