/**
 * The monthly allowance (src/accounts/monthly-allowance.ts, applied by CreditLedger): who has one,
 * when a balance is topped up to it (the claim, the plan change, the first credit operation of a
 * UTC month), once per account and month across processes, recorded in the usage history. The
 * month is driven by each ledger's clock, never by today's date.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildAccounts, changePlan, type Accounts } from '../../src/accounts/index.ts';
import { CreditLedger } from '../../src/accounts/credits.ts';
import { monthlyAllowance, topUpDue } from '../../src/accounts/monthly-allowance.ts';
import { openBucket, type JsonKv } from '../../src/bus/index.ts';
import { OutOfCreditsError } from '../../src/errors.ts';
import { clockAt } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/log.ts';
import type { UsageRow } from '../../src/store/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { type CreditsRecord } from '../../schemas/account-records.ts';
import { assertChain, range, settle, startLedgerStores, type LedgerStores } from '../helpers/ledger.ts';
import { until } from '../helpers/nats.ts';

const config = { MONTHLY_CREDITS_FREE: 20_000, MONTHLY_CREDITS_PRO: 500_000 };
const MARCH = Date.UTC(2025, 2, 14, 12);
const LAST_MS_OF_MARCH = Date.UTC(2025, 3, 1) - 1;
const APRIL = Date.UTC(2025, 3, 1);
const MAY = Date.UTC(2025, 4, 20);

let stores: LedgerStores;
let kvA: JsonKv<typeof CreditsRecord>;
let kvB: JsonKv<typeof CreditsRecord>;
/** The stored usage history, read once the usage recorder has caught up. */
const usage = {
  history: async (userId: number, limit: number): Promise<UsageRow[]> => (await stores.recorded(), stores.repo.history(userId, limit)),
};

before(async () => {
  stores = await startLedgerStores('allowance');
  ({ kvA, kvB } = stores);
});

after(() => stores?.close());

let nextUser = 5000;

/**
 * A user and two ledgers on two NATS connections (two processes, in effect) sharing a settable
 * clock and the user's current allowance (what the directory says in the service).
 */
function world(allowance: number, now = MARCH) {
  const w = {
    user: nextUser++,
    allowance,
    now,
    a: null as unknown as CreditLedger,
    b: null as unknown as CreditLedger,
    history: (): Promise<UsageRow[]> => usage.history(w.user, 10_000),
    topUps: async () => (await w.history()).filter((r) => r.reason === 'monthly_allowance').map((r) => [r.delta, r.balance_after, r.ref]),
  };
  const options = {
    allowanceOf: (id: number) => (id === w.user ? w.allowance : 0),
    clock: clockAt(() => w.now),
    recordedThrough: stores.recordedThrough,
  };
  w.a = new CreditLedger(kvA, options);
  w.b = new CreditLedger(kvB, options);
  return w;
}

describe('monthlyAllowance and topUpDue', () => {
  it('pro (trial or not) and claimed free accounts have one; a free trial has none', () => {
    assert.equal(monthlyAllowance({ plan: 'free', is_trial: true }, config), 0);
    assert.equal(monthlyAllowance({ plan: 'free', is_trial: false }, config), 20_000);
    assert.equal(monthlyAllowance({ plan: 'pro', is_trial: true }, config), 500_000);
    assert.equal(monthlyAllowance({ plan: 'pro', is_trial: false }, config), 500_000);
    assert.equal(monthlyAllowance(null, config), 0, 'an account this process does not know yet');
  });

  it('raises to the allowance, never lowers, once a month, again only for a higher allowance', () => {
    const record = (balance: number, mark?: { month: string; credits: number }): CreditsRecord => ({
      balance,
      updated_at: 0,
      ...(mark && { allowance: mark }),
    });
    assert.equal(topUpDue(record(10), 0, '2025-03'), null, 'no allowance, nothing due');
    assert.deepEqual(topUpDue(null, 100, '2025-03'), { delta: 100, allowance: { month: '2025-03', credits: 100 } });
    assert.deepEqual(topUpDue(record(30), 100, '2025-03'), { delta: 70, allowance: { month: '2025-03', credits: 100 } });
    assert.deepEqual(
      topUpDue(record(250), 100, '2025-03'),
      { delta: 0, allowance: { month: '2025-03', credits: 100 } },
      'marked, not lowered',
    );
    assert.equal(topUpDue(record(0, { month: '2025-03', credits: 100 }), 100, '2025-03'), null, 'this month is in');
    assert.equal(topUpDue(record(0, { month: '2025-03', credits: 500 }), 100, '2025-03'), null, 'a downgrade adds nothing');
    assert.deepEqual(topUpDue(record(40, { month: '2025-03', credits: 100 }), 500, '2025-03')?.delta, 460, 'an upgrade tops up at once');
    assert.deepEqual(topUpDue(record(40, { month: '2025-03', credits: 100 }), 100, '2025-04')?.delta, 60, 'a new month');
    assert.equal(topUpDue(record(40, { month: '2025-04', credits: 100 }), 100, '2025-03'), null, 'a clock behind does not go back a month');
  });
});

describe('CreditLedger with a monthly allowance (real NATS KV + chdb)', () => {
  it('a claim raises the trial credits to the allowance at once, and once', async () => {
    const w = world(0);
    assert.equal(await w.a.grant(w.user, 50, 'signup'), 50);
    assert.equal(await w.a.charge(w.user, 8, 'generate'), 42);
    assert.equal(await w.a.topUp(w.user), 42, 'a trial has no allowance');
    w.allowance = 20_000; // claimed
    assert.equal(await w.a.topUp(w.user), 20_000);
    assert.equal(await w.b.topUp(w.user), 20_000, 'a second top-up in the month adds nothing');
    assert.equal(await w.b.balance(w.user), 20_000);
    assert.equal(await w.b.charge(w.user, 100, 'one_shot'), 19_900);
    assert.deepEqual(await w.topUps(), [[19_958, 20_000, '2025-03']]);
    assert.deepEqual((await kvA.get(String(w.user)))?.value.allowance, { month: '2025-03', credits: 20_000 });
    assertChain(await w.history(), 19_900);
  });

  it('the first credit operation of a new UTC month tops up once, to the allowance and not beyond', async () => {
    const w = world(20_000, LAST_MS_OF_MARCH);
    assert.equal(await w.a.balance(w.user), 20_000, 'a read is a credit operation too');
    assert.equal(await w.a.charge(w.user, 15_000, 'generate'), 5_000);
    w.now = APRIL;
    assert.equal(await w.b.charge(w.user, 1, 'generate'), 19_999, 'topped up to 20,000 first, then charged');
    assert.equal(await w.a.charge(w.user, 1, 'generate'), 19_998, 'once');
    // An unspent month does not carry over: May raises to 20,000, not 20,000 more.
    w.now = MAY;
    assert.equal(await w.a.balance(w.user), 20_000);
    assert.deepEqual(await w.topUps(), [
      [2, 20_000, '2025-05'],
      [15_000, 20_000, '2025-04'],
      [20_000, 20_000, '2025-03'],
    ]);
    assertChain(await w.history(), 20_000);
  });

  it('a balance above the allowance (payouts) is kept, not lowered, and the month is marked without a row', async () => {
    const w = world(100);
    assert.equal(await w.a.grant(w.user, 250, 'fork_payout'), 350, 'topped up to 100 first, then the grant');
    w.now = APRIL;
    assert.equal(await w.b.balance(w.user), 350);
    assert.deepEqual((await kvB.get(String(w.user)))?.value.allowance, { month: '2025-04', credits: 100 });
    assert.deepEqual(await w.topUps(), [[100, 100, '2025-03']]);
    assertChain(await w.history(), 350);
  });

  it('100 charges racing in two processes across the month boundary top up exactly once', async () => {
    const w = world(100, LAST_MS_OF_MARCH);
    assert.equal(await w.a.balance(w.user), 100);
    assert.equal(await w.a.charge(w.user, 100, 'generate'), 0, 'March spent');
    w.now = APRIL;
    // 150 charges of 1 and some reads, half through each process, started together: the
    // April allowance is 100, so exactly 100 charges go through and 50 are refused.
    const { ok, failed } = await settle([
      ...range(150).map((i) => (i % 2 ? w.a : w.b).charge(w.user, 1, 'generate', `job-${i}`)),
      ...range(10).map((i) => (i % 2 ? w.b : w.a).balance(w.user).then(() => -1)),
    ]);
    const charged = ok.filter((b) => b >= 0);
    assert.equal(charged.length, 100);
    assert.deepEqual(
      charged.sort((x, y) => x - y),
      range(100),
      'every balance from 99 down to 0 once',
    );
    assert.equal(failed.length, 50);
    for (const err of failed) assert.ok(err instanceof OutOfCreditsError, String(err));
    assert.equal(await w.a.balance(w.user), 0);
    assert.deepEqual(await w.topUps(), [
      [100, 100, '2025-04'],
      [100, 100, '2025-03'],
    ]);
    assertChain(await w.history(), 0);
  });

  it('a process whose clock is still in the old month does not top up that month again', async () => {
    const w = world(100, APRIL);
    assert.equal(await w.a.balance(w.user), 100);
    assert.equal(await w.a.charge(w.user, 60, 'generate'), 40);
    w.now = LAST_MS_OF_MARCH;
    assert.equal(await w.b.charge(w.user, 1, 'generate'), 39);
    assert.deepEqual(await w.topUps(), [[100, 100, '2025-04']]);
  });

  it('an upgrade tops up to the higher allowance at once; a downgrade and a second upgrade in the month add nothing', async () => {
    const w = world(20_000);
    assert.equal(await w.a.charge(w.user, 5_000, 'generate'), 15_000);
    w.allowance = 500_000;
    assert.equal(await w.b.topUp(w.user), 500_000);
    w.allowance = 20_000;
    assert.equal(await w.a.charge(w.user, 1, 'generate'), 499_999);
    w.allowance = 500_000;
    assert.equal(await w.a.topUp(w.user), 499_999);
    assert.deepEqual(await w.topUps(), [
      [485_000, 500_000, '2025-03'],
      [20_000, 20_000, '2025-03'],
    ]);
    assertChain(await w.history(), 499_999);
  });

  it('a free trial keeps its trial credits, month after month', async () => {
    const w = world(0);
    assert.equal(await w.a.grant(w.user, 50, 'signup'), 50);
    w.now = APRIL;
    assert.equal(await w.b.charge(w.user, 10, 'generate'), 40);
    w.now = MAY;
    assert.equal(await w.a.balance(w.user), 40);
    assert.equal((await kvA.get(String(w.user)))?.value.allowance, undefined);
    assert.deepEqual(await w.topUps(), []);
    assertChain(await w.history(), 40);
  });
});

describe('the allowance wired in buildAccounts (the real clock)', () => {
  let accounts: Accounts;
  before(async () => {
    accounts = await buildAccounts({
      bus: stores.busA,
      clickhouse: stores.clickhouse,
      log: createLogger('silent'),
      config: { TRIAL_MINTS_PER_HOUR: 5, RATE_LIMIT_PER_MIN: 120, PLATFORM_DAILY_AI_BUDGET_USD: 50, NATS_REPLICAS: 1, ...config },
    });
  });
  after(() => accounts?.stop());

  it('a password claim tops up to 20,000; a plan change by another process to 500,000, without a credit call here', async () => {
    const { user } = await accounts.directory.createTrial('Allowance_Holder');
    await accounts.metering.grant(user.user_id, 50, 'signup');
    assert.equal(await accounts.metering.charge(user.user_id, 5, 'generate'), 45, 'a trial: no allowance');
    const change = await accounts.claims.setPassword(user, 'correct horse battery staple', undefined, '192.0.2.1');
    assert.equal(change.claimed, true);
    // Read from KV on the other connection: the claim itself wrote it.
    assert.equal((await kvB.get(String(user.user_id)))?.value.balance, 20_000);

    const [users, usernames] = await Promise.all([openBucket(stores.busB, Buckets.users), openBucket(stores.busB, Buckets.usernames)]);
    await changePlan({ users, usernames }, 'allowance_holder', 'pro');
    await until('the plan change tops up', async () => (await kvB.get(String(user.user_id)))?.value.balance === 500_000);
    assert.equal(await accounts.metering.balance(user.user_id), 500_000);
    const rows = await usage.history(user.user_id, 100);
    assert.deepEqual(
      rows.map((r) => [r.delta, r.balance_after, r.reason]),
      [
        [480_000, 500_000, 'monthly_allowance'],
        [19_955, 20_000, 'monthly_allowance'],
        [-5, 45, 'generate'],
        [50, 50, 'signup'],
      ],
    );
    assertChain(rows, 500_000);
  });
});
