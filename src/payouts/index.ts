/**
 * Fork revenue share: the daily sweep that pays parent authors for their forks' spend (and the
 * pro plan's charity share), and the ledger GET /payouts reads. See src/payouts/README.md.
 */
import { openBucket, type Bus } from '../bus/index.ts';
import { liveClock, type Clock } from '../lib/clock.ts';
import type { Logger } from '../log.ts';
import type { AccountDirectory, Metering, UsageHistory } from '../accounts/index.ts';
import { openClaims } from '../kernel/index.ts';
import { PayoutsRepo, type ClickHouseClient } from '../store/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { EntryLinks } from './entry-links.ts';
import { PayoutsLedger } from './ledger-view.ts';
import { PayoutSweeper, type SweeperOptions } from './sweeper.ts';
import type { DaySettlementDeps } from './day-settlement.ts';

export { EntryLinks } from './entry-links.ts';
export { PayoutsLedger } from './ledger-view.ts';
export { PayoutSweeper, SWEEP_LEASE, type SweeperDeps, type SweeperOptions, type SweepOutcome } from './sweeper.ts';
export { settleDay, type DaySettlementDeps, type DaySummary } from './day-settlement.ts';
export { splitPayout, type PayoutLine } from './split.ts';
export { openForks, spendWithin, firstForkDay, type ForkPair } from './fork-windows.ts';

export interface Payouts {
  sweeper: PayoutSweeper;
  /** The mirror of community entries the sweep reads. */
  links: EntryLinks;
  ledger: PayoutsLedger;
  /** Stops the sweep (waiting for a day in progress, leaving its lease) and the entry mirror. */
  stop(): Promise<void>;
}

export interface PayoutsDeps {
  bus: Bus;
  clickhouse: ClickHouseClient;
  metering: Pick<Metering, 'creditPayout'>;
  directory: Pick<AccountDirectory, 'get'>;
  /** The spend the sweep splits: the usage history with the changes not yet recorded (Accounts.usage). */
  usage: Pick<UsageHistory, 'billableSpend'>;
  log: Logger;
  replicas?: number;
  clock?: Clock;
  options?: SweeperOptions;
  /** See DaySettlementDeps.checkpoint (tests only). */
  checkpoint?: DaySettlementDeps['checkpoint'];
}

/** Opens the payout buckets and the entry mirror; the sweep runs once `sweeper.start()` is called. */
export async function buildPayouts({
  bus,
  clickhouse,
  metering,
  directory,
  usage,
  log,
  replicas = 1,
  clock = liveClock,
  options,
  checkpoint,
}: PayoutsDeps): Promise<Payouts> {
  const [marks, state, claims, links] = await Promise.all([
    openBucket(bus, Buckets.payoutMarks, replicas),
    openBucket(bus, Buckets.payoutSweep, replicas),
    openClaims(bus, replicas),
    EntryLinks.open(bus, replicas),
  ]);
  await links.start();
  const repo = new PayoutsRepo(clickhouse);
  const sweeper = new PayoutSweeper(
    {
      entries: () => links.entries(),
      usage,
      ledger: repo,
      marks,
      state,
      claims,
      credits: metering,
      planOf: (userId) => directory.get(userId)?.plan ?? 'free',
      clock,
      log,
      ...(checkpoint ? { checkpoint } : {}),
    },
    options,
  );
  return {
    sweeper,
    links,
    ledger: new PayoutsLedger(repo, () => sweeper.settledThrough()),
    async stop() {
      await sweeper.stop();
      links.stop();
    },
  };
}
