/**
 * POST /optimize → GET /optimize/{id} (and its SSE stream) → DELETE, over real HTTP on the real
 * service: real EURUSD ticks of 2014-05-01 → 09 imported (no live feed), the sandboxed fit with its
 * walk-forward fold models, optuna in the sandbox, the position engine's sweep, credits in KV.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OptimizeJobView, OptimizeStart } from '../../schemas/optimize.ts';
import { ENGINE_TRIAL_CREDITS, MODEL_TRIAL_CREDITS } from '../../src/optimize/index.ts';
import { startFixedMarketService } from '../helpers/fixed-market.ts';
import type { TestService } from '../helpers/service.ts';
import { codeHeader } from '../../src/sandbox/code-header.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { waitForJob } from '../helpers/training.ts';

const SPAN = { symbol: 'EURUSD', timeframe: '15min', start_date: '2014-05-01', end_date: '2014-05-09' };
const CODE = strategyCode({ params: '{"n_estimators": 20, "max_depth": 4}' });
const WF = { folds: 3, scheme: 'anchored', embargo: 0 };

/** An engine-only space: levels (pips), threshold and cooldown. */
const ENGINE_SPACE = {
  stop_loss: { type: 'float', low: 5, high: 25, step: 10 },
  take_profit: { type: 'choice', values: [5, 15] },
  confidence_threshold: { type: 'float', low: 0.5, high: 0.56, step: 0.03 },
  cooldown: { type: 'choice', values: [0, 4] },
};

async function balance(sf: TestService, key: string): Promise<number> {
  const res = await sf.api('GET', '/api/v1/key/usage', { key });
  assert.equal(res.status, 200, res.text);
  return res.body.balance as number;
}

async function waitForEnd(sf: TestService, key: string, id: number, timeoutMs = 240_000): Promise<OptimizeJobView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await sf.api('GET', `/api/v1/optimize/${id}`, { key });
    assert.equal(res.status, 200, res.text);
    const job = OptimizeJobView.parse(res.body);
    if (job.status !== 'queued' && job.status !== 'running') return job;
    if (Date.now() > deadline) throw new Error(`optimisation ${id} still ${job.status} (${job.stage}), ${job.trials_done} trials done`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('optimisation over HTTP', () => {
  let sf: TestService;
  let key: string;
  let other: string;
  let done: OptimizeJobView;

  before(async () => {
    // Webhooks to loopback are allowed: a deploy with a webhook channel makes a signing secret (its receiver need not exist).
    sf = await startFixedMarketService({ TRUST_PROXY: '1', WEBHOOK_ALLOW_PRIVATE: 'loopback' });
    key = (await sf.mintKey('optimiser_one')).api_key;
    other = (await sf.mintKey('optimiser_two')).api_key;
  });
  after(() => sf.stop());

  it('401 without a key', async () => {
    const res = await sf.api('POST', '/api/v1/optimize', { body: { code: CODE, ...SPAN, parameters: ENGINE_SPACE } });
    assert.equal(res.status, 401, res.text);
  });

  it('an engine-only grid on real bars completes with every trial’s metrics, the chosen trial and PBO; charged once by its size', async () => {
    const before = await balance(sf, key);
    const res = await sf.api('POST', '/api/v1/optimize', {
      key,
      body: {
        code: CODE,
        ...SPAN,
        parameters: ENGINE_SPACE,
        method: 'grid',
        optimization: 'maximise return',
        walk_forward: WF,
        risk_unit: 'pips',
      },
    });
    assert.equal(res.status, 200, res.text);
    const start = OptimizeStart.parse(res.body);
    const grid = 3 * 2 * 3 * 2;
    assert.equal(start.trials_planned, grid);
    assert.equal(start.credits_charged, grid * ENGINE_TRIAL_CREDITS);
    assert.equal(start.objective.metric, 'ret');
    assert.deepEqual(start.market, { symbol: 'EURUSD', timeframe: '15min', symbol_from: 'request', timeframe_from: 'request' });
    assert.equal(await balance(sf, key), before - grid * ENGINE_TRIAL_CREDITS);

    done = await waitForEnd(sf, key, start.optimize_id);
    assert.equal(done.status, 'done', done.error);
    assert.equal(done.trials.length, grid);
    assert.equal(done.trials_failed, 0);
    assert.equal(done.folds.length, 3);
    // Every combination once, each with in- and out-of-sample metrics.
    assert.equal(new Set(done.trials.map((t) => JSON.stringify(t.params))).size, grid);
    for (const t of done.trials) {
      assert.equal(t.state, 'done');
      assert.ok(t.in_sample && t.out_of_sample, `trial ${t.trial} has its metrics`);
      assert.equal(t.value, t.in_sample.ret, 'the objective is the in-sample return');
    }
    // The chosen trial is the best in-sample.
    const best = Math.max(...done.trials.map((t) => t.value!));
    assert.notEqual(done.chosen_trial, null);
    assert.equal(done.trials[done.chosen_trial!]!.value, best);
    assert.ok(done.pbo, 'PBO measured');
    assert.ok(done.pbo.pbo >= 0 && done.pbo.pbo <= 1);
    assert.ok(done.pbo.logits.length > 0);
    assert.ok(done.walk_forward && done.walk_forward.steps.length === 2);
    assert.ok(done.robustness, 'the chosen trial has its robustness report');
    assert.equal(done.robustness.sharpe.trials, grid, 'N = the trials run');
    // A grid that ran every point refunds nothing.
    assert.equal(done.credits_refunded, 0);
    assert.equal(await balance(sf, key), before - grid * ENGINE_TRIAL_CREDITS);
  });

  it('another user’s optimisation is 404, on every route', async () => {
    const id = done.optimize_id;
    for (const [method, path] of [
      ['GET', `/api/v1/optimize/${id}`],
      ['GET', `/api/v1/optimize/${id}/stream`],
      ['DELETE', `/api/v1/optimize/${id}`],
    ] as const) {
      const res = await sf.api(method, path, { key: other });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
    }
    const save = await sf.api('POST', `/api/v1/optimize/${id}/save`, { key: other, body: { model_name: 'stolen' } });
    assert.equal(save.status, 404, save.text);
  });

  it('saves the chosen trial as a model through training: its levels and threshold are the model’s settings', async () => {
    const res = await sf.api('POST', `/api/v1/optimize/${done.optimize_id}/save`, { key, body: { model_name: 'optimised' } });
    assert.equal(res.status, 200, res.text);
    const view = OptimizeJobView.parse(res.body);
    assert.ok(view.saved, 'the saved model is on the job');
    const job = await waitForJob(sf, key, view.saved.train_job_id, 180_000);
    assert.equal(job.status, 'done', job.error);
    const results = await sf.api('GET', '/api/v1/results/optimised', { key });
    assert.equal(results.status, 200, results.text);
    const chosen = done.trials[done.chosen_trial!]!.params;
    assert.equal(results.body.settings.stop_loss, chosen.stop_loss);
    assert.equal(results.body.settings.take_profit, chosen.take_profit);
    assert.equal(results.body.settings.confidence_threshold, chosen.confidence_threshold);
    assert.equal(results.body.settings.risk_unit, 'pips');
    // The model is the best of the optimisation's trials: its deflated Sharpe counts them all (the account trained nothing else of it).
    const from = { optimize_id: done.optimize_id, trial: done.chosen_trial!, trials_run: done.trials.length };
    assert.equal(results.body.robustness.sharpe.trials, done.trials.length, 'N = the optimisation’s trials run');
    // ... and it says where it came from, in its results and in the model list.
    assert.deepEqual(results.body.optimization, from);
    const models = await sf.api('GET', '/api/v1/models', { key });
    assert.equal(models.status, 200, models.text);
    assert.deepEqual(models.body.models.find((m: { model_name: string }) => m.model_name === 'optimised').optimization, from);
  });

  it('the stream of a finished job sends its progress and then done with the job', async () => {
    const res = await fetch(`${sf.url}/api/v1/optimize/${done.optimize_id}/stream`, { headers: { 'x-api-key': key } });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /event: progress/);
    const last = text.trim().split('\n\n').at(-1)!;
    assert.match(last, /^event: done/);
    const view = OptimizeJobView.parse(
      JSON.parse(
        last
          .split('\n')
          .find((l) => l.startsWith('data: '))!
          .slice(6),
      ),
    );
    assert.equal(view.chosen_trial, done.chosen_trial);
  });

  it('422s: an empty space, a 10^12 grid with its size and the maximum, an unknown parameter named, an unparseable objective listing the metrics, 400 for a symbol other than the code header’s; none charges', async () => {
    const before = await balance(sf, key);
    const post = (body: Record<string, unknown>) =>
      sf.api('POST', '/api/v1/optimize', { key, body: { code: CODE, ...SPAN, walk_forward: WF, ...body } });

    const empty = await post({ parameters: {} });
    assert.equal(empty.status, 422, empty.text);
    assert.match(empty.body.error, /empty/);

    // 10^6 stop levels × 10^6 take levels (pips, in bounds each).
    const huge = Object.fromEntries(['stop_loss', 'take_profit'].map((p) => [p, { type: 'int', low: 1, high: 1_000_000 }]));
    const grid = await post({ parameters: huge, method: 'grid' });
    assert.equal(grid.status, 422, grid.text);
    assert.match(grid.body.error, /1,000,000,000,000 combinations/);
    assert.match(grid.body.error, /maximum is 10,000/);

    const unknown = await post({ parameters: { stop_loss: ENGINE_SPACE.stop_loss, lookback_window: { type: 'int', low: 5, high: 20 } } });
    assert.equal(unknown.status, 422, unknown.text);
    assert.match(unknown.body.error, /lookback_window/);

    // An indicator period this code does not read (its strategy_config() returns no "indicators"): refused, saying how to make it tunable.
    const indicator = await post({ parameters: { 'indicators.rsi_period': { type: 'int', low: 5, high: 20 } } });
    assert.equal(indicator.status, 422, indicator.text);
    assert.match(
      indicator.body.error,
      /indicators\.rsi_period: the strategy does not read it .*strategy_config\(\)\["indicators"\]\["rsi_period"\]/,
    );

    // A symbol other than the code header's: 400 naming both.
    const market = await post({ code: `${codeHeader('GBPUSD', '15min')}\n${CODE}`, parameters: ENGINE_SPACE });
    assert.equal(market.status, 400, market.text);
    assert.match(market.body.error, /symbol EURUSD does not match the code, which was generated for GBPUSD: optimise it on GBPUSD/);

    const objective = await post({ parameters: ENGINE_SPACE, optimization: 'make me rich quickly' });
    assert.equal(objective.status, 422, objective.text);
    for (const metric of ['pf', 'sharpe', 'ret', 'mdd']) assert.match(objective.body.error, new RegExp(`\\b${metric}\\b`));

    assert.equal(await balance(sf, key), before, 'a refused request costs nothing');
  });

  it('402 when the balance is short of the size, charging nothing', async () => {
    const left = await balance(sf, key);
    const res = await sf.api('POST', '/api/v1/optimize', {
      key,
      body: {
        code: CODE,
        ...SPAN,
        parameters: { cooldown: { type: 'int', low: 0, high: 50 } },
        method: 'random',
        trials: left + 1,
        walk_forward: WF,
      },
    });
    assert.equal(res.status, 402, res.text);
    assert.equal(await balance(sf, key), left);
  });

  it('DELETE cancels a running optimisation and refunds exactly the trials not run', async () => {
    const canceller = (await sf.mintKey('optimiser_three')).api_key;
    const before = await balance(sf, canceller);
    const trials = 40;
    // The body names no market: the code's header line does.
    const res = await sf.api('POST', '/api/v1/optimize', {
      key: canceller,
      body: {
        code: `${codeHeader('EURUSD', '15min')}\n${CODE}`,
        start_date: SPAN.start_date,
        end_date: SPAN.end_date,
        parameters: { confidence_threshold: { type: 'float', low: 0.5, high: 0.7 }, cooldown: { type: 'int', low: 0, high: 20 } },
        method: 'tpe',
        trials,
        walk_forward: WF,
      },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(OptimizeStart.parse(res.body).market, {
      symbol: 'EURUSD',
      timeframe: '15min',
      symbol_from: 'code header',
      timeframe_from: 'code header',
    });
    const id = res.body.optimize_id as number;
    assert.equal(await balance(sf, canceller), before - trials * ENGINE_TRIAL_CREDITS);
    // One optimisation at a time on the free plan: a second is 429 and charges nothing.
    const second = await sf.api('POST', '/api/v1/optimize', {
      key: canceller,
      body: { code: CODE, ...SPAN, parameters: { cooldown: { type: 'int', low: 0, high: 5 } }, method: 'grid', walk_forward: WF },
    });
    assert.equal(second.status, 429, second.text);
    assert.ok(second.headers.get('retry-after'));
    assert.equal(await balance(sf, canceller), before - trials * ENGINE_TRIAL_CREDITS);
    // Wait for the first batch, then cancel mid-way.
    const deadline = Date.now() + 180_000;
    for (;;) {
      const job = OptimizeJobView.parse((await sf.api('GET', `/api/v1/optimize/${id}`, { key: canceller })).body);
      if (job.trials.length > 0) break;
      assert.ok(job.status === 'queued' || job.status === 'running', job.error);
      assert.ok(Date.now() < deadline, 'the first trials were recorded');
      await new Promise((r) => setTimeout(r, 100));
    }
    const cancel = await sf.api('DELETE', `/api/v1/optimize/${id}`, { key: canceller });
    assert.equal(cancel.status, 200, cancel.text);
    const view = OptimizeJobView.parse(cancel.body);
    assert.equal(view.status, 'cancelled');
    const run = view.trials.length;
    assert.ok(run > 0 && run < trials, `${run} of ${trials} trials ran before the cancel`);
    assert.equal(view.credits_refunded, (trials - run) * ENGINE_TRIAL_CREDITS);
    assert.equal(await balance(sf, canceller), before - run * ENGINE_TRIAL_CREDITS);

    const again = await sf.api('DELETE', `/api/v1/optimize/${id}`, { key: canceller });
    assert.equal(again.status, 409, again.text);
    assert.equal(await balance(sf, canceller), before - run * ENGINE_TRIAL_CREDITS, 'refunded once');
  });

  it('a trial whose fit fails is reported failed with its error while the rest finish', async () => {
    const minted = await sf.mintKey('optimiser_four');
    const user = minted.api_key;
    // max_samples needs bootstrap: the fit of every trial with bootstrap false raises in sklearn.
    const code = strategyCode({ params: '{"n_estimators": 10, "max_depth": 3, "max_samples": 0.5}' });
    const res = await sf.api('POST', '/api/v1/optimize', {
      key: user,
      body: {
        code,
        ...SPAN,
        parameters: {
          'model_params.bootstrap': { type: 'choice', values: [true, false] },
          confidence_threshold: { type: 'choice', values: [0.5, 0.55] },
        },
        method: 'grid',
        walk_forward: WF,
        // Saved and deployed in the same call, once done; with a webhook channel, so the deployment has a signing secret.
        save_as: 'optimised_fit',
        deploy: { channels: ['sse', 'webhook'], webhook_url: 'http://127.0.0.1:9/hook' },
      },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.credits_charged, 4 * MODEL_TRIAL_CREDITS);
    const job = await waitForEnd(sf, user, res.body.optimize_id);
    assert.equal(job.status, 'done', job.error);
    assert.equal(job.trials.length, 4);
    for (const t of job.trials) {
      if (t.params['model_params.bootstrap'] === false) {
        assert.equal(t.state, 'failed');
        assert.match(t.error ?? '', /max_samples|bootstrap/);
        assert.equal(t.in_sample, null);
      } else {
        assert.equal(t.state, 'done', t.error);
        assert.ok(t.in_sample && t.out_of_sample);
      }
    }
    assert.equal(job.trials_failed, 2);
    assert.notEqual(job.chosen_trial, null);
    assert.equal(job.trials[job.chosen_trial!]!.params['model_params.bootstrap'], true);
    // Failed trials ran: nothing is refunded.
    assert.equal(job.credits_refunded, 0);

    // The chosen trial (its model override included) was saved as a model, trained and deployed.
    const deadline = Date.now() + 240_000;
    let saved = job.saved;
    while (!saved?.deployment_id && !saved?.deploy_error) {
      assert.ok(Date.now() < deadline, `saved: ${JSON.stringify(saved)}`);
      await new Promise((r) => setTimeout(r, 500));
      saved = OptimizeJobView.parse((await sf.api('GET', `/api/v1/optimize/${job.optimize_id}`, { key: user })).body).saved;
    }
    assert.equal(saved.deploy_error, undefined, saved.deploy_error);
    assert.equal(saved.model_name, 'optimised_fit');
    const trained = await waitForJob(sf, user, saved.train_job_id);
    assert.equal(trained.status, 'done', trained.error);
    const deployed = await sf.api('GET', '/api/v1/deployed', { key: user });
    assert.equal(deployed.status, 200, deployed.text);
    assert.ok(JSON.stringify(deployed.body).includes(saved.deployment_id!), deployed.text);
    // The secret stays on the deployment, where delivery signs with it; the job views say it exists and never show it.
    const deployment = await sf.service.domain.deployments.find(minted.user_id, saved.model_stem);
    assert.match(deployment.webhook_secret ?? '', /^whsec_/);
    assert.equal(saved.webhook_secret_set, true);
    for (const path of [`/api/v1/optimize/${job.optimize_id}`, `/api/v1/train/${saved.train_job_id}`]) {
      const view = await sf.api('GET', path, { key: user });
      assert.equal(view.status, 200, view.text);
      assert.ok(
        !view.text.includes(deployment.webhook_secret!) && !/whsec_/.test(view.text),
        `${path} shows no secret: ${view.text.slice(0, 300)}`,
      );
    }
    const stream = await (await fetch(`${sf.url}/api/v1/optimize/${job.optimize_id}/stream`, { headers: { 'x-api-key': user } })).text();
    assert.ok(!/whsec_/.test(stream), 'nor does the stream');
  });

  it('a job whose process stops is resumed from its stored trials after the restart and completes, charged once', async () => {
    const user = (await sf.mintKey('optimiser_five')).api_key;
    const before = await balance(sf, user);
    const trials = 48;
    const res = await sf.api('POST', '/api/v1/optimize', {
      key: user,
      body: {
        code: CODE,
        ...SPAN,
        parameters: { confidence_threshold: { type: 'float', low: 0.5, high: 0.7 }, cooldown: { type: 'int', low: 0, high: 20 } },
        method: 'tpe',
        trials,
        walk_forward: WF,
      },
    });
    assert.equal(res.status, 200, res.text);
    const id = res.body.optimize_id as number;
    let seen: OptimizeJobView;
    for (;;) {
      seen = OptimizeJobView.parse((await sf.api('GET', `/api/v1/optimize/${id}`, { key: user })).body);
      if (seen.trials.length > 0) break;
      assert.equal(seen.status === 'queued' || seen.status === 'running', true, seen.error);
      await new Promise((r) => setTimeout(r, 100));
    }
    await sf.restart();
    const job = await waitForEnd(sf, user, id);
    assert.ok(seen.trials.length < trials, `the restart came after ${seen.trials.length} of ${trials} trials`);
    assert.equal(job.status, 'done', job.error);
    assert.equal(job.trials.length, trials);
    assert.deepEqual(
      job.trials.slice(0, seen.trials.length).map((t) => t.params),
      seen.trials.map((t) => t.params),
      'the trials before the restart are kept',
    );
    assert.equal(job.credits_refunded, 0);
    assert.equal(await balance(sf, user), before - trials * ENGINE_TRIAL_CREDITS);
  });
});
