import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { Bus } from '../bus/index.ts';
import { SignalEvent } from '../../schemas/live.ts';
import { Streams, Subjects } from '../../schemas/messages.ts';

/** A signal as stored on the SIGNALS stream: its sequence and the event (null when unreadable). */
export interface StoredSignal {
  seq: number;
  event: SignalEvent | null;
}

/** Parses a SIGNALS payload; null when it is not a valid SignalEvent. */
export function parseSignal(data: Uint8Array): SignalEvent | null {
  try {
    const parsed = SignalEvent.safeParse(JSON.parse(Buffer.from(data).toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Reads a deployment's signals from the SIGNALS stream by sequence: the per-deployment order is
 * the stream order of its subject.
 */
export class SignalLog {
  constructor(private readonly bus: Pick<Bus, 'jsm'>) {}

  /** The deployment's first signal at or after `fromSeq`; null when there is none (yet). */
  async next(deploymentId: string, fromSeq: number): Promise<StoredSignal | null> {
    // next_by_subj is served by nats-server ≥ 2.9 though the client's type for this call omits it.
    const query = { seq: Math.max(1, fromSeq), next_by_subj: Subjects.signal(deploymentId) } as unknown as { seq: number };
    const msg = await this.bus.jsm.streams.getMessage(Streams.signals.name, query);
    return msg ? { seq: msg.seq, event: parseSignal(msg.data) } : null;
  }

  /** How many of the deployment's signals have a sequence greater than `afterSeq`. */
  async countAfter(deploymentId: string, afterSeq: number): Promise<number> {
    const info = await this.bus.jsm.consumers.add(Streams.signals.name, {
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: afterSeq + 1,
      filter_subject: Subjects.signal(deploymentId),
      inactive_threshold: nanos(10_000),
      mem_storage: true,
    });
    await this.bus.jsm.consumers.delete(Streams.signals.name, info.name).catch(() => undefined);
    return info.num_pending;
  }
}
