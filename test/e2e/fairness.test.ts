/**
 * One user cannot hold everyone's work: while one user's endless loops fill the queue, another
 * user's train job runs beside them and reaches `done` before that backlog is through; each
 * endless loop ends at its time budget with a message that says so. Real service, real trainer,
 * real sandboxed Python, over HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { JobView } from '../../schemas/training.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { waitForJob } from '../helpers/training.ts';

// Four days of synthetic history: a few thousand one-minute bars, so each analysis has its 5 s floor.
const ENV = { HISTORY_DAYS: '4' };
const LOOPS = 6;
const ENDLESS = strategyCode({ prelude: 'while True:\n        pass' });

describe('fairness between users', () => {
  let sf: TestService;
  let looper: string;
  let patient: string;

  before(async () => {
    sf = await startTestService(ENV);
    looper = (await sf.mintKey('looper')).api_key;
    patient = (await sf.mintKey('patient')).api_key;
  });
  after(() => sf.stop());

  const job = async (key: string, id: number) => JobView.parse((await sf.api('GET', `/api/v1/train/${id}`, { key })).body);

  it('runs a second user’s job while the first user’s endless loops are queued and running; each loop ends at its budget', async () => {
    const loops: number[] = [];
    for (let i = 0; i < LOOPS; i++) {
      const res = await sf.api('POST', '/api/v1/train', {
        key: looper,
        body: { code: ENDLESS, timeframe: '1min', model_name: `loop ${i}` },
      });
      assert.equal(res.status, 200, res.text);
      loops.push(res.body.job_id);
    }
    const deadline = Date.now() + 60_000;
    while ((await job(looper, loops[0]!)).status !== 'running') {
      if (Date.now() > deadline) throw new Error('the first endless loop never started');
      await new Promise((r) => setTimeout(r, 100));
    }

    const res = await sf.api('POST', '/api/v1/train', { key: patient, body: { code: strategyCode(), timeframe: '1min' } });
    assert.equal(res.status, 200, res.text);
    const done = await waitForJob(sf, patient, res.body.job_id, 180_000);
    assert.equal(done.status, 'done', done.error);
    const backlog = await Promise.all(loops.map((id) => job(looper, id)));
    const unfinished = backlog.filter((j) => j.status === 'queued' || j.status === 'running');
    assert.ok(
      unfinished.length > 0,
      `the second user waited for the first user's whole backlog: ${backlog.map((j) => j.status).join(', ')}`,
    );
    const last = backlog.at(-1)!;
    assert.ok(last.started_at === null || last.started_at > done.started_at!, 'the second user started before the first user’s last loop');

    const first = await waitForJob(sf, looper, loops[0]!, 60_000);
    assert.equal(first.status, 'failed');
    assert.match(
      first.error!,
      /^strategy timeout: the strategy used up its CPU time budget of 5 s for [\d,]+ bars \(the floor of 5 s: .*\); an endless loop/,
    );
  });
});
