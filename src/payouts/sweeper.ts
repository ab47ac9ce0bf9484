import type { JsonKv } from '../bus/index.ts';
import { LeaseHost, type Claims, type LeaseHolder } from '../kernel/index.ts';
import { liveClock, type Clock } from '../lib/clock.ts';
import { startOfUtcDay, utcDate } from '../lib/utc-day.ts';
import type { PayoutSweepState } from '../../schemas/payouts.ts';
import { settleDay, type DaySettlementDeps, type DaySummary } from './day-settlement.ts';
import { firstForkDay } from './fork-windows.ts';

const DAY_MS = 86_400_000;
const STATE_KEY = 'state';
/** The sweep's lease in `sf_claims`: one sweeper at a time across the installation. */
export const SWEEP_LEASE = 'payouts.sweep';

export interface SweeperOptions {
  /** How often the sweeper looks for a day to settle (default 10 minutes). */
  intervalMs?: number;
  /**
   * A day is settled this long after it ends (default 15 minutes), so usage rows still being
   * written at midnight, and entries shared just before it, are in.
   */
  graceMs?: number;
  /** How often the sweep lease's heartbeat is renewed (default the lease host's; a test freezes a process with a long one). */
  renewMs?: number;
}

export interface SweepOutcome {
  /** Another sweeper holds the lease: this one did nothing. */
  busy: boolean;
  days: DaySummary[];
}

export interface SweeperDeps extends Omit<DaySettlementDeps, 'now' | 'clock'> {
  state: JsonKv<typeof PayoutSweepState>;
  /** The kernel's claims: the sweep is claimed there like any other lease. */
  claims: Claims;
  clock: Clock;
}

/** The sweep's holder: it only marks the lease held here; the sweep itself runs in `sweepDue` while it is. */
const held: LeaseHolder = { start: async () => undefined, stop: async () => undefined };

/**
 * The daily payout sweep: settles each UTC day once it is over, in order, catching up every day
 * missed while no sweeper ran. The last day settled is one installation-wide record; the sweep
 * runs under the lease `payouts.sweep`, claimed through the kernel's claims (a LeaseHost wanting
 * that one lease while a sweep is due, releasing it after), so among several processes one works
 * at a time, and a process that dies mid-sweep is taken over once its heartbeat expires. The lease
 * only saves work: settling a day twice, or by two sweepers at once, adds nothing (see `settleDay`).
 */
export class PayoutSweeper {
  private readonly intervalMs: number;
  private readonly graceMs: number;
  private stopTimer: (() => void) | null = null;
  private running: Promise<unknown> | null = null;
  /** Sweeps in progress or waiting for the lease here: the host wants the lease while there are any. */
  private wanted = 0;
  private onChange: (() => void) | null = null;
  private opening: Promise<LeaseHost<string, LeaseHolder>> | null = null;

  constructor(
    private readonly deps: SweeperDeps,
    private readonly options: SweeperOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 600_000;
    this.graceMs = options.graceMs ?? 900_000;
  }

  /** Sweeps now, then every interval, until `stop`. */
  start(): void {
    this.stopTimer ??= this.deps.clock.every(this.intervalMs, () => this.tick());
    this.tick();
  }

  /** Stops the timer, waits for a sweep in progress, and leaves the sweep's claims. */
  async stop(): Promise<void> {
    this.stopTimer?.();
    this.stopTimer = null;
    await this.running;
    const host = await this.opening?.catch(() => null);
    this.opening = null;
    await host?.stop();
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
    const lastDue = this.lastDueDay(this.deps.clock.now());
    const host = await this.open();
    this.want(+1);
    try {
      await host.reconcile();
      if (host.leaseLeftMs(SWEEP_LEASE) === 0) return { busy: true, days: [] };
      const state = (await this.deps.state.get(STATE_KEY))?.value ?? null;
      const days: DaySummary[] = [];
      // Before the first settled day, start at the oldest fork's; with no fork yet there is nothing to do.
      const next = state?.settled_through ? Date.parse(state.settled_through) + DAY_MS : firstForkDay(this.deps.entries());
      for (let day = next ?? Infinity; day <= lastDue; day += DAY_MS) {
        days.push(await settleDay(this.deps, day));
        await this.advance(day);
        // The lease may have passed on (this process could not renew it): the new holder goes on.
        if (host.leaseLeftMs(SWEEP_LEASE) === 0) break;
      }
      return { busy: false, days };
    } finally {
      this.want(-1);
      await host
        .reconcile()
        .catch((err: unknown) => this.deps.log.warn({ err }, 'could not release the payout sweep lease; it expires with this process'));
    }
  }

  private want(delta: number): void {
    this.wanted += delta;
    this.onChange?.();
  }

  /** The lease host of the sweep, started at the first sweep. */
  private open(): Promise<LeaseHost<string, LeaseHolder>> {
    return (this.opening ??= (async () => {
      const host = new LeaseHost<string, LeaseHolder>({
        names: { actor: 'payouts sweeper', spec: 'payout sweep', id: 'lease' },
        desired: {
          follow: async (onChange) => {
            this.onChange = onChange;
            return { all: () => (this.wanted > 0 ? [SWEEP_LEASE] : []), stop: () => (this.onChange = null) };
          },
        },
        idOf: (id) => id,
        ...this.deps.claims,
        create: async () => held,
        log: this.deps.log,
        // The heartbeat runs on the machine's time (the claims expire in real seconds), whatever clock the sweep reads.
        clock: liveClock,
        ...(this.options.renewMs ? { renewMs: this.options.renewMs } : {}),
      });
      await host.start();
      return host;
    })());
  }

  /** Records `day` settled, never moving back. */
  private async advance(day: number): Promise<void> {
    await this.deps.state.mutate(STATE_KEY, (current) => {
      const settled = utcDate(day);
      // holder and lease_until stay in the record for its schema; the lease itself is the kernel's claim now.
      return {
        settled_through: current?.settled_through && current.settled_through > settled ? current.settled_through : settled,
        holder: null,
        lease_until: 0,
      };
    });
  }

  /** The last day settled (YYYY-MM-DD), or null before the first. */
  async settledThrough(): Promise<string | null> {
    return (await this.deps.state.get(STATE_KEY))?.value.settled_through ?? null;
  }
}
