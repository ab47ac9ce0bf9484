/**
 * one_shot and the robustness verdict, on a real service (nats-server, the sandboxed trainer, the
 * offline generator, deployments, metering): the verdict is said before the deploy, `deploy_if`
 * keeps a model whose verdict falls short off live (kept, fee refunded, `done` says why), and the
 * durable pipeline does the same after a restart. The verdict itself is src/robustness's: here the
 * finished train job carries a chosen report, so each path is taken for certain.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { buildGeneration } from '../../src/generation/index.ts';
import { nextBarClose } from '../../src/lib/market-hours.ts';
import { ReplayClock } from '../../src/lib/clock.ts';
import { OneShot, OneShotRuns, type OneShotDeps } from '../../src/oneshot/index.ts';
import { leaseOf, OneShotRecovery } from '../../src/oneshot/recovery.ts';
import type { Training } from '../../src/training/index.ts';
import { type UserRecord } from '../../schemas/account-records.ts';
import { OneShotDone, type OneShotEvent, type OneShotRequest } from '../../schemas/oneshot.ts';
import type { RobustnessReport } from '../../schemas/robustness.ts';
import { TrainRequest, type JobView } from '../../schemas/training.ts';
import { OVERFIT_REASON, robustnessReport } from '../helpers/robustness-report.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { strategyCode } from '../helpers/strategies.ts';

const FEE = 9;
const PROMPT = 'EUR/USD 1 minute: buy when RSI(14) is below 30, sell above 70, stop 10 pips, random forest';

/** The real training, its finished jobs carrying `report` (as the trainer writes it on a done job). */
function withReport(training: Training, report: RobustnessReport): Pick<Training, 'submit' | 'job' | 'finished'> {
  const carry = (job: JobView): JobView => (job.status === 'done' ? { ...job, robustness: report } : job);
  return {
    submit: (caller, request) => training.submit(caller, request),
    job: async (userId, jobId) => carry(await training.job(userId, jobId)),
    finished: async (userId, jobId, onStage) => carry(await training.finished(userId, jobId, onStage)),
  };
}

describe('one_shot: the robustness verdict and deploy_if', () => {
  let sf: TestService;
  let runs: OneShotRuns;
  const driving: OneShot[] = [];

  before(async () => {
    // Webhooks to loopback are allowed: a deploy with a webhook channel makes a signing secret (its receiver need not exist).
    sf = await startTestService({ HISTORY_DAYS: '4', TRUST_PROXY: '1', WEBHOOK_ALLOW_PRIVATE: 'loopback' });
    runs = await OneShotRuns.open(sf.service.bus, 1);
  });
  after(async () => {
    await Promise.all(driving.map((o) => o.recovery.stop()));
    await sf.stop();
  });

  /** What a OneShot works on: the service's parts, its finished train jobs carrying `report`. */
  const depsWith = (report: RobustnessReport): OneShotDeps => {
    const s = sf.service;
    return {
      generation: buildGeneration({
        metering: s.domain.accounts.metering,
        runtime: s.domain.runtime,
        config: loadConfig({ DATA_DIR: sf.dataDir }),
        log: s.log,
      }),
      training: withReport(s.domain.training.training, report),
      jobs: s.domain.training.jobs,
      deployments: s.domain.deployments,
      metering: s.domain.accounts.metering,
      runs,
      checkWebhookTarget: async (url) => url,
      fee: FEE,
      publicUrl: () => sf.url,
      log: s.log,
      pollMs: 200,
    };
  };
  /** A OneShot over the service's parts; `drive`: its recovery runs, claiming the runs it drives, so the service's own never takes them over. */
  const oneShotWith = (report: RobustnessReport, drive = true) => {
    const oneShot = new OneShot(depsWith(report));
    if (drive) {
      void oneShot.recovery.start();
      driving.push(oneShot);
    }
    return oneShot;
  };

  const user = async (name: string): Promise<{ user: UserRecord; key: string }> => {
    const minted = await sf.mintKey(name);
    return { user: sf.service.domain.accounts.directory.get(minted.user_id)!, key: minted.api_key };
  };

  const run = async (oneShot: OneShot, who: UserRecord, request: OneShotRequest): Promise<OneShotEvent[]> => {
    const events: OneShotEvent[] = [];
    for await (const e of await oneShot.start(who, request)) events.push(e);
    return events;
  };

  const balance = async (key: string) => (await sf.api('GET', '/api/v1/key/usage', { key })).body.balance as number;
  const steps = (events: OneShotEvent[]) => events.flatMap((e) => (e.event === 'step' ? [e.data] : []));
  const doneOf = (events: OneShotEvent[]) => {
    const last = events.at(-1)!;
    assert.equal(last.event, 'done', JSON.stringify(last));
    return OneShotDone.parse(last.data);
  };

  it('an overfit verdict with deploy_if not_overfit: said before the deploy step, the model kept but not deployed, the fee refunded, done says why', async () => {
    const { user: who, key } = await user('os_overfit_guard');
    const credits = await balance(key);
    const events = await run(oneShotWith(robustnessReport('overfit')), who, { prompt: PROMPT, deploy_if: 'not_overfit' });
    const done = doneOf(events);

    const said = steps(events).findIndex((s) => s.stage === 'train' && /overfit/.test(s.msg) && s.msg.includes(OVERFIT_REASON));
    assert.ok(said >= 0, `a train step says the verdict with its reasons: ${JSON.stringify(steps(events))}`);
    assert.ok(
      steps(events)
        .slice(0, said)
        .every((s) => s.stage !== 'deploy'),
      'before any deploy step',
    );
    assert.ok(!steps(events).some((s) => /deploying to/.test(s.msg)), 'no deploy was attempted');
    assert.equal(steps(events).at(-1)!.pct, 100, 'the progress ends');

    assert.equal(done.deployed, false);
    assert.equal(done.deployment_id, null);
    assert.equal(done.live_url, null);
    assert.equal(done.next_bar_at, null, 'no bar is awaited for a model kept off live');
    assert.deepEqual(done.channels, []);
    assert.match(done.not_deployed_reason!, /verdict is overfit/);
    assert.ok(done.not_deployed_reason!.includes(OVERFIT_REASON), 'the reason carries the verdict’s reasons');
    assert.match(done.not_deployed_reason!, /deploy_if is not_overfit/);
    assert.equal(done.robustness?.verdict, 'overfit');
    assert.deepEqual(done.robustness?.reasons, robustnessReport('overfit').reasons);
    assert.equal(done.robustness?.dsr, 0.12);

    assert.equal((await sf.api('GET', '/api/v1/deployed', { key })).body.count, 0, 'nothing deployed');
    const models = (await sf.api('GET', '/api/v1/models', { key })).body;
    assert.ok(
      models.models.some((m: { name: string }) => m.name === done.stem),
      'the model is kept',
    );
    const job = (await sf.api('GET', `/api/v1/train/${done.job_id}`, { key })).body;
    assert.equal(job.one_shot.status, 'not_deployed');
    assert.equal(job.one_shot.reason, done.not_deployed_reason);

    assert.equal(done.credits_remaining, await balance(key));
    const spent = credits - done.credits_remaining;
    assert.ok(spent >= 0 && spent < FEE, `only generation is paid for, the fee refunded (spent ${spent})`);
    const usage = (await sf.api('GET', '/api/v1/key/usage', { key })).body;
    assert.ok(
      usage.history.some((h: { reason: string; delta: number }) => h.reason === 'refund' && h.delta === FEE),
      'the fee came back as a refund',
    );

    // Kept, not lost: the trader can still put it live.
    const deploy = await sf.api('POST', '/api/v1/deploy', { key, body: { model_name: done.stem } });
    assert.equal(deploy.status, 200, deploy.text);
  });

  it('an overfit verdict with the default deploy_if: the warning is said before the deploy, and the model goes live as the contract has it', async () => {
    const { user: who, key } = await user('os_overfit_always');
    const asked = Date.now();
    const events = await run(oneShotWith(robustnessReport('overfit')), who, { prompt: PROMPT });
    const done = doneOf(events);
    // done says when the first EURUSD 1-minute bar closes, and on a forex weekend why that is so far off.
    const [earliest, latest] = [nextBarClose('EURUSD', '1min', asked), nextBarClose('EURUSD', '1min', Date.now())];
    assert.ok(
      Date.parse(done.next_bar_at!) >= earliest.closesAt && Date.parse(done.next_bar_at!) <= latest.closesAt,
      `next_bar_at ${done.next_bar_at}`,
    );
    if (earliest.reopensAt !== null && latest.reopensAt !== null) assert.match(done.note ?? '', /shut for the weekend/);
    if (earliest.reopensAt === null && latest.reopensAt === null) assert.equal(done.note, undefined);
    const all = steps(events);
    const warned = all.findIndex((s) => s.stage === 'train' && /^warning: this model looks overfit/.test(s.msg) && /deploy_if/.test(s.msg));
    const deploying = all.findIndex((s) => s.stage === 'deploy');
    assert.ok(warned >= 0 && warned < deploying, `the warning comes before the deploy step: ${JSON.stringify(all)}`);
    assert.equal(done.deployed, true);
    assert.equal(done.not_deployed_reason, null);
    assert.match(done.deployment_id!, /^dep_/);
    assert.match(done.live_url!, /\/api\/v1\/signals\/.+\/stream$/);
    assert.equal(done.robustness?.verdict, 'overfit');
    assert.equal((await sf.api('GET', '/api/v1/deployed', { key })).body.count, 1);
  });

  it('deploy_if robust: an inconclusive verdict is kept off live, a robust one goes live; not_overfit lets an inconclusive one through', async () => {
    // One user each: a free plan's deploy swaps out its earlier deployment.
    const cases = [
      { verdict: 'inconclusive', deploy_if: 'robust', live: false },
      { verdict: 'inconclusive', deploy_if: 'not_overfit', live: true },
      { verdict: 'robust', deploy_if: 'robust', live: true },
    ] as const;
    for (const [i, c] of cases.entries()) {
      const { user: who, key } = await user(`os_guard_${i}`);
      const done = doneOf(await run(oneShotWith(robustnessReport(c.verdict)), who, { prompt: PROMPT, deploy_if: c.deploy_if }));
      const what = `${c.verdict} with deploy_if ${c.deploy_if}`;
      assert.equal(done.deployed, c.live, what);
      assert.equal(done.robustness?.verdict, c.verdict, what);
      const deployed = (await sf.api('GET', '/api/v1/deployed', { key })).body.deployed.map((d: { model: string }) => d.model);
      assert.deepEqual(deployed, c.live ? [done.stem] : [], what);
      if (!c.live) assert.match(done.not_deployed_reason!, new RegExp(`verdict is ${c.verdict}.*deploy_if is ${c.deploy_if}`), what);
    }
  });

  it('after a restart: a run left training whose verdict falls short of its deploy_if is not deployed, its fee refunded, and its job says why', async () => {
    const { user: who, key } = await user('os_overfit_recover');
    const oneShot = oneShotWith(robustnessReport('overfit'), false);
    // What a process that died mid-training leaves: the run in KV, its fee charged, its train job
    // (finished meanwhile: the run is resumed at once, before any other recovery would claim it).
    await sf.service.domain.accounts.metering.charge(who.user_id, FEE, 'one_shot');
    const credits = await balance(key);
    const started = await sf.service.domain.training.training.submit(
      who,
      TrainRequest.parse({ code: strategyCode(), symbol: 'EURUSD', timeframe: '1min' }),
    );
    await sf.service.domain.training.training.finished(who.user_id, started.job_id);
    const left = await runs.create({
      run_id: OneShotRuns.newId(),
      user_id: who.user_id,
      username: who.username,
      plan: who.plan,
      status: 'training',
      fee: FEE,
      channels: ['sse'],
      deploy_if: 'not_overfit',
      webhook_url: null,
      messenger_chat_id: null,
      job_id: started.job_id,
      model_stem: started.model_stem,
      deployment_id: null,
      reason: null,
    });

    await oneShot.recovery.resume(left);

    const job = (await sf.api('GET', `/api/v1/train/${started.job_id}`, { key })).body;
    assert.equal(job.status, 'done', job.error);
    assert.equal(job.one_shot.status, 'not_deployed', JSON.stringify(job.one_shot));
    assert.ok(job.one_shot.reason.includes(OVERFIT_REASON));
    assert.equal((await sf.api('GET', '/api/v1/deployed', { key })).body.count, 0);
    assert.equal(await balance(key), credits + FEE, 'the fee is refunded');
    // Finished: a recovery that finds it a minute later leaves it alone — never claims its lease, no second refund.
    const later = new OneShotRecovery({ ...depsWith(robustnessReport('overfit')), clock: new ReplayClock(left.alive_at + 60_000) });
    await later.start();
    assert.equal(await runs.claims.leases.get(leaseOf(left.run_id)), null, 'no lease is held for a finished run');
    await later.stop();
    assert.equal(await balance(key), credits + FEE, 'refunded once');
  });

  it('after a restart: a run deployed with a webhook channel — its job says a signing secret exists and never shows it; the deployment keeps it', async () => {
    const { user: who, key } = await user('os_webhook_recover');
    const oneShot = oneShotWith(robustnessReport('robust'), false);
    await sf.service.domain.accounts.metering.charge(who.user_id, FEE, 'one_shot');
    const started = await sf.service.domain.training.training.submit(
      who,
      TrainRequest.parse({ code: strategyCode(), symbol: 'EURUSD', timeframe: '1min' }),
    );
    await sf.service.domain.training.training.finished(who.user_id, started.job_id);
    const left = await runs.create({
      run_id: OneShotRuns.newId(),
      user_id: who.user_id,
      username: who.username,
      plan: who.plan,
      status: 'training',
      fee: FEE,
      channels: ['sse', 'webhook'],
      deploy_if: 'always',
      webhook_url: 'http://127.0.0.1:9/hook',
      messenger_chat_id: null,
      job_id: started.job_id,
      model_stem: started.model_stem,
      deployment_id: null,
      reason: null,
    });

    await oneShot.recovery.resume(left);

    const deployment = await sf.service.domain.deployments.find(who.user_id, started.model_stem);
    assert.match(deployment.webhook_secret ?? '', /^whsec_/, 'delivery signs with the deployment’s secret');
    const res = await sf.api('GET', `/api/v1/train/${started.job_id}`, { key });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.one_shot.status, 'deployed', JSON.stringify(res.body.one_shot));
    assert.equal(res.body.one_shot.deployment_id, deployment.deployment_id);
    assert.equal(res.body.one_shot.webhook_secret_set, true);
    assert.ok(!res.text.includes(deployment.webhook_secret!) && !/whsec_/.test(res.text), res.text.slice(0, 400));
    // Nor is it kept on the job record, where any later view or log of the job could show it.
    assert.ok(!/whsec_/.test(JSON.stringify(await sf.service.domain.training.jobs.get(started.job_id))));
  });

  it('POST /one_shot refuses a deploy_if it does not know, naming the field and the values, before anything is charged', async () => {
    const { key } = await user('os_bad_guard');
    const credits = await balance(key);
    const res = await sf.api('POST', '/api/v1/one_shot', { key, body: { prompt: 'anything', deploy_if: 'sometimes' } });
    assert.equal(res.status, 400, res.text);
    assert.match(res.body.error, /deploy_if/);
    assert.match(res.body.error, /not_overfit/);
    assert.equal(await balance(key), credits);
  });
});
