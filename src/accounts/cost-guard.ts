import type { JsonKv } from '../bus/index.ts';
import { utcDayKey } from '../lib/utc-day.ts';
import type { CostRecord } from '../../schemas/account-records.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

export interface CostGuardStatus {
  daily_budget_usd: number;
  spent_today_usd: number;
  status: 'ok' | 'exhausted';
}

/**
 * The platform's own spend guard: what paid AI calls cost us today, across all users. When the
 * budget is spent, generation falls back to the offline generator rather than failing.
 */
export class CostGuard {
  private readonly clock: Clock;

  constructor(
    private readonly spend: JsonKv<typeof CostRecord>,
    private readonly dailyBudgetUsd: number,
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? liveClock;
  }

  async record(usd: number, now = this.clock.now()): Promise<void> {
    if (usd <= 0) return;
    await this.spend.mutate(`ai.${utcDayKey(now)}`, (current) => ({ usd: (current?.usd ?? 0) + usd }));
  }

  async status(now = this.clock.now()): Promise<CostGuardStatus> {
    const spent = (await this.spend.get(`ai.${utcDayKey(now)}`))?.value.usd ?? 0;
    return {
      daily_budget_usd: this.dailyBudgetUsd,
      spent_today_usd: Math.round(spent * 10_000) / 10_000,
      status: spent >= this.dailyBudgetUsd ? 'exhausted' : 'ok',
    };
  }

  async allowsPaidCalls(now = this.clock.now()): Promise<boolean> {
    return (await this.status(now)).status === 'ok';
  }
}
