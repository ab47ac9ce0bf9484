import type { CapName, CapsResponse, Plan, UsageQuery, UsageResponse } from '../../schemas/accounts.ts';
import { nextUtcMidnight, startOfUtcDay, utcDate } from '../lib/utc-day.ts';
import type { CostGuard } from './cost-guard.ts';
import type { CreditLedger } from './credits.ts';
import { DAILY_CAPS, type DailyCaps } from './daily-caps.ts';
import type { UsageHistory } from './usage-history.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

export interface MeteringLimits {
  ratePerMinute: number;
  concurrentSse: number;
}

/**
 * What every capability calls to pay for work:
 * - `charge` / `refund` / `grant` move credits (402 when the balance is short),
 * - `useCap` / `releaseCap` count a run against a daily cap (429 until UTC midnight when full),
 * - `recordAiSpend` feeds the platform cost guard.
 */
export class Metering {
  private readonly clock: Clock;

  constructor(
    private readonly ledger: CreditLedger,
    private readonly caps: DailyCaps,
    private readonly costGuard: CostGuard,
    private readonly usage: UsageHistory,
    private readonly limits: MeteringLimits,
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? liveClock;
  }

  balance(userId: number): Promise<number> {
    return this.ledger.balance(userId);
  }

  /** The balance as this process last saw it when that covers `needed`, else read: to refuse work early (the charge is exact). */
  lastSeenBalance(userId: number, needed: number): Promise<number> {
    return this.ledger.lastSeenBalance(userId, needed);
  }

  charge(userId: number, credits: number, reason: string, ref = ''): Promise<number> {
    return this.ledger.charge(userId, credits, reason, ref);
  }

  refund(userId: number, credits: number, ref = ''): Promise<number> {
    return this.ledger.grant(userId, credits, 'refund', ref);
  }

  grant(userId: number, credits: number, reason: string, ref = ''): Promise<number> {
    return this.ledger.grant(userId, credits, reason, ref);
  }

  /** A fork payout of one UTC day, credited at most once (see CreditLedger.creditPayout). */
  creditPayout(userId: number, credits: number, day: string, ref: string): Promise<{ applied: boolean; balance: number }> {
    return this.ledger.creditPayout(userId, credits, day, ref);
  }

  useCap(userId: number, plan: Plan, cap: CapName): Promise<{ used: number; limit: number }> {
    return this.caps.use(userId, plan, cap);
  }

  /** `countedAt`: when the run was counted (defaults to now), so a release never lands on the wrong day. */
  releaseCap(userId: number, cap: CapName, countedAt?: number): Promise<void> {
    return this.caps.release(userId, cap, countedAt);
  }

  recordAiSpend(usd: number): Promise<void> {
    return this.costGuard.record(usd);
  }

  aiBudgetLeft(): Promise<boolean> {
    return this.costGuard.allowsPaidCalls();
  }

  async usageFor(userId: number, query: UsageQuery): Promise<UsageResponse> {
    const now = this.clock.now();
    // The balance first: a monthly top-up it makes is then in the history read with it.
    const balance = await this.ledger.balance(userId);
    const [rows, spentToday] = await Promise.all([
      this.usage.history(userId, query.limit, query.before),
      this.usage.spentSince(userId, startOfUtcDay(now)),
    ]);
    return {
      user_id: userId,
      balance,
      spent_today: spentToday,
      count: rows.length,
      history: rows.map((r) => ({
        seq: r.seq,
        ts: new Date(r.ts).toISOString(),
        delta: r.delta,
        balance_after: r.balance_after,
        reason: r.reason,
        ref: r.ref,
      })),
      next_before: rows.length === query.limit ? rows[rows.length - 1]!.seq : null,
    };
  }

  async capsFor(userId: number, plan: Plan): Promise<CapsResponse> {
    const now = this.clock.now();
    const [used, balance, costGuard] = await Promise.all([
      this.caps.usedToday(userId, now),
      this.ledger.balance(userId),
      this.costGuard.status(now),
    ]);
    const status = (cap: CapName) => {
      const limit = DAILY_CAPS[plan][cap];
      return { limit, used: used[cap], remaining: Math.max(0, limit - used[cap]) };
    };
    return {
      plan,
      date: utcDate(now),
      resets_at: new Date(nextUtcMidnight(now)).toISOString(),
      caps: {
        train_compute: status('train_compute'),
        generate_sonnet: status('generate_sonnet'),
        generate_haiku: status('generate_haiku'),
        generate_opus: status('generate_opus'),
      },
      rate_limit: { per_minute: this.limits.ratePerMinute, concurrent_sse: this.limits.concurrentSse },
      credits: { balance },
      cost_guard: costGuard,
    };
  }
}
