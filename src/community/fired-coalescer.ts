import type { Logger } from '../log.ts';
import { FIRED_MODELS_MAX, type ActivityInput } from '../../schemas/activity.ts';
import type { ActivityBus } from './activity-bus.ts';

type FiredModel = NonNullable<ActivityInput['model']>;

interface Gathering {
  bot: string;
  barTime: string;
  models: Map<string, FiredModel>;
  /** Settles with the id of the event once stored. */
  sent: Promise<number>;
  settle: { resolve(id: number): void; reject(err: unknown): void };
  timer: NodeJS.Timeout;
}

/** How long the models named for a bot and bar are remembered, so a repeat within it is not named again. */
const NAMED_FOR_MS = 60_000;

/** How long a bot's entries of one bar are gathered before their event goes out. */
export const FIRED_WINDOW_MS = 500;

/**
 * SIGNAL_FIRED, one event per bot and bar rather than one per model: a host's actors enter on the
 * same bar close within a second or two, and a bot with many deployed models would otherwise fill
 * the public feed (and the ACTIVITY stream, and every reader of it) with one event each. A bot's
 * entries of one bar are gathered for `windowMs` (or until FIRED_MODELS_MAX models) and go out as
 * one event naming every model once; `emit` resolves, for each entry, with the id of the event that
 * carries it. Every other kind, and a SIGNAL_FIRED without a model or bar, goes straight through.
 */
export class FiredCoalescer implements Pick<ActivityBus, 'emit'> {
  private readonly gathering = new Map<string, Gathering>();
  /** Per bot and bar: each model named so far, with the event naming it (kept NAMED_FOR_MS). */
  private readonly named = new Map<string, { at: number; models: Map<string, Promise<number>> }>();
  /** When `named` was last swept: once a second, not on every send (a host sends one event per bot each bar). */
  private sweptAt = 0;

  constructor(
    private readonly activity: Pick<ActivityBus, 'emit'>,
    private readonly log: Logger,
    private readonly windowMs = FIRED_WINDOW_MS,
  ) {}

  emit(event: ActivityInput): Promise<number> {
    if (event.kind !== 'SIGNAL_FIRED' || !event.model || !event.bar_time) return this.activity.emit(event);
    const { bot, bar_time: barTime, model } = event;
    const key = `${bot}\u0000${barTime}`;
    const id = model.stem ?? model.name;
    let named = this.named.get(key);
    if (!named) this.named.set(key, (named = { at: performance.now(), models: new Map() }));
    // A model enters once per bar: the same entry again (an actor replaying its bar) is named once.
    const known = named.models.get(id);
    if (known) return known;
    let g = this.gathering.get(key);
    if (!g) {
      let settle!: Gathering['settle'];
      const sent = new Promise<number>((resolve, reject) => (settle = { resolve, reject }));
      g = { bot, barTime, models: new Map(), sent, settle, timer: setTimeout(() => this.send(key), this.windowMs) };
      this.gathering.set(key, g);
    }
    g.models.set(id, model);
    named.models.set(id, g.sent);
    const sent = g.sent;
    if (g.models.size >= FIRED_MODELS_MAX) this.send(key);
    return sent;
  }

  /** Sends every gathering now (the host is stopping). */
  flush(): void {
    for (const key of [...this.gathering.keys()]) this.send(key);
  }

  private send(key: string): void {
    const g = this.gathering.get(key);
    if (!g) return;
    this.gathering.delete(key);
    clearTimeout(g.timer);
    const now = performance.now();
    if (now - this.sweptAt > 1_000) {
      this.sweptAt = now;
      for (const [k, named] of this.named) if (now - named.at > NAMED_FOR_MS && !this.gathering.has(k)) this.named.delete(k);
    }
    const models = [...g.models.values()];
    this.activity
      .emit({ kind: 'SIGNAL_FIRED', bot: g.bot, model: models[0], models, bar_time: g.barTime })
      .then(g.settle.resolve, (err: unknown) => {
        this.log.warn({ err, bot: g.bot, models: models.length }, 'activity: a SIGNAL_FIRED event could not be stored');
        // Named by no event after all: a later repeat may try again.
        this.named.get(key)?.models.forEach((p, k) => p === g.sent && this.named.get(key)!.models.delete(k));
        g.settle.reject(err);
      });
  }
}
