/**
 * The usage recorder on a real nats-server and a real chdb store, with the real credit ledger
 * writing: every credit change ends in `usage_events` once, including changes made while the
 * recorder was stopped (more than the bucket keeps of one key, too); a restart resumes from its
 * cursor and a replayed range replaces rather than doubles; the ledger stops carrying what is
 * stored; and the usage history shows a change before the recorder has stored it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UsageRecorder } from '../../../actors/recorder/index.ts';
import { CreditLedger } from '../../../src/accounts/credits.ts';
import { UsageHistory } from '../../../src/accounts/index.ts';
import { openBucket, type JsonKv } from '../../../src/bus/index.ts';
import { UsageRepo } from '../../../src/store/index.ts';
import { Buckets, CREDITS_HISTORY } from '../../../schemas/messages.ts';
import { USAGE_CURSOR_KEY } from '../../../schemas/account-records.ts';
import { assertChain, range } from '../../helpers/ledger.ts';
import { log, startNats, type TestNats } from '../../helpers/nats.ts';
import { tempStore } from '../../store/temp-store.ts';

const store = tempStore('usage-recorder');

describe('UsageRecorder', () => {
  let nats: TestNats;
  let credits: JsonKv<typeof Buckets.credits.schema>;
  let cursor: JsonKv<typeof Buckets.usageCursor.schema>;
  let repo: UsageRepo;
  let history: UsageHistory;
  let recorder: UsageRecorder | null = null;
  let ledger: CreditLedger;
  let nextUser = 100;

  const startRecorder = async () => {
    recorder = new UsageRecorder({ credits, cursor, repo, log, intervalMs: 50 });
    await recorder.start();
    return recorder;
  };
  const stopRecorder = async () => {
    await recorder?.stop();
    recorder = null;
  };
  const caughtUp = async () => assert.ok(await recorder!.caughtUp(), 'the recorder catches up');
  const stored = (userId: number) => repo.history(userId, 10_000);

  before(async () => {
    nats = await startNats('usage-recorder');
    [credits, cursor] = await Promise.all([openBucket(nats.bus, Buckets.credits), openBucket(nats.bus, Buckets.usageCursor)]);
    repo = new UsageRepo(store.client);
    history = new UsageHistory(credits, repo);
    ledger = new CreditLedger(credits, { recordedThrough: () => recorder?.stats().committed ?? 0 });
  });

  after(async () => {
    await stopRecorder();
    await nats?.close();
  });

  it('keeps 64 revisions per key in the credits bucket', async () => {
    const info = await nats.bus.jsm.streams.info('KV_sf_credits');
    assert.equal(info.config.max_msgs_per_subject, CREDITS_HISTORY);
  });

  it('stores every change, each under the KV revision that made it', async () => {
    await startRecorder();
    const user = nextUser++;
    await ledger.grant(user, 10, 'signup');
    await ledger.charge(user, 3, 'custom_indicator', 'job-1');
    await caughtUp();
    const rows = await stored(user);
    assert.deepEqual(
      rows.map((r) => [r.delta, r.balance_after, r.reason, r.ref]),
      [
        [-3, 7, 'custom_indicator', 'job-1'],
        [10, 10, 'signup', ''],
      ],
    );
    assert.equal(rows[0]!.seq, (await credits.get(String(user)))!.revision, 'the newest row has the key revision');
    await stopRecorder();
  });

  it('two changes to one key while the recorder is stopped are both stored when it starts again', async () => {
    const user = nextUser++;
    await ledger.grant(user, 5, 'signup');
    await ledger.charge(user, 2, 'generate', 'a');
    assert.equal((await stored(user)).length, 0, 'nothing stored while stopped');
    await startRecorder();
    await caughtUp();
    assertChain(await stored(user), 3);
    assert.equal((await stored(user)).length, 2);
    await stopRecorder();
  });

  it(`more changes to one key than the bucket keeps (${CREDITS_HISTORY}) while stopped: none is lost`, async () => {
    const user = nextUser++;
    const n = CREDITS_HISTORY + 16;
    await ledger.grant(user, n, 'signup');
    for (const i of range(n)) await ledger.charge(user, 1, 'generate', `job-${i}`);
    const info = await nats.bus.jsm.streams.info('KV_sf_credits', { subjects_filter: `$KV.sf_credits.${user}` });
    assert.equal(info.state.subjects?.[`$KV.sf_credits.${user}`], CREDITS_HISTORY, 'the oldest revisions are gone from the bucket');
    await startRecorder();
    await caughtUp();
    const rows = await stored(user);
    assert.equal(rows.length, n + 1);
    assertChain(rows, 0);
    assert.deepEqual(new Set(rows.filter((r) => r.reason === 'generate').map((r) => r.ref)).size, n);
    await stopRecorder();
  });

  it('a change whose revisions were all superseded before the recorder passed them is carried until stored', async () => {
    // The recorder's cursor can pass a revision already gone (superseded CREDITS_HISTORY times):
    // the change it made is then only in later revisions, so the ledger must not drop it for its seq alone.
    let cursorSeen = 0;
    const lagging = new CreditLedger(credits, { recordedThrough: () => cursorSeen });
    const user = nextUser++;
    await lagging.grant(user, 200, 'signup');
    await lagging.charge(user, 1, 'generate', 'A');
    const a = (await credits.get(String(user)))!.revision;
    for (const i of range(CREDITS_HISTORY)) await lagging.charge(user, 1, 'generate', `b-${i}`);
    // The recorder got to `a` after those revisions were gone, stored what it read and moved on.
    cursorSeen = a;
    await cursor.put(USAGE_CURSOR_KEY, { seq: a, updated_at: Date.now() });
    for (const i of range(CREDITS_HISTORY)) await lagging.charge(user, 1, 'generate', `c-${i}`);
    await startRecorder();
    await caughtUp();
    const rows = await stored(user);
    assert.ok(
      rows.some((r) => r.ref === 'A'),
      'the change at the passed revision is stored',
    );
    assert.equal(rows.length, 2 + 2 * CREDITS_HISTORY);
    assertChain(rows, 200 - 1 - 2 * CREDITS_HISTORY);
    await stopRecorder();
  });

  it('a restart from the cursor, and a replay of a stored range, store each change once', async () => {
    const user = nextUser++;
    await startRecorder();
    await ledger.grant(user, 20, 'signup');
    for (const i of range(5)) await ledger.charge(user, 1, 'generate', `r-${i}`);
    await caughtUp();
    await stopRecorder();
    for (const i of range(5)) await ledger.charge(user, 1, 'generate', `s-${i}`);
    await startRecorder();
    await caughtUp();
    assert.equal(await repo.countFor(user), 11);
    // A process that stored a batch and died before its cursor moved: the range is read again.
    await stopRecorder();
    await cursor.put(USAGE_CURSOR_KEY, { seq: 0, updated_at: Date.now() });
    await startRecorder();
    await caughtUp();
    assert.equal(await repo.countFor(user), 11, 'replayed rows replace themselves');
    assertChain(await stored(user), 10);
    await stopRecorder();
  });

  it('the ledger stops carrying changes once they are stored', async () => {
    const user = nextUser++;
    await startRecorder();
    await ledger.grant(user, 50, 'signup');
    for (const i of range(10)) await ledger.charge(user, 1, 'generate', `c-${i}`);
    assert.ok(((await credits.get(String(user)))!.value.changes ?? []).length > 1, 'carried until stored');
    await caughtUp();
    await ledger.charge(user, 1, 'generate', 'last');
    assert.deepEqual(
      (await credits.get(String(user)))!.value.changes?.map((c) => c.ref),
      ['last'],
      'only the change the recorder has not seen',
    );
    await caughtUp();
    assertChain(await stored(user), 39);
    await stopRecorder();
  });

  it('the usage history shows a change the recorder has not stored, once, before and after it is', async () => {
    const user = nextUser++;
    const since = Date.now() - 60_000;
    await ledger.grant(user, 10, 'signup');
    await ledger.charge(user, 4, 'generate', 'x');
    await ledger.grant(user, 1, 'refund', 'x');
    const before = await history.history(user, 10);
    assert.deepEqual(
      before.map((r) => [r.delta, r.reason]),
      [
        [1, 'refund'],
        [-4, 'generate'],
        [10, 'signup'],
      ],
    );
    assert.equal(await history.spentSince(user, since), 3);
    assert.equal(await history.countFor(user), 3);
    assert.deepEqual(await history.history(user, 2, before[0]!.seq).then((rows) => rows.map((r) => r.delta)), [-4, 10], 'pages by seq');
    await startRecorder();
    await caughtUp();
    assert.equal((await stored(user)).length, 3, 'stored now');
    assert.deepEqual(await history.history(user, 10), before, 'the same rows, not doubled');
    assert.equal(await history.spentSince(user, since), 3);
    assert.equal(await history.countFor(user), 3);
    const spend = await history.billableSpend([user], since, Date.now() + 1);
    assert.equal(
      spend.reduce((sum, p) => sum + p.spent, 0),
      3,
    );
    await stopRecorder();
  });
});
