/**
 * The daily fork payout sweep on a real nats-server and chdb, on a replay clock: one installation
 * through five months. March: a parent with two forks over 41 days (the 30-day window's edges, a
 * refund, the 200/day cap, a self-fork) and a pro parent (the charity split). April–May: catching
 * up, and crashes between the steps of a settlement. June: two sweepers at once, and one whose
 * process freezes holding the sweep's lease (the kernel's claim `payouts.sweep`). July: a service down for five days settles each missed day once.
 * Last: the ledger, the usage history and the balances add up.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { UsageRecorder } from '../../actors/recorder/index.ts';
import { buildAccounts, changePlan, type Accounts } from '../../src/accounts/index.ts';
import { connectBus, openBucket, startEmbeddedNats, type Bus, type EmbeddedNats, type JsonKv } from '../../src/bus/index.ts';
import { ReplayClock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/log.ts';
import { buildPayouts, settleDay, SWEEP_LEASE, type Payouts, type SweepOutcome } from '../../src/payouts/index.ts';
import { openClickHouse, PayoutsRepo, selectRows, UsageRepo, type ClickHouseClient, type PayoutRow } from '../../src/store/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import type { CommunityEntryRecord } from '../../schemas/community.ts';
import type { Plan } from '../../schemas/accounts.ts';
import { communityEntry } from '../helpers/community-entries.ts';
import { until } from '../helpers/nats.ts';

const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
const DAY = 86_400_000;
const GRACE = 15 * 60_000;
const at = (iso: string) => Date.parse(iso);
const dayOf = (iso: string) => at(`${iso}T00:00:00Z`);
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** Every day from `from` to `to` inclusive, YYYY-MM-DD. */
const daysBetween = (from: string, to: string) => {
  const out: string[] = [];
  for (let d = dayOf(from); d <= dayOf(to); d += DAY) out.push(isoDay(d));
  return out;
};

let dir: string;
let nats: EmbeddedNats;
let bus: Bus;
let busB: Bus;
let clickhouse: ClickHouseClient;
let accounts: Accounts;
let community: JsonKv<typeof Buckets.community.schema>;
/** The kernel's claims, where the sweep's lease is. */
let claims: JsonKv<typeof Buckets.leases.schema>;
let users: JsonKv<typeof Buckets.users.schema>;
let usernames: JsonKv<typeof Buckets.usernames.schema>;
let usage: UsageRepo;
/** The usage recorder, as the service runs it: fork payouts reach `usage_events` through it. */
let recorder: UsageRecorder;
let repo: PayoutsRepo;
const clock = new ReplayClock(dayOf('2025-03-01'));
/** Sweepers built in this file, stopped at the end. */
const built: Payouts[] = [];

/** A payout service as one process builds it (its own lease host), on a bus of its own when given; `renewMs` long freezes its heartbeat. */
async function sweeperProcess(
  _name: string,
  options: { via?: Bus; checkpoint?: Parameters<typeof buildPayouts>[0]['checkpoint']; renewMs?: number } = {},
) {
  const payouts = await buildPayouts({
    bus: options.via ?? bus,
    clickhouse,
    metering: accounts.metering,
    directory: accounts.directory,
    usage: accounts.usage,
    log,
    clock,
    options: { graceMs: GRACE, intervalMs: 10 * 60_000, ...(options.renewMs ? { renewMs: options.renewMs } : {}) },
    ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
  });
  built.push(payouts);
  return payouts;
}

let main: Payouts;

/** A process gone: its sweeper and mirror stop. */
async function retire(payouts: Payouts): Promise<void> {
  built.splice(built.indexOf(payouts), 1);
  await payouts.stop();
}
const marksOn = new Map<Bus, JsonKv<typeof Buckets.payoutMarks.schema>>();

/** The sweep's parts as a process on `via` has them, for settling a day directly (no lease). */
function dependencies(via: Bus = bus) {
  return {
    entries: () => main.links.entries(),
    usage,
    ledger: repo,
    marks: marksOn.get(via)!,
    credits: accounts.metering,
    planOf: (userId: number): Plan => accounts.directory.get(userId)?.plan ?? 'free',
    log,
    clock,
  };
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sf-payouts-'));
  nats = await startEmbeddedNats({ bin: process.env.NATS_SERVER_BIN ?? 'nats-server', storeDir: join(dir, 'nats'), log });
  [bus, busB] = await Promise.all([connectBus(nats.url, 'payouts-a', log), connectBus(nats.url, 'payouts-b', log)]);
  clickhouse = await openClickHouse({ path: join(dir, 'clickhouse'), log });
  accounts = await buildAccounts({
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
  [community, users, usernames, claims] = await Promise.all([
    openBucket(bus, Buckets.community),
    openBucket(bus, Buckets.users),
    openBucket(bus, Buckets.usernames),
    openBucket(bus, Buckets.leases),
  ]);
  usage = new UsageRepo(clickhouse);
  const [credits, cursor] = await Promise.all([openBucket(bus, Buckets.credits), openBucket(bus, Buckets.usageCursor)]);
  recorder = new UsageRecorder({ credits, cursor, repo: usage, log, intervalMs: 50 });
  await recorder.start();
  repo = new PayoutsRepo(clickhouse);
  main = await sweeperProcess('sweeper-a');
  for (const b of [bus, busB]) marksOn.set(b, await openBucket(b, Buckets.payoutMarks));
});

after(async () => {
  for (const p of built) await p.stop();
  await recorder?.stop();
  await accounts?.stop();
  await bus?.close();
  await busB?.close();
  await clickhouse?.close();
  await nats?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// ---- the world: users, entries, spend ---------------------------------------------------------

const ids = new Map<string, number>();
async function user(name: string, plan: Plan = 'free'): Promise<number> {
  const { user: record } = await accounts.directory.createTrial(name);
  ids.set(name, record.user_id);
  if (plan !== 'free') await changePlan({ users, usernames }, name, plan);
  return record.user_id;
}

async function share(community_id: number, author: string, parent_id: number | null, published: string): Promise<CommunityEntryRecord> {
  const entry = communityEntry({ community_id, user_id: ids.get(author)!, author, parent_id, created_at: at(published) });
  await community.put(String(community_id), entry);
  return entry;
}

/** Waits until every sweeper process mirrors these entries (the KV watch). */
async function mirrored(...communityIds: number[]): Promise<void> {
  await until('the entry mirrors', () => built.every((p) => communityIds.every((id) => p.links.entries().has(id))));
}

let seq = 1_000_000_000;
/** A usage row as the credit ledger writes it (the child's balance itself is not what is under test). */
async function spend(name: string, iso: string, credits: number, reason = 'generate'): Promise<void> {
  await usage.append({ seq: seq++, user_id: ids.get(name)!, ts: at(iso), delta: -credits, balance_after: 0, reason, ref: '' });
}
async function credit(name: string, iso: string, credits: number, reason: string): Promise<void> {
  await usage.append({ seq: seq++, user_id: ids.get(name)!, ts: at(iso), delta: credits, balance_after: 0, reason, ref: '' });
}

const balance = (name: string) => accounts.metering.balance(ids.get(name)!);

/** Moves the clock to just past the grace after `day` ends (when that day becomes due) and sweeps. */
async function sweepThrough(payouts: Payouts, day: string): Promise<SweepOutcome> {
  clock.advanceTo(dayOf(day) + DAY + GRACE);
  return payouts.sweeper.sweepDue();
}

/**
 * A process that dies while settling `day`: at `point` of `parent`'s settlement (after its payout
 * is fixed, or after its credit), before the day's ledger rows. Other parents go on as far as they get.
 */
async function crashWhileSettling(day: string, point: 'marked' | 'credited', parent: string): Promise<void> {
  const crashing = await sweeperProcess(`crashing-${day}`, {
    checkpoint: (at, _day, parentUser) => {
      if (at === point && parentUser === ids.get(parent)) throw new Error(`killed at ${point}`);
    },
  });
  await mirrored(...[...built[0]!.links.entries().keys()]);
  clock.advanceTo(dayOf(day) + DAY + GRACE);
  await assert.rejects(crashing.sweeper.sweepDue(), new RegExp(`killed at ${point}`));
  await retire(crashing);
}

const rowsOf = async (day: string): Promise<PayoutRow[]> => repo.day(day);
const view = (rows: PayoutRow[]) => rows.map((r) => [r.parent_entry, r.child_entry, r.spend, r.share, r.credited, r.charity]);

/** The parents' balances, and the day's ledger rows as [parent, child, spend, share, credited, charity]. */
async function assertBooks(day: string, balances: Record<string, number>, rows: number[][]): Promise<void> {
  for (const [name, expected] of Object.entries(balances)) assert.equal(await balance(name), expected, `${name}'s balance`);
  assert.deepEqual(view(await rowsOf(day)), rows, `the ledger of ${day}`);
}

describe('the daily fork payout sweep', () => {
  /** alice's expected share per day from bob and carol (computed by hand below). */
  const aliceDays = new Map<string, { bob: number; carol: number }>();

  it('March: a parent with two forks over 41 days, a pro parent, a self-fork', async () => {
    for (const name of ['alice', 'bob', 'carol']) await user(name);
    await user('dave', 'pro');
    await user('erin');
    await share(1, 'alice', null, '2025-02-20T00:00:00Z');
    await share(2, 'bob', 1, '2025-03-03T10:00:00Z'); // window [03-03 10:00, 04-02 10:00)
    await share(3, 'carol', 1, '2025-03-10T18:30:00Z'); // window [03-10 18:30, 04-09 18:30)
    await share(4, 'alice', 1, '2025-03-02T08:00:00Z'); // a self-fork: earns nothing
    await share(5, 'dave', null, '2025-02-25T00:00:00Z');
    await share(6, 'erin', 5, '2025-03-05T00:00:00Z');
    await mirrored(1, 2, 3, 4, 5, 6);

    for (const day of daysBetween('2025-03-01', '2025-04-11')) {
      await spend('bob', `${day}T12:00:00Z`, 30);
      await spend('carol', `${day}T20:00:00Z`, 45);
      await spend('alice', `${day}T09:00:00Z`, 500); // alice's own spend through her self-fork
    }
    // The window's edges: 1 ms before publication and the instant it closes are out; publication itself is in.
    await spend('bob', '2025-03-03T09:59:59.999Z', 1000);
    await spend('bob', '2025-03-03T10:00:00.000Z', 50);
    await spend('bob', '2025-04-02T09:59:59.999Z', 70);
    await spend('bob', '2025-04-02T10:00:00.000Z', 1000);
    await credit('bob', '2025-03-05T13:00:00Z', 10, 'refund'); // a refund nets out spend
    await credit('bob', '2025-03-06T13:00:00Z', 5000, 'signup'); // a grant is not spend
    await spend('carol', '2025-03-15T21:00:00Z', 3000); // the cap
    await spend('erin', '2025-03-06T09:00:00Z', 1000);
    await spend('erin', '2025-03-07T09:00:00Z', 70);
    await usage.flush();

    // By hand: bob 30/day (10 % → 3) in his window; carol 45/day; shared days split 75 → 7 as 3 + 4.
    for (const day of daysBetween('2025-03-03', '2025-04-09')) aliceDays.set(day, { bob: 0, carol: 0 });
    aliceDays.set('2025-03-03', { bob: 8, carol: 0 }); // 50 at publication + 30
    for (const day of daysBetween('2025-03-04', '2025-03-09')) aliceDays.set(day, { bob: 3, carol: 0 });
    aliceDays.set('2025-03-05', { bob: 2, carol: 0 }); // 30 − 10 refunded
    for (const day of daysBetween('2025-03-10', '2025-04-01')) aliceDays.set(day, { bob: 3, carol: 4 });
    aliceDays.set('2025-03-15', { bob: 2, carol: 198 }); // 3075 → 307 → capped at 200, split 1.95 / 198.05
    aliceDays.set('2025-04-02', { bob: 7, carol: 4 }); // 70 + 45 = 115 → 11: 6.70 / 4.30
    for (const day of daysBetween('2025-04-03', '2025-04-09')) aliceDays.set(day, { bob: 0, carol: 4 });
    aliceDays.set('2025-04-09', { bob: 0, carol: 0 }); // carol's 20:00 is past her window's end (18:30)

    const settled: string[] = [];
    for (const day of daysBetween('2025-03-01', '2025-04-11')) {
      const outcome = await sweepThrough(main, day);
      assert.equal(outcome.busy, false);
      settled.push(...outcome.days.map((d) => d.day));
    }
    // The first fork (alice's self-fork) is on 03-02: nothing before it is ever swept.
    assert.deepEqual(settled, daysBetween('2025-03-02', '2025-04-11'), 'each day once, in order');
    assert.equal(await main.sweeper.settledThrough(), '2025-04-11');

    for (const day of daysBetween('2025-03-01', '2025-04-11')) {
      const expected = aliceDays.get(day) ?? { bob: 0, carol: 0 };
      const rows = (await rowsOf(day)).filter((r) => r.parent_entry === 1);
      const share = (child: number) => rows.find((r) => r.child_entry === child)?.share ?? 0;
      assert.deepEqual([share(2), share(3)], [expected.bob, expected.carol], `alice's shares on ${day}`);
      assert.ok(!rows.some((r) => r.child_entry === 4), `the self-fork is never in the ledger (${day})`);
      for (const r of rows) assert.equal(r.credited, r.share, 'alice is on free: all credited');
    }
    const edge = await rowsOf('2025-03-03');
    assert.deepEqual(view(edge), [[1, 2, 80, 8, 8, 0]], 'publication day: 50 at the instant of publication + 30');
    assert.deepEqual(view((await rowsOf('2025-04-02')).filter((r) => r.parent_entry === 1)), [
      [1, 2, 70, 7, 7, 0],
      [1, 3, 45, 4, 4, 0],
    ]);
    assert.deepEqual(view(await rowsOf('2025-03-15')), [
      [1, 2, 30, 2, 2, 0],
      [1, 3, 3045, 198, 198, 0],
    ]);

    // dave is on pro: 20 % of each share goes to charity, the rounding too.
    assert.deepEqual(view((await rowsOf('2025-03-06')).filter((r) => r.parent_entry === 5)), [[5, 6, 1000, 100, 80, 20]]);
    assert.deepEqual(view((await rowsOf('2025-03-07')).filter((r) => r.parent_entry === 5)), [[5, 6, 70, 7, 5, 2]]);
    assert.equal((await rowsOf('2025-03-07')).find((r) => r.parent_entry === 5)?.plan, 'pro');

    const aliceTotal = [...aliceDays.values()].reduce((s, d) => s + d.bob + d.carol, 0);
    assert.equal(aliceTotal, 8 + 3 * 5 + 2 + 7 * 22 + 200 + 11 + 4 * 6, 'the hand table adds up');
    assert.equal(await balance('alice'), aliceTotal);
    assert.equal(await balance('dave'), 85);
    for (const name of ['bob', 'carol', 'erin']) assert.equal(await balance(name), 0, `${name} (a fork publisher) is paid nothing`);

    const history = (await accounts.usage.history(ids.get('alice')!, 1000)).filter((r) => r.reason === 'fork_payout');
    assert.equal(
      history.reduce((s, r) => s + r.delta, 0),
      aliceTotal,
    );
    assert.equal(new Set(history.map((r) => r.ref)).size, history.length, 'one usage row per day');
    assert.equal(history.find((r) => r.ref === 'payouts:2025-03-15')?.delta, 200);

    // Swept again (and again): nothing moves.
    const again = await main.sweeper.sweepDue();
    assert.deepEqual(again.days, []);
    for (const day of ['2025-03-03', '2025-03-15']) {
      const repeat = await settleDay(dependencies(), dayOf(day));
      assert.equal(repeat.creditedNow, 0, `settling ${day} again credits nothing`);
    }
    assert.equal(await balance('alice'), aliceTotal);
    assert.deepEqual(view(await rowsOf('2025-03-15')), [
      [1, 2, 30, 2, 2, 0],
      [1, 3, 3045, 198, 198, 0],
    ]);
  });

  it('May: a crash after crediting, before the ledger rows, loses and doubles nothing', async () => {
    for (const name of ['gina', 'hank', 'ivy']) await user(name);
    await user('jack', 'pro');
    await share(20, 'gina', null, '2025-04-20T00:00:00Z');
    await share(21, 'hank', 20, '2025-05-01T00:00:00Z');
    await share(22, 'jack', null, '2025-04-20T00:00:00Z');
    await share(23, 'ivy', 22, '2025-05-01T00:00:00Z');
    await mirrored(20, 21, 22, 23);
    await spend('hank', '2025-05-02T08:00:00Z', 500); // gina: 50
    await spend('ivy', '2025-05-02T08:00:00Z', 900); // jack (pro): 90 → 72 + 18
    await usage.flush();

    // April (nothing open) to May 1st: caught up in one sweep.
    const caughtUp = await sweepThrough(main, '2025-05-01');
    assert.deepEqual(
      caughtUp.days.map((d) => d.day),
      daysBetween('2025-04-12', '2025-05-01'),
    );

    await crashWhileSettling('2025-05-02', 'credited', 'gina');
    assert.equal(await balance('gina'), 50, 'gina was credited before the crash');
    assert.equal(await balance('jack'), 72);
    assert.deepEqual(await rowsOf('2025-05-02'), [], 'no ledger row was written');
    assert.equal(await main.sweeper.settledThrough(), '2025-05-01', 'the day is not settled');

    // The restart (another process) finishes the day: the credit is not repeated, the rows appear.
    const restarted = await sweeperProcess('restarted');
    await mirrored(20, 21, 22, 23);
    const outcome = await restarted.sweeper.sweepDue();
    assert.deepEqual(
      outcome.days.map((d) => [d.day, d.credited, d.charity, d.creditedNow]),
      [['2025-05-02', 122, 18, 0]],
      'nothing credited again',
    );
    await assertBooks('2025-05-02', { gina: 50, jack: 72 }, [
      [20, 21, 500, 50, 50, 0],
      [22, 23, 900, 90, 72, 18],
    ]);
  });

  it('May: a crash after fixing the payout, before crediting, pays from the fixed record on restart', async () => {
    await spend('hank', '2025-05-03T08:00:00Z', 300); // gina: 30
    await spend('ivy', '2025-05-03T08:00:00Z', 100); // jack (pro): 10 → 8 + 2
    await usage.flush();
    await crashWhileSettling('2025-05-03', 'marked', 'gina');
    assert.equal(await balance('gina'), 50, 'not credited for 05-03 yet');
    assert.equal(await balance('jack'), 80);

    // Before the restart: jack goes back to free and a late usage row of hank's lands. The day's
    // payout was fixed before the crash, so neither changes what 05-03 pays.
    await changePlan({ users, usernames }, 'jack', 'free');
    await until('the directory sees jack on free', () => accounts.directory.get(ids.get('jack')!)?.plan === 'free');
    await spend('hank', '2025-05-03T23:00:00Z', 10_000);
    await usage.flush();

    const outcome = await main.sweeper.sweepDue();
    assert.deepEqual(
      outcome.days.map((d) => [d.day, d.credited, d.charity, d.creditedNow]),
      [['2025-05-03', 38, 2, 30]],
      'gina credited now, jack not again',
    );
    await assertBooks('2025-05-03', { gina: 80, jack: 80 }, [
      [20, 21, 300, 30, 30, 0],
      [22, 23, 100, 10, 8, 2],
    ]);
  });

  it('June: two sweepers at once, and two settlements of one day at once, add nothing', async () => {
    for (const name of ['kim', 'lou', 'max']) await user(name);
    await share(30, 'kim', null, '2025-05-20T00:00:00Z');
    await share(31, 'lou', 30, '2025-06-01T00:00:00Z');
    await share(32, 'max', 30, '2025-06-01T00:00:00Z');
    const other = await sweeperProcess('sweeper-b', { via: busB });
    await mirrored(30, 31, 32);
    for (const day of daysBetween('2025-06-01', '2025-06-04')) {
      await spend('lou', `${day}T10:00:00Z`, 120);
      await spend('max', `${day}T11:00:00Z`, 200);
    }
    await usage.flush();

    // Catch up to 05-31 first (nothing open), then both processes at once for 06-01…06-03.
    await sweepThrough(main, '2025-05-31');
    clock.advanceTo(dayOf('2025-06-03') + DAY + GRACE);
    const both0 = await Promise.all([main.sweeper.sweepDue(), other.sweeper.sweepDue()]);
    // One holds the lease and the other stands aside (or, had it come after, found nothing left).
    const swept = both0.flatMap((o) => o.days.map((d) => d.day)).sort();
    assert.deepEqual(swept, daysBetween('2025-06-01', '2025-06-03'), 'each day settled by one of them, once');
    assert.equal(await balance('kim'), 3 * 32);

    // Bypassing the lease: two processes settle 06-04 at the very same time.
    const both = await Promise.all([settleDay(dependencies(), dayOf('2025-06-04')), settleDay(dependencies(busB), dayOf('2025-06-04'))]);
    assert.equal(both[0].creditedNow + both[1].creditedNow, 32, 'credited once between them');
    assert.equal(await balance('kim'), 4 * 32);
    assert.deepEqual(view(await rowsOf('2025-06-04')), [
      [30, 31, 120, 12, 12, 0],
      [30, 32, 200, 20, 20, 0],
    ]);
    // The sweeper then reaches 06-04 itself: nothing more.
    const later = await sweepThrough(main, '2025-06-04');
    assert.deepEqual(
      later.days.map((d) => [d.day, d.creditedNow]),
      [['2025-06-04', 0]],
    );
    assert.equal(await balance('kim'), 4 * 32);
  });

  it('June: a sweeper whose process freezes holding the lease is taken over once its heartbeat expires', async () => {
    await spend('lou', '2025-06-05T10:00:00Z', 100);
    await usage.flush();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // It renews its heartbeat no more after its sweep began: frozen, as far as the other processes can tell.
    const hanging = await sweeperProcess('hanging', {
      renewMs: 3_600_000,
      checkpoint: async (point) => {
        if (point === 'credited') await gate;
      },
    });
    await mirrored(30, 31, 32);
    clock.advanceTo(dayOf('2025-06-05') + DAY + GRACE);
    const stuck = hanging.sweeper.sweepDue();
    await until('kim credited by the hanging sweeper', async () => (await balance('kim')) === 4 * 32 + 10);
    assert.equal((await main.sweeper.sweepDue()).busy, true, 'the lease is held');
    assert.ok(await claims.get(SWEEP_LEASE), 'held as a kernel claim');
    // Its heartbeat expires (LEASE_TTL_SECONDS): the next sweep of another process takes the lease over.
    let takeover: SweepOutcome = { busy: true, days: [] };
    await until('the lease to pass to main', async () => !(takeover = await main.sweeper.sweepDue()).busy);
    assert.deepEqual(
      takeover.days.map((d) => [d.day, d.credited, d.creditedNow]),
      [['2025-06-05', 10, 0]],
    );
    assert.equal(await claims.get(SWEEP_LEASE), null, 'released once the sweep is done');
    release();
    const late = await stuck;
    assert.deepEqual(
      late.days.map((d) => d.day),
      ['2025-06-05'],
      'the hung sweeper finishes its day, then stops',
    );
    assert.equal(await balance('kim'), 4 * 32 + 10);
    assert.equal((await rowsOf('2025-06-05')).length, 1);
    assert.equal(await main.sweeper.settledThrough(), '2025-06-05');
  });

  it('July: a service down for five days settles each missed day once when it starts', async () => {
    await user('nia');
    await user('oli');
    await share(40, 'nia', null, '2025-06-20T00:00:00Z');
    await share(41, 'oli', 40, '2025-07-01T00:00:00Z');
    await mirrored(40, 41);
    for (const day of daysBetween('2025-07-01', '2025-07-06')) await spend('oli', `${day}T10:00:00Z`, 100 + Number(day.slice(-1)));
    await usage.flush();
    await sweepThrough(main, '2025-06-30');

    // Down from 07-01 to 07-06 00:15: nothing ran. Then the timer starts (as `serve` does).
    clock.advanceTo(dayOf('2025-07-05') + DAY + GRACE);
    main.sweeper.start();
    await until('the started sweeper caught up', async () => (await main.sweeper.settledThrough()) === '2025-07-05');
    for (const day of daysBetween('2025-07-01', '2025-07-05')) {
      assert.deepEqual(view(await rowsOf(day)), [[40, 41, 100 + Number(day.slice(-1)), 10, 10, 0]], day);
    }
    assert.equal(await balance('nia'), 50);
    // The timer goes on: once 07-06 is due, a tick settles it (the replay clock moves a minute per look).
    clock.advanceTo(dayOf('2025-07-06') + DAY + GRACE - 60_000);
    await until('the timer settled 07-06', async () => {
      clock.advanceBy(60_000);
      return (await main.sweeper.settledThrough()) === '2025-07-06';
    });
    await until('nia credited for 07-06', async () => (await balance('nia')) === 60);
    await main.sweeper.stop();
    const refs = (await accounts.usage.history(ids.get('nia')!, 100)).map((r) => r.ref).sort();
    assert.deepEqual(
      refs,
      daysBetween('2025-07-01', '2025-07-06').map((d) => `payouts:${d}`),
    );
  });

  it('the ledger, the usage history and the balances add up', async () => {
    assert.ok(await recorder.caughtUp(), 'every credit change is in usage_events');
    const totals = await repo.totals();
    assert.equal(totals.share, totals.credited + totals.charity, 'every share is credited or donated');
    const parents = ['alice', 'dave', 'gina', 'jack', 'kim', 'nia'];
    let balances = 0;
    for (const name of parents) {
      const mine = await repo.totals(ids.get(name)!);
      const paid = await selectRows<{ paid: number }>(
        clickhouse,
        `SELECT toInt64(sum(delta)) AS paid FROM usage_events FINAL WHERE user_id = {u:UInt64} AND reason = 'fork_payout'`,
        { u: ids.get(name)! },
      );
      assert.equal(await balance(name), mine.credited, `${name}'s balance is what the ledger credited`);
      assert.equal(paid[0]!.paid, mine.credited, `${name}'s usage history shows the same credits`);
      balances += await balance(name);
    }
    assert.equal(balances, totals.credited);
    const charity = await selectRows<{ c: number }>(clickhouse, 'SELECT toInt64(sum(charity)) AS c FROM fork_payouts FINAL');
    assert.equal(charity[0]!.c, 20 + 2 + 18 + 2, "dave's and jack's donations");
    assert.equal(totals.charity, 42);
  });
});
