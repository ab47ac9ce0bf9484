import { RetentionPolicy, StorageType, DiscardPolicy } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { StreamSpec } from '../../schemas/messages.ts';
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
      if ((err as Error).name !== 'StreamNotFoundError' && !/stream not found/i.test((err as Error).message)) throw err;
      await bus.jsm.streams.add(config);
    }
  });
}
