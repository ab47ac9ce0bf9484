import { createInbox, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { JetStreamClient } from '@nats-io/jetstream';
import { messageHeaders, publishStored } from './publish-stored.ts';

/** How long a batch waits for its acknowledgements before the missing ones go the slow way. */
const ACK_WAIT_MS = 5_000;

interface Pending {
  subject: string;
  data: string;
  msgID: string | undefined;
  headers: Record<string, string> | undefined;
  resolve(seq: number): void;
  reject(err: unknown): void;
}

/**
 * JetStream publishes gathered per event-loop turn and sent back to back, their acknowledgements
 * taken on one inbox subscription: a deployed model's bar (its signals, its saved state) times
 * thousands of models is thousands of publishes a bar, and the client's publish makes a request
 * each (an inbox entry, a timer, an error object for its stack). Each message is still its own,
 * with its own id (the stream drops a repeat), stored before its promise resolves. Anything but a
 * plain acknowledgement in time (an error, no stream, a lost answer) sends that message again
 * through the client's publish (publishStored: retried while the cluster is failing over), whose
 * error the caller gets: safe, since a message with an id is stored once, and one without (a KV
 * put of the same value) only writes the same value again.
 */
export class StreamBatcher {
  private queue: Pending[] = [];
  private flushing = false;
  private readonly inbox = createInbox();
  private sub: Subscription | null = null;
  private readonly waiting = new Map<string, Pending>();
  private next = 0;
  /** Messages sent the fast way, and those that went the slow way after all (metrics, tests). */
  readonly counts = { batched: 0, again: 0 };

  constructor(
    private readonly bus: { nc: Pick<NatsConnection, 'publish' | 'subscribe'>; js: Pick<JetStreamClient, 'publish'> },
    private readonly ackWaitMs = ACK_WAIT_MS,
  ) {}

  /**
   * Publishes `data` on `subject` (a stream stores it) with this turn's others; resolves with its
   * stream sequence. `headers`: JetStream's own (an expected last sequence makes it a compare-and-set).
   */
  publish(subject: string, data: string, msgID?: string, headers?: Record<string, string>): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ subject, data, msgID, headers, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Stops taking acknowledgements (the connection is closing); what waits goes the slow way. */
  close(): void {
    this.sub?.unsubscribe();
    this.sub = null;
    for (const [token, p] of this.waiting) {
      this.waiting.delete(token);
      this.again(p);
    }
  }

  private flush(): void {
    this.flushing = false;
    const batch = this.queue;
    this.queue = [];
    this.sub ??= this.bus.nc.subscribe(`${this.inbox}.*`, { callback: (_err, msg) => this.acked(msg) });
    const tokens: string[] = [];
    for (const p of batch) {
      const token = String(++this.next);
      tokens.push(token);
      this.waiting.set(token, p);
      const headers = messageHeaders(p.msgID, p.headers);
      try {
        this.bus.nc.publish(p.subject, p.data, { reply: `${this.inbox}.${token}`, ...(headers ? { headers } : {}) });
        this.counts.batched++;
      } catch {
        // The connection refused it (closed, draining): the slow way says why.
        this.waiting.delete(token);
        this.again(p);
      }
    }
    // One timer per batch: what is still unanswered then goes the slow way.
    setTimeout(() => {
      for (const token of tokens) {
        const p = this.waiting.get(token);
        if (!p) continue;
        this.waiting.delete(token);
        this.again(p);
      }
    }, this.ackWaitMs).unref();
  }

  private acked(msg: Msg): void {
    const token = msg.subject.slice(this.inbox.length + 1);
    const p = this.waiting.get(token);
    if (!p) return;
    this.waiting.delete(token);
    // A status message (no stream answered: 503) or an error in the acknowledgement.
    if (msg.headers?.hasError) return this.again(p);
    let ack: { seq?: unknown; error?: unknown };
    try {
      ack = JSON.parse(msg.string()) as typeof ack;
    } catch {
      return this.again(p);
    }
    if (ack.error || typeof ack.seq !== 'number') return this.again(p);
    p.resolve(ack.seq);
  }

  private again(p: Pending): void {
    this.counts.again++;
    publishStored(this.bus.js, p.subject, p.data, p.msgID, messageHeaders(undefined, p.headers)).then(p.resolve, p.reject);
  }
}
