import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CreditLedger } from '../../src/accounts/credits.ts';
import type { JsonKv } from '../../src/bus/index.ts';
import { OutOfCreditsError } from '../../src/errors.ts';
import type { UsageRow } from '../../src/store/index.ts';
import type { CreditsRecord } from '../../schemas/account-records.ts';
import { assertChain, range, settle, startLedgerStores, type LedgerStores } from '../helpers/ledger.ts';

let stores: LedgerStores;
let kvA: JsonKv<typeof CreditsRecord>;
let kvB: JsonKv<typeof CreditsRecord>;
/** Two ledgers on two NATS connections: two processes, in effect (the usage recorder a third part). */
let ledgerA: CreditLedger;
let ledgerB: CreditLedger;
/** The stored usage history, read once the recorder has caught up. */
const usage = {
  countFor: async (userId: number) => (await stores.recorded(), stores.repo.countFor(userId)),
};

before(async () => {
  stores = await startLedgerStores('credits');
  ({ kvA, kvB } = stores);
  ledgerA = new CreditLedger(kvA, { recordedThrough: stores.recordedThrough });
  ledgerB = new CreditLedger(kvB, { recordedThrough: stores.recordedThrough });
});

after(() => stores?.close());

let nextUser = 1000;
const newUser = (): number => nextUser++;

const history = async (userId: number): Promise<UsageRow[]> => (await stores.recorded(), stores.repo.history(userId, 10_000));

const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);

describe('CreditLedger (real NATS KV + chdb)', () => {
  it('starts every user at 0 and grants add up', async () => {
    const user = newUser();
    assert.equal(await ledgerA.balance(user), 0);
    assert.equal(await ledgerA.grant(user, 50, 'signup'), 50);
    assert.equal(await ledgerB.grant(user, 25, 'purchase', 'order-1'), 75);
    assert.equal(await ledgerA.balance(user), 75);
    assert.equal(await ledgerB.balance(user), 75, 'the other process sees the same balance');
    const rows = await history(user);
    assert.deepEqual(
      rows.map((r) => [r.delta, r.balance_after, r.reason, r.ref]),
      [
        [25, 75, 'purchase', 'order-1'],
        [50, 50, 'signup', ''],
      ],
    );
    for (const r of rows) assert.equal(r.user_id, user);
  });

  it('100 concurrent debits of 1 from 100 all succeed and leave exactly 0', async () => {
    const user = newUser();
    await ledgerA.grant(user, 100, 'signup');
    const { ok, failed } = await settle(range(100).map((i) => ledgerA.charge(user, 1, 'generate', `job-${i}`)));
    assert.equal(failed.length, 0, `no debit fails: ${failed.map(String).join('; ')}`);
    assert.equal(ok.length, 100);
    // Each debit saw a distinct balance: no update was lost or applied twice.
    assert.deepEqual(sorted(ok), range(100));
    assert.equal(await ledgerA.balance(user), 0);
    assert.equal(await usage.countFor(user), 101);
    assertChain(await history(user), 0);
  });

  it('100 concurrent debits of 1 from 60: exactly 60 succeed, 40 get 402, balance 0', async () => {
    const user = newUser();
    await ledgerA.grant(user, 60, 'signup');
    const { ok, failed } = await settle(range(100).map(() => ledgerA.charge(user, 1, 'generate')));
    assert.equal(ok.length, 60);
    assert.equal(failed.length, 40);
    assert.deepEqual(sorted(ok), range(60));
    for (const err of failed) {
      assert.ok(err instanceof OutOfCreditsError, `rejected with ${String(err)}`);
      assert.equal(err.status, 402);
      assert.equal(err.needed, 1);
      assert.equal(err.balance, 0);
    }
    assert.equal(await ledgerA.balance(user), 0);
    assert.equal(await usage.countFor(user), 61, 'one row per successful change, none for the refused ones');
    assertChain(await history(user), 0);
  });

  it('across two ledgers on two NATS connections: 100 debits from 100 leave exactly 0', async () => {
    const user = newUser();
    await ledgerA.grant(user, 100, 'signup');
    const { ok, failed } = await settle(range(100).map((i) => (i % 2 ? ledgerA : ledgerB).charge(user, 1, 'train', `job-${i}`)));
    assert.equal(failed.length, 0, `no debit fails: ${failed.map(String).join('; ')}`);
    assert.deepEqual(sorted(ok), range(100));
    assert.equal(await ledgerA.balance(user), 0);
    assert.equal(await ledgerB.balance(user), 0);
    assert.equal(await usage.countFor(user), 101);
    assertChain(await history(user), 0);
  });

  it('across two ledgers on two NATS connections: 100 debits from 60, exactly 60 succeed', async () => {
    const user = newUser();
    await ledgerB.grant(user, 60, 'signup');
    const tagged = range(100).map((i) => {
      const ledger = i % 2 ? ledgerA : ledgerB;
      return ledger.charge(user, 1, 'train').then((balance) => ({ balance, by: ledger }));
    });
    const { ok, failed } = await settle(tagged);
    assert.equal(ok.length, 60);
    assert.equal(failed.length, 40);
    assert.deepEqual(sorted(ok.map((r) => r.balance)), range(60), 'every balance from 59 down to 0 produced once');
    for (const err of failed) {
      assert.ok(err instanceof OutOfCreditsError);
      assert.equal(err.status, 402);
    }
    assert.equal(await ledgerA.balance(user), 0);
    assert.equal(await usage.countFor(user), 61);
    assertChain(await history(user), 0);
  });

  it('compare-and-set holds across processes with mixed debits and grants', async () => {
    const user = newUser();
    await ledgerA.grant(user, 30, 'signup');
    // 40 debits of 2 and 20 grants of 1, split over both ledgers and started together.
    const ops = [
      ...range(40).map((i) => (i % 2 ? ledgerA : ledgerB).charge(user, 2, 'generate').then(() => -2)),
      ...range(20).map((i) => (i % 2 ? ledgerB : ledgerA).grant(user, 1, 'refund').then(() => 1)),
    ];
    const { ok } = await settle(ops);
    const net = ok.reduce((sum, d) => sum + d, 0);
    const balance = await ledgerA.balance(user);
    assert.equal(balance, 30 + net, 'the balance is exactly the sum of the changes that succeeded');
    assert.ok(balance >= 0);
    assert.equal(ok.filter((d) => d === 1).length, 20, 'grants never fail');
    assert.equal(await usage.countFor(user), 1 + ok.length);
    assertChain(await history(user), balance);
  });

  it('a ledger writes on the entry it last saw without a read; what another process did meanwhile is never lost or overdrawn', async () => {
    const user = newUser();
    await ledgerA.grant(user, 3, 'signup');
    await ledgerA.charge(user, 1, 'train');
    const reads: string[] = [];
    const spy = kvA.kv.get.bind(kvA.kv);
    kvA.kv.get = (key: string) => (reads.push(key), spy(key));
    try {
      assert.equal(await ledgerA.charge(user, 1, 'train'), 1);
      assert.equal(await ledgerA.lastSeenBalance(user, 1), 1);
      assert.deepEqual(reads, [], 'the charge and the early check used the entry this ledger last wrote');
      // Another process grants 10: this ledger's entry is stale, its charge of 5 (more than the 1 it
      // saw) is decided on the stored 11, not refused.
      await ledgerB.grant(user, 10, 'purchase');
      assert.equal(await ledgerA.lastSeenBalance(user, 1), 1, 'the early check lags until this ledger reads or writes');
      assert.equal(await ledgerA.charge(user, 5, 'train'), 6);
      assert.equal(reads.length, 1, 'one read, when the entry proved stale');
      // Another process spends it all: this ledger's charge is refused on what is stored.
      await ledgerB.charge(user, 6, 'train');
      await assert.rejects(ledgerA.charge(user, 1, 'train'), OutOfCreditsError);
      assert.equal(await ledgerA.lastSeenBalance(user, 1), 0, 'after a refusal the early check reads again');
      // This ledger last saw 0 (it read it): a grant elsewhere, or a month's top-up, is read, not refused early.
      await ledgerB.grant(user, 4, 'purchase');
      assert.equal(await ledgerA.lastSeenBalance(user, 1), 4, 'a short balance last seen is read again');
    } finally {
      kvA.kv.get = spy;
    }
    assert.equal(await ledgerB.balance(user), 4);
    assertChain(await history(user), 4);
  });

  it('an entry carrying many changes the usage recorder has not stored is read each time, not kept', async () => {
    // A recorder that never ran: every change stays in the entry.
    const ledger = new CreditLedger(kvA, { recordedThrough: () => 0 });
    const user = newUser();
    await ledger.grant(user, 1000, 'signup');
    // The grant and 249 charges: 250 changes in the entry, the most one kept may carry.
    for (let i = 0; i < 249; i++) await ledger.charge(user, 1, 'train');
    const reads: string[] = [];
    const spy = kvA.kv.get.bind(kvA.kv);
    kvA.kv.get = (key: string) => (reads.push(key), spy(key));
    try {
      await ledger.charge(user, 1, 'train');
      assert.equal(reads.length, 0, '250 changes: kept, so no read');
      await ledger.charge(user, 1, 'train');
      assert.equal(reads.length, 1, '251 changes: not kept, so read');
    } finally {
      kvA.kv.get = spy;
    }
  });

  it('usage rows carry the KV revision as seq and the balance after', async () => {
    const user = newUser();
    const from = Date.now();
    await ledgerA.grant(user, 10, 'signup');
    await ledgerB.charge(user, 3, 'generate', 'gen-1');
    await ledgerA.charge(user, 4, 'one_shot', 'os-1');
    const by = Date.now();
    const [newest, middle, oldest] = await history(user);
    assert.ok(newest && middle && oldest);
    assert.deepEqual(
      [oldest, middle, newest].map((r) => ({ delta: r.delta, balance_after: r.balance_after, reason: r.reason, ref: r.ref })),
      [
        { delta: 10, balance_after: 10, reason: 'signup', ref: '' },
        { delta: -3, balance_after: 7, reason: 'generate', ref: 'gen-1' },
        { delta: -4, balance_after: 3, reason: 'one_shot', ref: 'os-1' },
      ],
    );
    const entry = await kvA.get(String(user));
    assert.ok(entry);
    assert.equal(newest.seq, entry.revision, 'the newest row is the current KV revision');
    assert.equal(entry.value.balance, 3);
    assert.ok(oldest.ts >= from && newest.ts <= by, 'ts is epoch ms, the time of the change');
    assert.ok(oldest.ts <= middle.ts && middle.ts <= newest.ts);
  });

  it('a charge bigger than the balance changes nothing', async () => {
    const user = newUser();
    await ledgerA.grant(user, 5, 'signup');
    const before = await kvA.get(String(user));
    assert.ok(before);
    await assert.rejects(ledgerB.charge(user, 6, 'generate'), (err: unknown) => {
      assert.ok(err instanceof OutOfCreditsError);
      assert.equal(err.status, 402);
      assert.equal(err.needed, 6);
      assert.equal(err.balance, 5);
      assert.match(err.message, /out of credits/);
      return true;
    });
    const afterwards = await kvA.get(String(user));
    assert.ok(afterwards);
    assert.equal(afterwards.value.balance, 5);
    assert.equal(afterwards.revision, before.revision, 'nothing was written to KV');
    assert.equal(await usage.countFor(user), 1, 'nothing was written to the history');
    // Exactly the balance is fine.
    assert.equal(await ledgerA.charge(user, 5, 'generate'), 0);
    await assert.rejects(ledgerA.charge(user, 1, 'generate'), OutOfCreditsError);
    assert.equal(await ledgerA.balance(user), 0);
  });

  it('charging a user with no balance at all is refused and creates nothing', async () => {
    const user = newUser();
    await assert.rejects(ledgerA.charge(user, 1, 'generate'), OutOfCreditsError);
    assert.equal(await kvA.get(String(user)), null);
    assert.equal(await usage.countFor(user), 0);
  });

  it('amounts are whole numbers; signs are normalised by grant and charge', async () => {
    const user = newUser();
    await ledgerA.grant(user, 10, 'signup');
    await assert.rejects(ledgerA.charge(user, 1.5, 'generate'), TypeError);
    await assert.rejects(ledgerA.grant(user, 0.5, 'purchase'), TypeError);
    assert.equal(await ledgerA.balance(user), 10);
    assert.equal(await ledgerA.charge(user, -3, 'generate'), 7, 'charge always takes');
    assert.equal(await ledgerA.grant(user, -2, 'refund'), 9, 'grant always adds');
    assert.equal(await usage.countFor(user), 3);
    assertChain(await history(user), 9);
  });

  it('users are independent', async () => {
    const [u1, u2] = [newUser(), newUser()];
    await Promise.all([ledgerA.grant(u1, 20, 'signup'), ledgerB.grant(u2, 20, 'signup')]);
    await Promise.all([
      ...range(20).map(() => ledgerA.charge(u1, 1, 'generate')),
      ...range(5).map(() => ledgerB.charge(u2, 1, 'generate')),
    ]);
    assert.equal(await ledgerB.balance(u1), 0);
    assert.equal(await ledgerA.balance(u2), 15);
    assert.equal(await usage.countFor(u1), 21);
    assert.equal(await usage.countFor(u2), 6);
  });

  it('a fork payout is credited once per day, whoever credits it and whatever happens in between', async () => {
    const user = newUser();
    await ledgerA.grant(user, 10, 'signup');
    // Two processes credit the same day at once: one applies.
    const both = await Promise.all([
      ledgerA.creditPayout(user, 25, '2025-03-02', 'payouts:2025-03-02'),
      ledgerB.creditPayout(user, 25, '2025-03-02', 'payouts:2025-03-02'),
    ]);
    assert.deepEqual(both.map((r) => r.applied).sort(), [false, true]);
    assert.equal(await ledgerA.balance(user), 35);
    // Charges and grants in between carry the mark over: the day is still in.
    await ledgerB.charge(user, 5, 'generate');
    await ledgerA.grant(user, 1, 'refund');
    assert.equal((await kvA.get(String(user)))?.value.payout_day, '2025-03-02');
    assert.deepEqual(await ledgerA.creditPayout(user, 25, '2025-03-02', 'payouts:2025-03-02'), { applied: false, balance: 31 });
    assert.equal(
      (await ledgerB.creditPayout(user, 25, '2025-03-01', 'payouts:2025-03-01')).applied,
      false,
      'an earlier day is settled already',
    );
    assert.deepEqual(await ledgerB.creditPayout(user, 7, '2025-03-03', 'payouts:2025-03-03'), { applied: true, balance: 38 });
    const rows = await history(user);
    assert.deepEqual(
      rows.filter((r) => r.reason === 'fork_payout').map((r) => [r.delta, r.ref]),
      [
        [7, 'payouts:2025-03-03'],
        [25, 'payouts:2025-03-02'],
      ],
    );
    assertChain(rows, 38);
    await assert.rejects(ledgerA.creditPayout(user, 0, '2025-03-04', 'x'), TypeError);
  });
});
