import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { JsonKv } from '../bus/index.ts';
import type { Clock } from '../lib/clock.ts';
import { startOfUtcDay, utcDate } from '../lib/utc-day.ts';
import type { PayoutSweepState } from '../../schemas/payouts.ts';
import { settleDay, type DaySettlementDeps, type DaySummary } from './day-settlement.ts';
import { firstForkDay } from './fork-windows.ts';

const DAY_MS = 86_400_000;
const STATE_KEY = 'state';

export interface SweeperOptions {
  /** How often the sweeper looks for a day to settle (default 10 minutes). */
  intervalMs?: number;
  /**
   * A day is settled this long after it ends (default 15 minutes), so usage rows still being
   * written at midnight, and entries shared just before it, are in.
   */
  graceMs?: number;
  /** A sweeper that stops renewing its lease is taken over after this (default 5 minutes). */
  leaseMs?: number;
  /** This sweeper's name in the lease (default host:pid:random). */
  holder?: string;
}

export interface SweepOutcome {
  /** Another sweeper holds the lease: this one did nothing. */
  busy: boolean;
  days: DaySummary[];
}

/** Thrown inside a compare-and-set to write nothing. */
class Refused extends Error {}

/**
 * The daily payout sweep: settles each UTC day once it is over, in order, catching up every day
 * missed while no sweeper ran. One installation-wide record holds the last day settled and a
 * lease, both changed by compare-and-set, so among several processes one works at a time; the
 * lease only saves work — settling a day twice, or by two sweepers at once, adds nothing (see
 * `settleDay`).
 */
export class PayoutSweeper {
  private readonly holder: string;
  private readonly intervalMs: number;
  private readonly graceMs: number;
  private readonly leaseMs: number;
  private stopTimer: (() => void) | null = null;
  private running: Promise<unknown> | null = null;

  private readonly settlement: DaySettlementDeps;

  constructor(
    private readonly deps: Omit<DaySettlementDeps, 'now'> & { state: JsonKv<typeof PayoutSweepState>; clock: Clock },
    options: SweeperOptions = {},
  ) {
    this.settlement = { ...deps, now: () => deps.clock.now() };
    this.holder = options.holder ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.intervalMs = options.intervalMs ?? 600_000;
    this.graceMs = options.graceMs ?? 900_000;
    this.leaseMs = options.leaseMs ?? 300_000;
  }

  /** Sweeps now, then every interval, until `stop`. */
  start(): void {
    this.stopTimer ??= this.deps.clock.every(this.intervalMs, () => this.tick());
    this.tick();
  }

  /** Stops the timer and waits for a sweep in progress. */
  async stop(): Promise<void> {
    this.stopTimer?.();
    this.stopTimer = null;
    await this.running;
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.sweepDue()
      .catch((err: unknown) => this.deps.log.error({ err }, 'fork payout sweep failed; the next sweep tries the day again'))
      .finally(() => (this.running = null));
  }

  /** The last day that may be settled at `now` (start, epoch ms). */
  lastDueDay(now: number): number {
    return startOfUtcDay(now - this.graceMs) - DAY_MS;
  }

  /** Settles every day due and not settled yet, oldest first, if no other sweeper holds the lease. */
  async sweepDue(): Promise<SweepOutcome> {
    const now = this.deps.clock.now();
    const lastDue = this.lastDueDay(now);
    const state = await this.acquire(now);
    if (!state) return { busy: true, days: [] };
    const days: DaySummary[] = [];
    try {
      // Before the first settled day, start at the oldest fork's; with no fork yet there is nothing to do.
      const next = state.settled_through ? Date.parse(state.settled_through) + DAY_MS : firstForkDay(this.deps.entries());
      for (let day = next ?? Infinity; day <= lastDue; day += DAY_MS) {
        days.push(await settleDay(this.settlement, day));
        if (!(await this.advance(day))) break; // another sweeper took over
      }
    } finally {
      await this.release();
    }
    return { busy: false, days };
  }

  /** The sweep state with this sweeper holding the lease, or null when another holds it. */
  private async acquire(now: number): Promise<PayoutSweepState | null> {
    try {
      const { value } = await this.deps.state.mutate(STATE_KEY, (current) => {
        if (current?.holder && current.holder !== this.holder && current.lease_until > now) throw new Refused();
        return { settled_through: current?.settled_through ?? null, holder: this.holder, lease_until: now + this.leaseMs };
      });
      return value;
    } catch (err) {
      if (err instanceof Refused) return null;
      throw err;
    }
  }

  /** Records `day` settled (never moving back) and renews the lease; false when the lease is lost. */
  private async advance(day: number): Promise<boolean> {
    let mine = false;
    await this.deps.state.mutate(STATE_KEY, (current) => {
      const settled = utcDate(day);
      mine = current?.holder === this.holder;
      return {
        settled_through: current?.settled_through && current.settled_through > settled ? current.settled_through : settled,
        holder: current?.holder ?? null,
        lease_until: mine ? this.deps.clock.now() + this.leaseMs : (current?.lease_until ?? 0),
      };
    });
    return mine;
  }

  private async release(): Promise<void> {
    await this.deps.state
      .mutate(STATE_KEY, (current) => {
        if (!current || current.holder !== this.holder) throw new Refused();
        return { ...current, holder: null, lease_until: 0 };
      })
      .catch((err: unknown) => {
        if (!(err instanceof Refused)) this.deps.log.warn({ err }, 'could not release the payout sweep lease; it expires by itself');
      });
  }

  /** The last day settled (YYYY-MM-DD), or null before the first. */
  async settledThrough(): Promise<string | null> {
    return (await this.deps.state.get(STATE_KEY))?.value.settled_through ?? null;
  }
}
