import type { z } from 'zod';
import { subscribe, type NatsConnection, type Topic, type TopicSubscription } from '../../bus/index.ts';

interface Entry {
  sub: TopicSubscription;
  listeners: Set<(payload: unknown) => void>;
}

/**
 * One NATS subscription per subject however many sockets follow it: the first listener opens it,
 * the last one leaving closes it. Payloads are parsed once (the topic's schema) for everyone.
 */
export class Fanout {
  private readonly subjects = new Map<string, Entry>();

  constructor(private readonly bus: { nc: Pick<NatsConnection, 'subscribe'> }) {}

  /** Calls `listener` with each message on `subject`; returns the function that stops it. */
  add<S extends z.ZodType, A extends readonly unknown[]>(topic: Topic<S, A>, subject: string, listener: (payload: z.infer<S>) => void): () => void {
    let entry = this.subjects.get(subject);
    if (!entry) {
      const listeners = new Set<(payload: unknown) => void>();
      const sub = subscribe(this.bus, topic, subject, (payload) => {
        for (const fn of listeners) fn(payload);
      });
      entry = { sub, listeners };
      this.subjects.set(subject, entry);
    }
    const fn = listener as (payload: unknown) => void;
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

  /** Subjects followed now (for /_metrics and tests). */
  get size(): number {
    return this.subjects.size;
  }
}
