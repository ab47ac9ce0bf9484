/**
 * The daily fork payout sweep over 10,000 parent–child pairs (--pairs), on a real nats-server and
 * chdb: every pair its own parent author (the heaviest shape for the sweep: one payout record and
 * one compare-and-set credit per pair), a quarter of them on pro, each fork publisher with 5
 * billable usage rows that day. Goal: the sweep of the day ≤ 5 s (`sweep_s`) — the billable
 * spend query, a payout record and a credit per parent, 10,000 ledger rows. Also reported: a
 * second settlement of the same day (everything already in: it adds nothing), and the time the
 * sweep's entry mirror takes to load 20,000 entries when a process starts (not part of a sweep).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAccounts } from '../../src/accounts/index.ts';
import { connectBus, openBucket, startEmbeddedNats } from '../../src/bus/index.ts';
import { ReplayClock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/log.ts';
import { buildPayouts, settleDay } from '../../src/payouts/index.ts';
import { openClickHouse, PayoutsRepo, UsageRepo, type UsageRow } from '../../src/store/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { type UserRecord } from '../../schemas/account-records.ts';
import { communityEntry } from '../helpers/community-entries.ts';
import { numberOption, type BenchResult, type Benchmark } from './lib/types.ts';

const GOAL_S = 5;
const DAY = 86_400_000;
const DAY_START = Date.UTC(2025, 2, 10);

/** Runs `task` over `items`, `width` at a time. */
async function inParallel<T>(items: readonly T[], width: number, task: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

export const benchmark: Benchmark = {
  name: 'payout-sweep',
  description: `the daily fork payout sweep over 10,000 parent–child pairs (goal ≤ ${GOAL_S} s)`,
  async run(ctx) {
    const pairs = numberOption(ctx, 'pairs', 10_000);
    const log = createLogger('warn');
    const dir = mkdtempSync(join(tmpdir(), 'sf-bench-payouts-'));
    ctx.defer(() => rmSync(dir, { recursive: true, force: true }));
    const nats = await startEmbeddedNats({ bin: process.env.NATS_SERVER_BIN ?? 'nats-server', storeDir: join(dir, 'nats'), log });
    ctx.defer(() => nats.stop());
    const bus = await connectBus(nats.url, 'bench-payouts', log);
    ctx.defer(() => bus.close());
    const clickhouse = await openClickHouse({ path: join(dir, 'clickhouse'), log });
    ctx.defer(() => clickhouse.close());
    const accounts = await buildAccounts({
      bus,
      clickhouse,
      log,
      // No monthly allowances: the balances here are the fork payouts alone.
      config: {
        TRIAL_MINTS_PER_HOUR: 5,
        RATE_LIMIT_PER_MIN: 120,
        PLATFORM_DAILY_AI_BUDGET_USD: 50,
        NATS_REPLICAS: 1,
        MONTHLY_CREDITS_FREE: 0,
        MONTHLY_CREDITS_PRO: 0,
      },
    });
    ctx.defer(() => accounts.stop());

    // Parent authors are users 1..pairs (a quarter on pro), fork publishers pairs+1..2·pairs.
    ctx.log(`writing ${pairs} parent authors, ${2 * pairs} entries and ${5 * pairs} usage rows`);
    const setupStarted = performance.now();
    const [users, community] = await Promise.all([openBucket(bus, Buckets.users), openBucket(bus, Buckets.community)]);
    const index = Array.from({ length: pairs }, (_, i) => i + 1);
    await inParallel(index, 64, async (i) => {
      const user: UserRecord = {
        user_id: i,
        username: `parent-${i}`,
        plan: i % 4 === 0 ? 'pro' : 'free',
        is_trial: true,
        created_at: DAY_START - 30 * DAY,
        key_hash: `h${i}`,
        key_hint: 'sf_…',
      };
      await users.put(String(i), user);
      await community.put(
        String(i),
        communityEntry({ community_id: i, user_id: i, author: `parent-${i}`, parent_id: null, created_at: DAY_START - 20 * DAY }),
      );
      await community.put(
        String(pairs + i),
        communityEntry({ community_id: pairs + i, user_id: pairs + i, author: `fork-${i}`, parent_id: i, created_at: DAY_START }),
      );
    });
    const rows: UsageRow[] = [];
    let seq = 1;
    let expectedShare = 0;
    for (const i of index) {
      let spent = 0;
      for (let k = 0; k < 5; k++) {
        const credits = 5 + ((i * 7 + k * 13) % 400);
        spent += credits;
        rows.push({
          seq: seq++,
          user_id: pairs + i,
          ts: DAY_START + 3_600_000 * (k * 4 + 1) + i,
          delta: -credits,
          balance_after: 0,
          reason: 'generate',
          ref: '',
        });
      }
      expectedShare += Math.min(200, Math.floor(spent / 10));
    }
    for (let i = 0; i < rows.length; i += 20_000) {
      await clickhouse.insert({ table: 'usage_events', values: rows.slice(i, i + 20_000), format: 'JSONEachRow' });
    }
    const setupS = (performance.now() - setupStarted) / 1000;
    await new Promise((r) => setTimeout(r, 1000)); // let the directory's watch take in the users

    const clock = new ReplayClock(DAY_START + DAY + 20 * 60_000);
    const mirrorStarted = performance.now();
    const payouts = await buildPayouts({
      bus,
      clickhouse,
      metering: accounts.metering,
      directory: accounts.directory,
      usage: accounts.usage,
      log,
      clock,
    });
    const mirrorS = (performance.now() - mirrorStarted) / 1000;
    ctx.defer(() => payouts.stop());
    if (payouts.links.entries().size !== 2 * pairs)
      throw new Error(`the mirror holds ${payouts.links.entries().size} entries, not ${2 * pairs}`);

    ctx.log('sweeping the day');
    const load = loadavg()[0]!;
    const cpuBefore = process.cpuUsage();
    const sweepStarted = performance.now();
    const outcome = await payouts.sweeper.sweepDue();
    const sweepS = (performance.now() - sweepStarted) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const [day] = outcome.days;
    if (outcome.days.length !== 1 || !day) throw new Error(`expected one day settled, got ${JSON.stringify(outcome.days)}`);
    if (day.rows !== pairs || day.share !== expectedShare)
      throw new Error(`settled ${day.rows} rows, share ${day.share}; expected ${pairs}, ${expectedShare}`);
    const ledger = await new PayoutsRepo(clickhouse).totals();
    if (ledger.rows !== pairs || ledger.credited !== day.credited)
      throw new Error(`ledger ${JSON.stringify(ledger)} disagrees with the sweep ${JSON.stringify(day)}`);

    ctx.log('settling the same day again');
    const againStarted = performance.now();
    const again = await settleDay(
      {
        entries: () => payouts.links.entries(),
        usage: new UsageRepo(clickhouse),
        ledger: new PayoutsRepo(clickhouse),
        marks: await openBucket(bus, Buckets.payoutMarks),
        credits: accounts.metering,
        planOf: (userId) => accounts.directory.get(userId)?.plan ?? 'free',
        clock,
        log,
      },
      DAY_START,
    );
    const againS = (performance.now() - againStarted) / 1000;
    if (again.creditedNow !== 0) throw new Error(`the second settlement credited ${again.creditedNow}`);

    const result: BenchResult = {
      name: 'sweep-10k-pairs',
      pairs,
      parents: day.parents,
      rows: day.rows,
      share: day.share,
      credited: day.credited,
      charity: day.charity,
      sweep_s: Math.round(sweepS * 1000) / 1000,
      sweep_cpu_s: Math.round(((cpu.user + cpu.system) / 1e6) * 1000) / 1000,
      resettle_same_day_s: Math.round(againS * 1000) / 1000,
      entry_mirror_load_s: Math.round(mirrorS * 1000) / 1000,
      setup_s: Math.round(setupS * 10) / 10,
      loadavg_1m: Math.round(load * 100) / 100,
      goal_s: GOAL_S,
      meets_goal: sweepS <= GOAL_S,
    };
    ctx.log(JSON.stringify(result));
    return [result];
  },
};
