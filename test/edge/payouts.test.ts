/**
 * GET /api/v1/payouts over HTTP on the real service: the public charity ledger (handles only),
 * the caller's earnings with a key, 401 for a key that is not valid, paging. Forks are written
 * into `sf_community` as POST /share writes them; their publishers' spend is in the usage history
 * on days already over, and the service's own sweep settles them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { changePlan } from '../../src/accounts/index.ts';
import { openBucket } from '../../src/bus/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { PayoutsResponse } from '../../schemas/payouts.ts';
import { UsageRepo } from '../../src/store/index.ts';
import { communityEntry } from '../helpers/community-entries.ts';
import { until } from '../helpers/nats.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
/** Days over and past the sweep's grace whatever the time of day: 3 and 2 days ago. */
const dayA = today - 3 * DAY;
const dayB = today - 2 * DAY;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('GET /api/v1/payouts', () => {
  let sf: TestService;
  const keys: Record<string, { api_key: string; user_id: number; username: string; credits: number }> = {};

  before(async () => {
    sf = await startTestService({ TRUST_PROXY: '1' });
    for (const name of ['ada-parent', 'ben-parent', 'cy-forker', 'dee-forker']) keys[name] = await sf.mintKey(name);
    const { bus } = sf.service;
    const [community, users, usernames] = await Promise.all([
      openBucket(bus, Buckets.community),
      openBucket(bus, Buckets.users),
      openBucket(bus, Buckets.usernames),
    ]);
    await changePlan({ users, usernames }, 'ada-parent', 'pro');
    const entry = (community_id: number, who: string, parent_id: number | null, created_at: number) =>
      community.put(
        String(community_id),
        communityEntry({ community_id, user_id: keys[who]!.user_id, author: who, parent_id, created_at }),
      );
    await entry(1, 'ada-parent', null, today - 6 * DAY);
    await entry(2, 'ben-parent', null, today - 6 * DAY);
    await entry(3, 'cy-forker', 1, today - 5 * DAY);
    await entry(4, 'dee-forker', 2, today - 5 * DAY);
    await until('the sweep sees the entries', () => sf.service.edge.payouts.links.entries().size === 4);
    // Spend as the credit ledger records it (on days already over).
    let seq = 5_000_000_000;
    const usage = new UsageRepo(sf.service.clickhouse);
    const spend = (who: string, ts: number, credits: number) =>
      usage.append({ seq: seq++, user_id: keys[who]!.user_id, ts, delta: -credits, balance_after: 0, reason: 'generate', ref: '' });
    await spend('cy-forker', dayA + 3_600_000, 1000); // ada (pro): 100 → 80 + 20 to charity
    await spend('cy-forker', dayB + 3_600_000, 450); // ada: 45 → 36 + 9
    await spend('dee-forker', dayB + 7_200_000, 300); // ben (free): 30
    await usage.flush();
    const outcome = await sf.service.edge.payouts.sweeper.sweepDue();
    assert.deepEqual(outcome.days.map((d) => d.day).slice(0, 2), [iso(today - 5 * DAY), iso(today - 4 * DAY)]);
    assert.ok(outcome.days.some((d) => d.day === iso(dayB)));
  });
  after(() => sf.stop());

  const get = async (query = '', key?: string) => {
    const res = await sf.api('GET', `/api/v1/payouts${query}`, key ? { key } : {});
    assert.equal(res.status, 200, res.text);
    return { body: PayoutsResponse.parse(res.body), text: res.text };
  };

  it('without a key: the public charity ledger, handles only, and no earnings', async () => {
    const { body, text } = await get();
    assert.deepEqual(body.terms, { share_pct: 10, window_days: 30, daily_cap: 200, pro_charity_pct: 20 });
    assert.ok(body.settled_through! >= iso(dayB), 'settled through a day after the spend');
    assert.equal(body.charity.total_credits, 29);
    assert.equal(body.charity.donations, 2);
    assert.deepEqual(body.charity.rows, [
      { day: iso(dayB), donor: 'ada-parent', credits: 9, forks: 1 },
      { day: iso(dayA), donor: 'ada-parent', credits: 20, forks: 1 },
    ]);
    assert.equal(body.charity.next_before, null);
    assert.equal(body.earnings, null);
    for (const secret of ['user_id', 'api_key', String(keys['ada-parent']!.user_id) + ','])
      assert.ok(!text.includes(secret), `no ${secret} in the public ledger`);
  });

  it('with the parent author’s key: what their entry earned from its fork', async () => {
    const { body } = await get('', keys['ada-parent']!.api_key);
    assert.deepEqual(body.earnings, {
      username: 'ada-parent',
      total_credits_earned: 116,
      total_donated: 29,
      rows: [
        { day: iso(dayB), parent_id: 1, child_id: 3, child_author: 'cy-forker', share: 45, credited: 36, charity: 9 },
        { day: iso(dayA), parent_id: 1, child_id: 3, child_author: 'cy-forker', share: 100, credited: 80, charity: 20 },
      ],
      next_before: null,
    });
    const balance = await sf.api('GET', '/api/v1/key/usage', { key: keys['ada-parent']!.api_key });
    // Pro's monthly allowance (500,000) replaced the trial credits at the plan change; the payouts came on top.
    assert.equal(balance.body.balance, 500_000 + 116, 'the balance received exactly what the ledger says');

    const ben = (await get('', keys['ben-parent']!.api_key)).body.earnings!;
    assert.deepEqual([ben.total_credits_earned, ben.total_donated, ben.rows.length], [30, 0, 1]);
    const forker = (await get('', keys['cy-forker']!.api_key)).body.earnings!;
    assert.deepEqual([forker.total_credits_earned, forker.rows], [0, []], 'a fork publisher earns nothing from their own spend');
  });

  it('a key that is sent must be valid: 401 otherwise', async () => {
    for (const key of ['nonsense', `sf_${'A'.repeat(40)}`]) {
      const res = await sf.api('GET', '/api/v1/payouts', { key });
      assert.equal(res.status, 401, key);
      assert.equal(res.body.code, 401);
      assert.match(res.body.error, /API key/);
    }
  });

  it('pages both lists by cursor, and refuses a bad cursor or limit with 400', async () => {
    const first = (await get('?limit=1', keys['ada-parent']!.api_key)).body;
    assert.deepEqual(
      first.charity.rows.map((r) => r.day),
      [iso(dayB)],
    );
    assert.equal(first.charity.next_before, `${iso(dayB)}~ada-parent`);
    assert.equal(first.earnings!.next_before, `${iso(dayB)}~3`);
    const second = (
      await get(`?limit=1&before=${first.charity.next_before}&earnings_before=${first.earnings!.next_before}`, keys['ada-parent']!.api_key)
    ).body;
    assert.deepEqual(
      second.charity.rows.map((r) => [r.day, r.credits]),
      [[iso(dayA), 20]],
    );
    assert.deepEqual(
      second.earnings!.rows.map((r) => [r.day, r.share]),
      [[iso(dayA), 100]],
    );
    const third = (await get(`?limit=1&before=${second.charity.next_before}`)).body;
    assert.deepEqual([third.charity.rows, third.charity.next_before], [[], null]);

    for (const query of ['?limit=0', '?limit=201', '?before=yesterday', '?earnings_before=2025-01-01~x']) {
      const res = await sf.api('GET', `/api/v1/payouts${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.code, 400);
    }
  });

  it('is in /openapi.json: public, with an optional key, 401 declared, an example', async () => {
    const spec = (await sf.api('GET', '/openapi.json')).body;
    const op = spec.paths['/api/v1/payouts'].get;
    assert.deepEqual(op.security, [{}, { ApiKey: [] }]);
    assert.ok(op.responses['401'] && op.responses['200']);
    assert.match(op.description, /markup/);
    const schema = spec.components.schemas.PayoutsResponse;
    assert.ok(schema.examples?.length, 'the response schema carries an example');
    assert.ok(PayoutsResponse.safeParse(schema.examples[0]).success, 'the example is a valid response');
  });
});
