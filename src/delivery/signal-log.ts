import { countAfter, nextBySubject, type Bus } from '../bus/index.ts';
import { SignalEvent } from '../../schemas/live.ts';
import { Streams, Topics } from '../../schemas/messages.ts';

/** A signal as stored on the SIGNALS stream: its sequence and the event (null when unreadable). */
export interface StoredSignal {
  seq: number;
  event: SignalEvent | null;
}

/** Parses a SIGNALS payload; null when it is not a valid SignalEvent. */
export function parseSignal(data: Uint8Array): SignalEvent | null {
  try {
    // A view of the message's bytes, not a copy (a bar brings thousands).
    const parsed = SignalEvent.safeParse(JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')));
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
    const msg = await nextBySubject(this.bus, Streams.signals.name, Topics.signal.subject(deploymentId), fromSeq);
    return msg ? { seq: msg.seq, event: parseSignal(msg.data) } : null;
  }

  /** How many of the deployment's signals have a sequence greater than `afterSeq`. */
  async countAfter(deploymentId: string, afterSeq: number): Promise<number> {
    return countAfter(this.bus, Streams.signals.name, Topics.signal.subject(deploymentId), afterSeq);
  }
}
