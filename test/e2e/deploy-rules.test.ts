/**
 * Limits and names hold under concurrency: auto-named trains submitted at once get distinct names
 * (and every model survives), and concurrent POST /deploy on the free plan (1 deployment) leave one.
 * A new deployment's signal for a bar that closed before it is marked late.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { nextBarClose } from '../../src/lib/market-hours.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { waitForJob } from '../helpers/training.ts';
import { eventually, storedSignals } from '../helpers/live.ts';

describe('deploy and train rules', () => {
  let sf: TestService;
  let key: string;
  let names: string[] = [];

  before(async () => {
    sf = await startTestService();
    key = (await sf.mintKey('racer')).api_key;
  });
  after(() => sf.stop());

  it('three POST /train without model_name at once: three distinct names, three models', async () => {
    const starts = await Promise.all(
      [0, 1, 2].map(() => sf.api('POST', '/api/v1/train', { key, body: { code: strategyCode(), timeframe: '1min' } })),
    );
    for (const s of starts) assert.equal(s.status, 200, s.text);
    names = starts.map((s) => s.body.model_name as string);
    assert.equal(new Set(names).size, 3, `names: ${names.join(', ')}`);
    for (const s of starts) assert.equal((await waitForJob(sf, key, s.body.job_id)).status, 'done');
    const models = (await sf.api('GET', '/api/v1/models', { key })).body;
    assert.deepEqual(models.models.map((m: any) => m.model_name).sort(), [...names].sort());
  });

  it('three POST /deploy at once on a plan allowing one: one deployment is left', async () => {
    assert.equal(names.length, 3);
    for (let round = 0; round < 3; round++) {
      const asked = Date.now();
      const answers = await Promise.all(
        names.map((model_name) => sf.api('POST', '/api/v1/deploy', { key, body: { model_name, channels: ['sse'] } })),
      );
      const answered = Date.now();
      for (const a of answers) {
        assert.equal(a.status, 200, a.text);
        // Each answer says when the first bar (EURUSD 1min) closes; on a forex weekend, why it is so far off.
        const [earliest, latest] = [nextBarClose('EURUSD', '1min', asked), nextBarClose('EURUSD', '1min', answered)];
        const at = Date.parse(a.body.next_bar_at);
        assert.ok(at >= earliest.closesAt && at <= latest.closesAt, `next_bar_at ${a.body.next_bar_at}`);
        if (earliest.reopensAt !== null && latest.reopensAt !== null) assert.match(a.body.note, /shut for the weekend.*reopens/);
        if (earliest.reopensAt === null && latest.reopensAt === null) assert.equal(a.body.note, undefined);
      }
      const listed = (await sf.api('GET', '/api/v1/deployed', { key })).body;
      assert.equal(listed.count, 1, `round ${round}: ${JSON.stringify(listed.deployed.map((d: any) => d.model_name))}`);
    }
  });

  it('a new deployment announces its position on the last closed bar as a late signal (late: true, due_at before the deploy)', async () => {
    const listed = (await sf.api('GET', '/api/v1/deployed', { key })).body;
    const deployment = listed.deployed[0];
    const signals = await eventually('the first signal', async () => {
      const s = await storedSignals(sf, deployment.deployment_id);
      return s.length ? s : null;
    });
    const first = signals[0]!;
    assert.equal(first.late, true, JSON.stringify(first));
    assert.ok(Date.parse(first.due_at!) <= Date.parse(deployment.created_at), `due ${first.due_at}, deployed ${deployment.created_at}`);
    assert.equal(Date.parse(first.due_at!), Date.parse(first.bar_time) + 60_000);
  });
});
