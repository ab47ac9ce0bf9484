import { RetentionPolicy, StorageType, DiscardPolicy } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { StreamSpec } from '../../schemas/messages.ts';
import { isStreamNotFound } from './transient.ts';
import type { Bus } from './connection.ts';

/** Creates the stream a switchboard spec names, or brings an existing one to that spec (tried until the cluster answers). */
export async function ensureStream(bus: Bus, spec: StreamSpec, replicas = 1): Promise<void> {
  const config = {
    name: spec.name,
    subjects: spec.subjects,
    retention: spec.workQueue ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_msgs: spec.maxMessages,
    max_age: nanos(spec.maxAgeSeconds * 1000),
    num_replicas: replicas,
  };
  await bus.retry.run({ op: 'ensure', kind: 'stream', name: spec.name }, async () => {
    try {
      await bus.jsm.streams.info(spec.name);
      await bus.jsm.streams.update(spec.name, config);
    } catch (err) {
      if (!isStreamNotFound(err)) throw err;
      await createRacing(bus, spec.name, () => bus.jsm.streams.add(config));
    }
  });
}

/**
 * Creates stream `name` (a bucket's, an object store's). Two processes creating the same stream at
 * one moment can have the slower one refused as "subjects overlap"; if a stream of this very name
 * is there now, that was the race, thrown as "already in use" (a start-up transient: the next try
 * opens it). Any other overlap is another stream's subjects, refused for good.
 */
export async function createRacing<T>(bus: Pick<Bus, 'jsm'>, name: string, create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (err) {
    if (!/subjects overlap/i.test((err as Error)?.message ?? '')) throw err;
    const exists = await bus.jsm.streams.info(name).then(
      () => true,
      () => false,
    );
    if (exists) throw new Error(`stream ${name} already in use: another process created it at the same moment`, { cause: err });
    throw err;
  }
}
