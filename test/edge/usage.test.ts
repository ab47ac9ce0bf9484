import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OutOfCreditsError, RateLimitedError } from '../../src/errors.ts';
import { CapsResponse, UsageResponse, type UsageEvent } from '../../schemas/accounts.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { claimWithPassword, trial } from '../helpers/accounts.ts';
import { openBucket } from '../../src/bus/index.ts';
import { Buckets } from '../../schemas/messages.ts';

const DAY_MS = 86_400_000;
const nextMidnightIso = (now: number): string => new Date((Math.floor(now / DAY_MS) + 1) * DAY_MS).toISOString();
const utcDate = (now: number): string => new Date(now).toISOString().slice(0, 10);

describe('GET /api/v1/key/usage and GET /api/v1/caps', () => {
  let sf: TestService;
  before(async () => {
    // TRUST_PROXY lets the helper mint each key from its own X-Forwarded-For address.
    sf = await startTestService({ TRUST_PROXY: '1' });
  });
  after(() => sf.stop());

  const metering = () => sf.service.domain.accounts.metering;
  const usage = async (key: string, query = ''): Promise<UsageResponse> => {
    const res = await sf.api('GET', `/api/v1/key/usage${query}`, { key });
    assert.equal(res.status, 200, res.text);
    return UsageResponse.parse(res.body);
  };
  const caps = async (key: string): Promise<CapsResponse> => {
    const res = await sf.api('GET', '/api/v1/caps', { key });
    assert.equal(res.status, 200, res.text);
    return CapsResponse.parse(res.body);
  };
  /** Every page of the history, following next_before until it is null. */
  const allPages = async (key: string, limit: number): Promise<UsageEvent[][]> => {
    const pages: UsageEvent[][] = [];
    let cursor: number | null = null;
    for (let i = 0; i < 100; i++) {
      const page: UsageResponse = await usage(key, `?limit=${limit}${cursor === null ? '' : `&before=${cursor}`}`);
      assert.equal(page.count, page.history.length);
      assert.ok(page.history.length <= limit);
      pages.push(page.history);
      cursor = page.next_before;
      if (cursor === null) return pages;
      assert.equal(cursor, page.history.at(-1)?.seq, 'next_before is the last seq of the page');
    }
    assert.fail('paging never ended');
  };

  let alice: { api_key: string; user_id: number };
  let historyBeforeRestart: UsageEvent[] = [];
  let capsBeforeRestart: CapsResponse;

  it('answers 401 without a key, or with a wrong one', async () => {
    for (const path of ['/api/v1/key/usage', '/api/v1/caps']) {
      for (const key of [undefined, 'nonsense', `sf_${'A'.repeat(40)}`]) {
        const res = await sf.api('GET', path, key === undefined ? {} : { key });
        assert.equal(res.status, 401, `${path} with ${key}`);
        assert.equal(res.body.code, 401);
        assert.match(res.body.error, /API key/);
      }
    }
  });

  it('after a mint: one signup event of +50 and a balance of 50', async () => {
    const mintedFrom = Date.now();
    const minted = await sf.mintKey();
    const mintedBy = Date.now();
    alice = minted;
    assert.equal(minted.credits, 50);
    const body = await usage(minted.api_key);
    assert.equal(body.user_id, minted.user_id);
    assert.equal(body.balance, 50);
    assert.equal(body.spent_today, 0);
    assert.equal(body.count, 1);
    assert.equal(body.next_before, null);
    const [signup] = body.history;
    assert.ok(signup);
    assert.equal(signup.delta, 50);
    assert.equal(signup.balance_after, 50);
    assert.equal(signup.reason, 'signup');
    assert.equal(signup.ref, '');
    assert.ok(signup.seq >= 1);
    assert.ok(Date.parse(signup.ts) >= mintedFrom && Date.parse(signup.ts) <= mintedBy, `ts ${signup.ts} is the mint's time`);
    assert.match(signup.ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  it('charges show newest first with balance_after and add to spent_today', async () => {
    const m = metering();
    assert.equal(await m.charge(alice.user_id, 5, 'generate', 'gen-1'), 45);
    assert.equal(await m.charge(alice.user_id, 3, 'train', 'job-1'), 42);
    assert.equal(await m.charge(alice.user_id, 10, 'one_shot', 'os-1'), 32);
    const body = await usage(alice.api_key);
    assert.equal(body.balance, 32);
    assert.equal(body.spent_today, 18);
    assert.equal(body.count, 4);
    assert.deepEqual(
      body.history.map((e) => [e.delta, e.balance_after, e.reason, e.ref]),
      [
        [-10, 32, 'one_shot', 'os-1'],
        [-3, 42, 'train', 'job-1'],
        [-5, 45, 'generate', 'gen-1'],
        [50, 50, 'signup', ''],
      ],
    );
    const seqs = body.history.map((e) => e.seq);
    for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i]! < seqs[i - 1]!, 'seq falls down the list');
    const times = body.history.map((e) => Date.parse(e.ts));
    for (let i = 1; i < times.length; i++) assert.ok(times[i]! <= times[i - 1]!, 'newest first by time too');
  });

  it('a refund is a positive event and nets off spent_today; a refused charge leaves no trace', async () => {
    const m = metering();
    assert.equal(await m.refund(alice.user_id, 3, 'job-1'), 35);
    await assert.rejects(m.charge(alice.user_id, 1000, 'one_shot'), (err: unknown) => {
      assert.ok(err instanceof OutOfCreditsError);
      assert.equal(err.status, 402);
      return true;
    });
    const body = await usage(alice.api_key);
    assert.equal(body.balance, 35);
    assert.equal(body.spent_today, 15, '18 spent, 3 refunded');
    assert.equal(body.count, 5);
    assert.deepEqual(
      [body.history[0]?.delta, body.history[0]?.balance_after, body.history[0]?.reason, body.history[0]?.ref],
      [3, 35, 'refund', 'job-1'],
    );
  });

  it('pages with limit and before=next_before: the rest, no overlap, no gap', async () => {
    const m = metering();
    for (let i = 1; i <= 3; i++) await m.charge(alice.user_id, 1, 'generate', `gen-p${i}`);
    // 8 events now: pages of 3, 3 and 2.
    const full = (await usage(alice.api_key, '?limit=500')).history;
    assert.equal(full.length, 8);
    const pages = await allPages(alice.api_key, 3);
    assert.deepEqual(
      pages.map((p) => p.length),
      [3, 3, 2],
    );
    assert.deepEqual(pages.flat(), full, 'the pages together are the whole history, in order');
    // Each event once: the balance chain holds from the oldest to the newest.
    const oldestFirst = [...full].reverse();
    let balance = 0;
    for (const e of oldestFirst) {
      balance += e.delta;
      assert.equal(e.balance_after, balance);
    }
    assert.equal(balance, 32);
    // Page size 1 walks the same events one by one.
    const ones = await allPages(alice.api_key, 1);
    assert.deepEqual(ones.flat(), full);
    // A cursor in the middle returns exactly what lies below it.
    const mid = full[4]!.seq;
    const below = await usage(alice.api_key, `?before=${mid}`);
    assert.deepEqual(below.history, full.slice(5));
    assert.equal(below.next_before, null);
    // Default page size is 50.
    assert.equal((await usage(alice.api_key)).history.length, 8);
  });

  it('rejects invalid paging parameters with 400', async () => {
    for (const query of ['?limit=0', '?limit=501', '?limit=abc', '?before=0', '?before=-5']) {
      const res = await sf.api('GET', `/api/v1/key/usage${query}`, { key: alice.api_key });
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.body.code, 400);
    }
  });

  it('shows each user only their own history', async () => {
    const bob = await sf.mintKey();
    await metering().charge(bob.user_id, 7, 'generate', 'bob-1');
    const body = await usage(bob.api_key);
    assert.equal(body.user_id, bob.user_id);
    assert.equal(body.balance, 43);
    assert.deepEqual(
      body.history.map((e) => e.ref),
      ['bob-1', ''],
    );
    assert.equal((await usage(alice.api_key)).balance, 32, 'alice is untouched');
  });

  it('GET /caps: plan, date, resets_at, every cap, rate limit, credits and cost guard', async () => {
    const t0 = Date.now();
    const body = await caps(alice.api_key);
    const t1 = Date.now();
    assert.equal(body.plan, 'free');
    assert.ok([utcDate(t0), utcDate(t1)].includes(body.date), body.date);
    assert.ok([nextMidnightIso(t0), nextMidnightIso(t1)].includes(body.resets_at), body.resets_at);
    assert.equal(Date.parse(body.resets_at) % DAY_MS, 0, 'a UTC midnight');
    assert.deepEqual(body.caps, {
      train_compute: { limit: 100, used: 0, remaining: 100 },
      generate_sonnet: { limit: 1, used: 0, remaining: 1 },
      generate_haiku: { limit: 3, used: 0, remaining: 3 },
      generate_opus: { limit: 1, used: 0, remaining: 1 },
    });
    assert.deepEqual(body.rate_limit, { per_minute: 120, concurrent_sse: 1 });
    assert.deepEqual(body.credits, { balance: 32 });
    assert.deepEqual(body.cost_guard, { daily_budget_usd: 50, spent_today_usd: 0, status: 'ok' });
    // The raw body has exactly these top-level fields.
    const raw = await sf.api('GET', '/api/v1/caps', { key: alice.api_key });
    assert.deepEqual(Object.keys(raw.body).sort(), ['caps', 'cost_guard', 'credits', 'date', 'plan', 'rate_limit', 'resets_at']);
  });

  it('useCap shows in /caps; past the cap it rejects with 429', async () => {
    const m = metering();
    assert.deepEqual(await m.useCap(alice.user_id, 'free', 'generate_sonnet'), { used: 1, limit: 1 });
    const askedFrom = Date.now();
    await assert.rejects(m.useCap(alice.user_id, 'free', 'generate_sonnet'), (err: unknown) => {
      const askedBy = Date.now();
      assert.ok(err instanceof RateLimitedError);
      assert.equal(err.status, 429);
      const retry = Number(err.headers['retry-after']);
      // Whole seconds to the next UTC midnight, as seen at some instant of the call.
      const secondsLeft = (at: number) => Math.ceil((Date.parse(nextMidnightIso(at)) - at) / 1000);
      const [most, least] = [secondsLeft(askedFrom), secondsLeft(askedBy)];
      assert.ok(
        least <= most ? retry >= least && retry <= most : retry === least || retry === most,
        `retry-after ${retry}, expected ${least}…${most}`,
      );
      return true;
    });
    await m.useCap(alice.user_id, 'free', 'generate_haiku');
    await m.useCap(alice.user_id, 'free', 'generate_haiku');
    await m.useCap(alice.user_id, 'free', 'train_compute');
    const body = await caps(alice.api_key);
    assert.deepEqual(body.caps, {
      train_compute: { limit: 100, used: 1, remaining: 99 },
      generate_sonnet: { limit: 1, used: 1, remaining: 0 },
      generate_haiku: { limit: 3, used: 2, remaining: 1 },
      generate_opus: { limit: 1, used: 0, remaining: 1 },
    });
    // releaseCap gives a run back.
    await m.releaseCap(alice.user_id, 'generate_haiku');
    assert.equal((await caps(alice.api_key)).caps.generate_haiku.used, 1);
  });

  it('caps are per user', async () => {
    const carol = await sf.mintKey();
    const body = await caps(carol.api_key);
    assert.equal(body.caps.generate_sonnet.used, 0);
    assert.equal(body.credits.balance, 50);
    assert.deepEqual(await metering().useCap(carol.user_id, 'free', 'generate_sonnet'), { used: 1, limit: 1 });
  });

  it('recordAiSpend moves the platform cost guard, for every user', async () => {
    const m = metering();
    await m.recordAiSpend(1.25);
    await m.recordAiSpend(0.5);
    await m.recordAiSpend(0); // nothing
    let body = await caps(alice.api_key);
    assert.deepEqual(body.cost_guard, { daily_budget_usd: 50, spent_today_usd: 1.75, status: 'ok' });
    assert.equal(await m.aiBudgetLeft(), true);
    await m.recordAiSpend(48.25);
    body = await caps(alice.api_key);
    assert.deepEqual(body.cost_guard, { daily_budget_usd: 50, spent_today_usd: 50, status: 'exhausted' });
    assert.equal(await m.aiBudgetLeft(), false);
    const bob = await sf.mintKey();
    assert.equal((await caps(bob.api_key)).cost_guard.status, 'exhausted', 'platform-wide, not per user');
    historyBeforeRestart = (await usage(alice.api_key, '?limit=500')).history;
    capsBeforeRestart = await caps(alice.api_key);
  });

  /** The allowance rows of a history as [delta, balance_after, ref], checking each ref is the UTC month of its time. */
  const topUps = (history: UsageEvent[]) =>
    history
      .filter((e) => e.reason === 'monthly_allowance')
      .map((e) => {
        assert.equal(e.ref, e.ts.slice(0, 7), 'the ref names the month topped up');
        return [e.delta, e.balance_after];
      });

  it('a free trial keeps its 50 credits; a claim raises them to the monthly 20,000 at once, once', async () => {
    const t = await trial(sf);
    assert.equal((await usage(t.key)).balance, 50);
    assert.equal(await metering().charge(t.userId, 8, 'generate'), 42);
    assert.deepEqual(topUps((await usage(t.key)).history), [], 'a trial has no allowance');
    await claimWithPassword(sf, t);
    const claimed = await usage(t.key);
    assert.equal(claimed.balance, 20_000);
    assert.deepEqual(
      claimed.history.map((e) => [e.delta, e.balance_after, e.reason]),
      [
        [19_958, 20_000, 'monthly_allowance'],
        [-8, 42, 'generate'],
        [50, 50, 'signup'],
      ],
    );
    assert.deepEqual(topUps(claimed.history), [[19_958, 20_000]]);
    assert.equal(claimed.spent_today, 8, 'an allowance is not spend');
    assert.equal((await caps(t.key)).credits.balance, 20_000);
    assert.equal((await usage(t.key)).history.length, 3, 'reading again tops up nothing');
  });

  it('at the first credit call of a new month, requests racing top up once', async () => {
    const t = await trial(sf);
    await claimWithPassword(sf, t);
    assert.equal(await metering().charge(t.userId, 19_000, 'generate'), 1_000);
    // The balance as it stands when a month ends: its mark names the month before this one.
    const credits = await openBucket(sf.service.bus, Buckets.credits);
    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
    await credits.mutate(String(t.userId), (current) => ({ ...current!, allowance: { month: lastMonth, credits: 20_000 } }));
    const balances = await Promise.all([
      ...Array.from({ length: 10 }, () => usage(t.key).then((u) => u.balance)),
      ...Array.from({ length: 10 }, () => caps(t.key).then((c) => c.credits.balance)),
    ]);
    assert.deepEqual([...new Set(balances)], [20_000]);
    const { history } = await usage(t.key);
    assert.deepEqual(topUps(history), [
      [19_000, 20_000],
      [19_950, 20_000],
    ]);
    assert.equal(history[0]!.balance_after, 20_000);
  });

  it('balance, history, caps and cost guard survive a restart', async () => {
    await sf.restart();
    const after = await usage(alice.api_key, '?limit=500');
    assert.equal(after.balance, 32);
    assert.equal(after.spent_today, 18, '21 spent, 3 refunded, counted from the stored history');
    assert.deepEqual(after.history, historyBeforeRestart);
    const capsAfter = await caps(alice.api_key);
    assert.deepEqual(capsAfter, capsBeforeRestart);
    assert.equal(capsAfter.caps.generate_sonnet.used, 1);
    assert.equal(capsAfter.cost_guard.spent_today_usd, 50);
    // Still enforced after the restart, and the ledger carries on from where it was.
    await assert.rejects(metering().useCap(alice.user_id, 'free', 'generate_sonnet'), RateLimitedError);
    assert.equal(await metering().charge(alice.user_id, 2, 'generate', 'after-restart'), 30);
    const latest = await usage(alice.api_key, '?limit=2');
    assert.deepEqual(
      latest.history.map((e) => [e.delta, e.balance_after, e.ref]),
      [
        [-2, 30, 'after-restart'],
        [-1, 32, 'gen-p3'],
      ],
    );
    assert.ok(latest.history[0]!.seq > historyBeforeRestart[0]!.seq, 'seq keeps rising across restarts');
  });
});
