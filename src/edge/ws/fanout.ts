import type { z } from 'zod';
import { subscribe, type SubscribeVia, type Topic, type TopicSubscription } from '../../bus/index.ts';

/** Sockets served per turn of the event loop: a bar for 10,000 sockets lets other work (an actor, a prediction) in between. */
const CHUNK = 500;

type Listener = (payload: unknown) => void;

interface Entry {
  sub: TopicSubscription;
  listeners: Set<Listener>;
  /** Messages not yet handed to every listener, oldest first (each listener gets them in order). */
  queue: unknown[];
  draining: boolean;
}

/**
 * One NATS subscription per subject however many sockets follow it: the first listener opens it,
 * the last one leaving closes it. Payloads are parsed once (the topic's schema) for everyone and
 * handed out CHUNK listeners per event-loop turn, in message order.
 */
export class Fanout {
  private readonly subjects = new Map<string, Entry>();

  constructor(private readonly bus: SubscribeVia) {}

  /** Calls `listener` with each message on `subject`; returns the function that stops it. */
  add<S extends z.ZodType, A extends readonly unknown[]>(
    topic: Topic<S, A>,
    subject: string,
    listener: (payload: z.infer<S>) => void,
  ): () => void {
    let entry = this.subjects.get(subject);
    if (!entry) {
      const created: Entry = { sub: null as unknown as TopicSubscription, listeners: new Set(), queue: [], draining: false };
      created.sub = subscribe(this.bus, topic, subject, (payload) => {
        created.queue.push(payload);
        if (!created.draining) drain(created);
      });
      entry = created;
      this.subjects.set(subject, entry);
    }
    const fn = listener as Listener;
    entry.listeners.add(fn);
    const held = entry;
    return () => {
      held.listeners.delete(fn);
      if (held.listeners.size === 0 && this.subjects.get(subject) === held) {
        this.subjects.delete(subject);
        held.sub.unsubscribe();
      }
    };
  }
}

/** Hands the queued messages out in order; a large audience is served CHUNK at a time. */
function drain(entry: Entry): void {
  entry.draining = true;
  const next = (): void => {
    const payload = entry.queue.shift();
    if (payload === undefined) {
      entry.draining = false;
      return;
    }
    const targets = [...entry.listeners];
    let at = 0;
    const serve = (): void => {
      const end = Math.min(targets.length, at + CHUNK);
      // A listener that left since the message came (unsubscribed) gets nothing more.
      for (; at < end; at++) if (entry.listeners.has(targets[at]!)) targets[at]!(payload);
      if (at < targets.length) setImmediate(serve);
      else next();
    };
    serve();
  };
  next();
}
