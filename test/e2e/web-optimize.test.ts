import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { OptimizeJobView } from '../../schemas/optimize.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { trainModel } from '../helpers/training.ts';
import { freshPage, launchBrowser, type WatchedPage } from '../helpers/browser.ts';

/**
 * The optimisation page in a real browser, against the real service (optimisation jobs run in the
 * real sandbox): the search space as a form, POST /optimize from it, progress over the job's SSE
 * stream, every trial, the chosen one, the in-sample/out-of-sample scatter, PBO, and saving the
 * chosen trial as a model. Screenshots in test-output/web/.
 */

describe('the optimisation page in a browser', () => {
  let sf: TestService;
  let browser: Browser;
  let key: string;
  let stem: string;

  async function openOptimizePage(): Promise<WatchedPage> {
    const watched = await freshPage(browser);
    await watched.context.addInitScript((k) => localStorage.setItem('sf_api_key', k), key);
    await watched.page.goto(`${sf.url}/models/${encodeURIComponent(stem)}/optimize`);
    await watched.page.waitForSelector('body[data-ready="1"]', { timeout: 30_000 });
    return watched;
  }

  before(async () => {
    [sf, browser] = await Promise.all([
      startTestService({ TRIAL_MINTS_PER_HOUR: '100', HISTORY_DAYS: '4', TRIAL_CREDITS: '1000' }),
      launchBrowser(),
    ]);
    key = (await sf.mintKey('optimiser')).api_key;
    stem = (await trainModel(sf, key)).model_stem;
  });
  after(async () => {
    await browser?.close();
    await sf?.stop();
  });

  it('the model page links to its optimisation page, whose form offers the engine parameters switched on', async () => {
    const watched = await freshPage(browser);
    await watched.context.addInitScript((k) => localStorage.setItem('sf_api_key', k), key);
    await watched.page.goto(`${sf.url}/models/${encodeURIComponent(stem)}`);
    await watched.page.waitForSelector('body[data-ready="1"]', { timeout: 30_000 });
    await Promise.all([watched.page.waitForURL(/\/optimize$/), watched.page.click('#optimize-link')]);
    await watched.page.waitForSelector('body[data-ready="1"]', { timeout: 30_000 });
    const on = await watched.page.$$eval('#optimize-form tbody tr', (trs) =>
      trs.filter((tr) => (tr.querySelector('input[type=checkbox]') as HTMLInputElement).checked).map((tr) => tr.getAttribute('data-param')),
    );
    assert.deepEqual(on, ['confidence_threshold', 'stop_loss', 'take_profit']);
    // 0.5..0.8 by 0.05 (7) × 10..40 by 10 (4) × 20..80 by 20 (4).
    await watched.page.selectOption('select[name=method]', 'grid');
    assert.equal(await watched.page.textContent('#space-size'), 'A grid of 112 combinations.');
    assert.deepEqual(watched.problems, []);
  });

  it('a parameter the strategy does not have is refused with the service’s message, and nothing starts', async () => {
    const { page, problems } = await openOptimizePage();
    await page.click('#optimize-form button:text-is("Add a parameter")');
    const custom = page.locator('#optimize-form tbody tr').last();
    await custom.locator('input[data-field=name]').fill('indicators.no_such_period');
    await custom.locator('input[data-field=low]').fill('5');
    await custom.locator('input[data-field=high]').fill('20');
    await page.click('#start-optimize');
    await page.waitForSelector('#optimize-status.error');
    const error = (await page.textContent('#optimize-status'))!;
    assert.match(error, /indicators\.no_such_period/, error);
    assert.match(error, /HTTP 422/);
    assert.equal(await page.locator('#optimize-job h2').count(), 0, 'no job is followed');
    // A 422 is the answer under test; the browser logs the failed request as a console error.
    assert.deepEqual(
      problems.filter((p) => !/status of 422/.test(p)),
      [],
    );
  });

  it('starts an optimisation, shows its progress from the stream, then every trial, the chosen one, the scatter and PBO; the chosen trial saves as a model', async () => {
    const { page, problems, screenshot } = await openOptimizePage();
    await page.selectOption('select[name=method]', 'random');
    await page.fill('input[name=trials]', '24');
    await page.fill('input[name=optimization]', 'maximise profit factor');
    // Every stage line the page shows is recorded: the progress events arrive before the result.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { stages: string[] }).stages = seen;
      new MutationObserver(() => {
        const text = document.getElementById('optimize-stage')?.textContent;
        if (text && seen.at(-1) !== text) seen.push(text);
      }).observe(document.getElementById('optimize-job')!, { subtree: true, childList: true, characterData: true });
    });
    await page.click('#start-optimize');
    await page.waitForSelector('#objective-echo');
    assert.equal(await page.textContent('#objective-echo'), 'Objective read as: Maximise the profit factor (pf).');
    const id = Number(await page.getAttribute('#optimize-job', 'data-optimize-id'));
    assert.ok(id > 0);
    assert.equal(new URL(page.url()).search, `?id=${id}`, 'the page can be reopened on this job');
    await page.waitForFunction(
      () => ['done', 'failed', 'cancelled'].includes(document.getElementById('optimize-job')?.dataset.status ?? ''),
      undefined,
      { timeout: 240_000 },
    );
    const stages = await page.evaluate(() => (window as unknown as { stages: string[] }).stages);
    assert.ok(
      stages.length >= 1 && stages.every((s) => /^(queued|running|done)\b.* \d+ of 24 trials run/.test(s)),
      `progress was shown: ${JSON.stringify(stages)}`,
    );

    const view = OptimizeJobView.parse((await sf.api('GET', `/api/v1/optimize/${id}`, { key })).body);
    assert.equal(view.status, 'done', view.error);
    assert.equal(await page.getAttribute('#optimize-job', 'data-status'), 'done');
    // Every trial is listed, the chosen one marked.
    const rows = await page.$$eval('#optimize-job .trial-list tbody tr', (trs) =>
      trs.map((tr) => ({ trial: Number(tr.getAttribute('data-trial')), chosen: tr.classList.contains('chosen') })),
    );
    assert.deepEqual(
      rows.map((r) => r.trial).sort((a, b) => a - b),
      view.trials.map((t) => t.trial).sort((a, b) => a - b),
    );
    assert.ok(view.chosen_trial !== null, 'a trial was chosen');
    assert.deepEqual(
      rows.filter((r) => r.chosen).map((r) => r.trial),
      [view.chosen_trial],
    );
    assert.match((await page.textContent('#chosen-trial'))!, new RegExp(`Chosen: trial #${view.chosen_trial}`));
    // The scatter: a point per trial with both scores, the chosen one highlighted.
    const scored = view.trials.filter((t) => t.value !== null && t.out_of_sample);
    const scatter = await page.$eval('#optimize-job svg.plot', (svg) => ({
      points: Number((svg as SVGSVGElement).dataset.points),
      circles: svg.querySelectorAll('.points circle').length,
      highlighted: [...svg.querySelectorAll('.points circle.highlighted')].map((c) => c.getAttribute('data-id')),
    }));
    assert.deepEqual(scatter, { points: scored.length, circles: scored.length, highlighted: [String(view.chosen_trial)] });
    // PBO: its value, and a histogram of every logit when it was computed.
    if (view.pbo) {
      assert.match((await page.textContent('#pbo-value'))!, new RegExp(`^PBO ${view.pbo.pbo.toFixed(2)}`));
      const counted = await page.$$eval('#pbo svg .bins rect', (rects) =>
        rects.reduce((n, r) => n + Number(r.getAttribute('data-count')), 0),
      );
      assert.equal(counted, view.pbo.logits.length);
    } else {
      assert.match((await page.textContent('#pbo'))!, /Not computed/);
    }
    await screenshot('optimize-done');

    await page.fill('#save-name', 'optimised_copy');
    await page.click('#save-trial');
    await page.waitForURL(/\/models\/\d+_EURUSD_1min_optimised_copy$/, { timeout: 120_000 });
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30_000 });
    assert.equal(await page.locator('#robustness').count(), 1, 'the saved model’s page has its robustness section');
    const saved = OptimizeJobView.parse((await sf.api('GET', `/api/v1/optimize/${id}`, { key })).body).saved;
    assert.equal(saved?.model_name, 'optimised_copy');
    // The model page shows the optimisation it came from: its scatter, its PBO, a link back to the job.
    await page.waitForSelector('#optimisation #is-oos svg.plot');
    assert.equal(Number(await page.getAttribute('#optimisation #is-oos svg.plot', 'data-points')), scored.length);
    assert.equal(
      await page.getAttribute('#optimisation h2 a', 'href'),
      `/models/${encodeURIComponent(saved!.model_stem)}/optimize?id=${id}`,
    );
    assert.equal(await page.locator('#optimisation #pbo').count(), 1);
    await screenshot('optimize-saved-model');
    assert.deepEqual(problems, []);

    // The link is the model's own (results.optimization), not this browser's memory of the save: a new browser shows it too.
    const other = await freshPage(browser);
    await other.context.addInitScript((k) => localStorage.setItem('sf_api_key', k), key);
    await other.page.goto(`${sf.url}/models/${encodeURIComponent(saved!.model_stem)}`);
    await other.page.waitForSelector('#optimisation h2 a', { timeout: 30_000 });
    assert.equal(
      await other.page.getAttribute('#optimisation h2 a', 'href'),
      `/models/${encodeURIComponent(saved!.model_stem)}/optimize?id=${id}`,
    );
    assert.deepEqual(other.problems, []);
    await other.context.close();
  });

  it('an objective the service cannot read is shown as text in its 422', async () => {
    const { page, problems } = await openOptimizePage();
    await page.fill('input[name=optimization]', 'maximise <img src=x onerror=alert(1)> luck');
    await page.click('#start-optimize');
    await page.waitForSelector('#optimize-status.error');
    assert.match((await page.textContent('#optimize-status'))!, /HTTP 422/);
    assert.equal(await page.locator('#optimize img').count(), 0, 'no element came from the objective');
    assert.deepEqual(
      problems.filter((p) => !/status of 422/.test(p)),
      [],
      'no dialog opened',
    );
  });

  it('cancelling a running optimisation from the page ends it cancelled, with the trials not run refunded', async () => {
    const { page, problems, screenshot } = await openOptimizePage();
    // Model parameters refit the fold models for every value: slow enough to cancel midway.
    await page.check('tr[data-param="model_params.n_estimators"] input[type=checkbox]');
    await page.selectOption('select[name=method]', 'random');
    await page.fill('input[name=trials]', '40');
    await page.fill('input[name=optimization]', 'sharpe');
    await page.click('#start-optimize');
    await page.waitForSelector('#cancel-optimize, #optimize-status.error');
    assert.equal(await page.locator('#optimize-status.error').count(), 0, (await page.textContent('#optimize-status'))!);
    const id = Number(await page.getAttribute('#optimize-job', 'data-optimize-id'));
    // Cancelled while it runs (its progress says so), not while it waits in the queue.
    await page.waitForSelector('#optimize-job[data-status="running"]', { timeout: 60_000 });
    await page.click('#cancel-optimize');
    await page.waitForFunction(
      () => ['done', 'failed', 'cancelled'].includes(document.getElementById('optimize-job')?.dataset.status ?? ''),
      undefined,
      { timeout: 240_000 },
    );
    const view = OptimizeJobView.parse((await sf.api('GET', `/api/v1/optimize/${id}`, { key })).body);
    assert.equal(view.status, 'cancelled');
    assert.equal(await page.getAttribute('#optimize-job', 'data-status'), 'cancelled');
    assert.ok(view.credits_refunded > 0, 'trials were left unrun');
    assert.match(
      (await page.textContent('#optimize-summary'))!,
      new RegExp(`${view.credits_charged} credits charged, ${view.credits_refunded} refunded$`),
    );
    assert.equal(
      await page.locator('#optimize-job .trial-list tbody tr').count(),
      Math.min(50, view.trials.length),
      'the trials that ran are listed',
    );
    await screenshot('optimize-cancelled');
    assert.deepEqual(problems, []);
  });
});
