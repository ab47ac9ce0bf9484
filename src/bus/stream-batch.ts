import { createInbox, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { JetStreamClient } from '@nats-io/jetstream';
import { messageHeaders, publishStored } from './publish-stored.ts';

/** How long a batch waits for its acknowledgements before the missing ones go the slow way. */
const ACK_WAIT_MS = 5_000;
/** A core message's settlement: nothing waits for it. */
const NOTHING = (): void => undefined;

interface Pending {
  subject: string;
  /** Stored by a stream and acknowledged (false: a core NATS message, sent and done). */
  stored: boolean;
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
  /** Stored messages sent the fast way, those that went the slow way after all, and core messages sent (metrics, tests). */
  readonly counts = { batched: 0, again: 0, sent: 0 };

  constructor(
    private readonly bus: { nc: Pick<NatsConnection, 'publish' | 'subscribe'>; js: Pick<JetStreamClient, 'publish'> },
    private readonly ackWaitMs = ACK_WAIT_MS,
  ) {}

  /**
   * Publishes `data` on `subject` (a stream stores it) with this turn's others; resolves with its
   * stream sequence. `headers`: JetStream's own (an expected last sequence makes it a compare-and-set).
   */
  publish(subject: string, data: string, msgID?: string, headers?: Record<string, string>): Promise<number> {
    return new Promise<number>((resolve, reject) => this.enqueue({ subject, stored: true, data, msgID, headers, resolve, reject }));
  }

  /**
   * Sends `data` on `subject` on core NATS (no stream, no answer) with this turn's others: a bar's
   * live predictions, one per model, leave in one socket write instead of one each. Nothing to wait
   * for: a core message is gone once the connection has it (a closed connection drops it, as the
   * client's publish would throw).
   */
  send(subject: string, data: string): void {
    this.enqueue({ subject, stored: false, data, msgID: undefined, headers: undefined, resolve: NOTHING, reject: NOTHING });
  }

  private enqueue(p: Pending): void {
    this.queue.push(p);
    if (!this.flushing) {
      this.flushing = true;
      setImmediate(() => this.flush());
    }
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
      if (!p.stored) {
        try {
          this.bus.nc.publish(p.subject, p.data);
          this.counts.sent++;
        } catch {
          // Closed or draining: a live-only message has nowhere else to go.
        }
        continue;
      }
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
