import type { JsonKv } from '../bus/index.ts';
import { DailyCapError } from '../errors.ts';
import { nextUtcMidnight, utcDayKey } from '../lib/utc-day.ts';
import { CAP_NAMES, type CapName, type Plan } from '../../schemas/accounts.ts';
import type { CounterRecord } from '../../schemas/messages.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

/**
 * Runs per UTC day, from the contract's Limits table. Opus is ours to set: it is the most
 * expensive model, so it gets the tightest cap, the same as Sonnet.
 */
export const DAILY_CAPS: Record<Plan, Record<CapName, number>> = {
  free: { train_compute: 100, generate_sonnet: 1, generate_haiku: 3, generate_opus: 1 },
  pro: { train_compute: 100, generate_sonnet: 1, generate_haiku: 3, generate_opus: 1 },
};

const LABELS: Record<CapName, string> = {
  train_compute: 'training-compute runs',
  generate_sonnet: 'Sonnet generations',
  generate_haiku: 'Haiku generations',
  generate_opus: 'Opus generations',
};

/** Daily counters in KV, one key per user, cap and UTC day; the bucket forgets them after two days. */
export class DailyCaps {
  private readonly clock: Clock;

  constructor(
    private readonly counters: JsonKv<typeof CounterRecord>,
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? liveClock;
  }

  private key(userId: number, cap: CapName, now: number): string {
    return `${userId}.${cap}.${utcDayKey(now)}`;
  }

  /** Counts one run against the cap, or throws 429 with the time left until UTC midnight. */
  async use(userId: number, plan: Plan, cap: CapName, now = this.clock.now()): Promise<{ used: number; limit: number }> {
    const limit = DAILY_CAPS[plan][cap];
    const { value } = await this.counters.mutate(this.key(userId, cap, now), (current) => {
      const used = current?.value ?? 0;
      if (used >= limit) {
        const resetsAt = nextUtcMidnight(now);
        throw new DailyCapError(
          `daily cap reached: ${limit} ${LABELS[cap]} per UTC day; it resets at ${new Date(resetsAt).toISOString()}`,
          (resetsAt - now) / 1000,
        );
      }
      return { value: used + 1 };
    });
    return { used: value.value, limit };
  }

  /**
   * Gives one run back, for work that was counted but never done (it failed before starting).
   * `countedAt` is when the run was counted, so a run taken before midnight is returned to that day.
   */
  async release(userId: number, cap: CapName, countedAt = this.clock.now()): Promise<void> {
    await this.counters.mutate(this.key(userId, cap, countedAt), (current) => ({ value: Math.max(0, (current?.value ?? 0) - 1) }));
  }

  async usedToday(userId: number, now = this.clock.now()): Promise<Record<CapName, number>> {
    const counts = await Promise.all(CAP_NAMES.map((cap) => this.counters.get(this.key(userId, cap, now))));
    return Object.fromEntries(CAP_NAMES.map((cap, i) => [cap, counts[i]?.value.value ?? 0])) as Record<CapName, number>;
  }
}
