import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { openBlobStore, openBucket, type BlobStore } from '../../src/bus/index.ts';
import { userNameKey } from '../../src/lib/user-keys.ts';
import { ModelStore } from '../../src/training/model-store.ts';
import { Buckets, ObjectStores } from '../../schemas/messages.ts';
import { Results, type ModelRecord } from '../../schemas/training.ts';
import type { RobustnessReport } from '../../schemas/robustness.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { trainModel } from '../helpers/training.ts';
import { freshPage, launchBrowser, type WatchedPage } from '../helpers/browser.ts';
import { BASELINE_COUNTS, FOLD_RETURNS, HOSTILE_REASON, STRATEGY_BIN, robustnessFixture } from '../helpers/robustness-fixture.ts';

/**
 * The model page's robustness panel ("Is the edge real?") in a real browser, against the real
 * service: a trained model whose stored results carry a known report (planted in the service's
 * own artifact store, where training keeps results.json) shows its verdict, reasons, folds, Monte
 * Carlo fan and random-entry histogram as the report says; the same model without a report (one
 * trained before reports existed) shows the note instead. Screenshots in test-output/web/.
 */

const UP = '#22c55e';
const DOWN = '#ef4444';

describe('the model page’s robustness panel in a browser', () => {
  let sf: TestService;
  let browser: Browser;
  let key: string;
  let record: ModelRecord;
  let artifacts: BlobStore;
  let stored: Results;

  /** Rewrites the model's results.json in the artifact store, with `robustness` set or removed. */
  async function plant(robustness: RobustnessReport | undefined): Promise<void> {
    const { robustness: _, ...rest } = stored;
    const results = Results.parse(robustness ? { ...rest, robustness } : rest);
    await artifacts.put(
      `${userNameKey(record.user_id, record.model_name)}/${record.artifact}/results.json`,
      Buffer.from(JSON.stringify(results), 'utf8'),
    );
  }

  async function openModelPage(): Promise<WatchedPage> {
    const watched = await freshPage(browser);
    await watched.context.addInitScript((k) => localStorage.setItem('sf_api_key', k), key);
    await watched.page.goto(`${sf.url}/models/${encodeURIComponent(record.stem)}`);
    await watched.page.waitForSelector('body[data-ready="1"]', { timeout: 30_000 });
    return watched;
  }

  before(async () => {
    [sf, browser] = await Promise.all([startTestService({ TRIAL_MINTS_PER_HOUR: '100' }), launchBrowser()]);
    const minted = await sf.mintKey('robust_owner');
    key = minted.api_key;
    const job = await trainModel(sf, key);
    const bus = sf.service.bus;
    const store = await ModelStore.open(bus, await openBucket(bus, Buckets.models), await openBucket(bus, Buckets.signals));
    record = (await store.resolve(minted.user_id, job.model_name))!;
    assert.ok(record, 'the trained model is in the store');
    stored = Results.parse(JSON.parse(await store.resultsJson(record)));
    artifacts = await openBlobStore(bus, ObjectStores.artifacts);
  });
  after(async () => {
    await browser?.close();
    await sf?.stop();
  });

  it('a freshly trained model shows the report its training made', async () => {
    const served = Results.parse((await sf.api('GET', `/api/v1/results/${encodeURIComponent(record.stem)}`, { key })).body);
    assert.ok(served.robustness, 'training made a robustness report');
    const { page, problems } = await openModelPage();
    assert.equal(await page.getAttribute('#robustness h2 .verdict', 'data-verdict'), served.robustness.verdict);
    assert.deepEqual(await page.$$eval('#verdict-reasons li', (lis) => lis.map((li) => li.textContent)), served.robustness.reasons);
    assert.equal(await page.textContent('#significance tr:has-text("N trials") td.value'), String(served.robustness.sharpe.trials));
    assert.equal(
      await page.locator('#monte-carlo svg.plot, #monte-carlo p.muted:has-text("Too few trades")').count(),
      1,
      'the fan, or why there is none',
    );
    assert.deepEqual(problems, []);
  });

  it('shows the verdict with its reasons as text, the folds, the fan, the random-entry histogram with the strategy’s mark, and the Sharpe figures', async () => {
    const report = robustnessFixture('overfit', stored.settings.capital);
    await plant(report);
    assert.deepEqual(
      (await sf.api('GET', `/api/v1/results/${encodeURIComponent(record.stem)}`, { key })).body.robustness,
      report,
      'the service serves the planted report',
    );
    const { page, problems, screenshot } = await openModelPage();

    // The verdict: a badge at the top and in the panel, the reasons word for word, markup as text.
    assert.equal(await page.getAttribute('.verdict-line .verdict', 'data-verdict'), 'overfit');
    assert.equal(await page.textContent('.verdict-line .verdict'), 'Overfit');
    assert.ok((await page.textContent('.verdict-line'))!.includes(HOSTILE_REASON), 'the first reason is beside the top badge');
    assert.equal(await page.textContent('#robustness h2 .verdict'), 'Overfit');
    assert.deepEqual(await page.$$eval('#verdict-reasons li', (lis) => lis.map((li) => li.textContent)), report.reasons);
    assert.equal(await page.locator('#robustness img, .verdict-line img').count(), 0, 'no element came from a reason');

    // Walk-forward: the summary, a table row and a bar per fold (green when the fold made money).
    assert.equal(
      await page.textContent('#walk-forward-summary'),
      '2 of 5 folds profitable · walk-forward efficiency 0.31 · rolling, 5 bars purged and 2 embargoed before each test',
    );
    const rows = await page.$$eval('#walk-forward table.folds tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    );
    assert.deepEqual(
      rows.map((r) => [r[0], r[3]]),
      FOLD_RETURNS.map((ret, i) => [`#${i + 1}`, `${ret > 0 ? '+' : ''}${(ret * 100).toFixed(2)}%`]),
    );
    const bars = await page.$$eval('#walk-forward svg.plot .bars rect', (rects) =>
      rects.map((r) => ({
        fill: r.getAttribute('fill'),
        value: Number(r.getAttribute('data-value')),
        height: Number(r.getAttribute('height')),
      })),
    );
    assert.deepEqual(
      bars.map((b) => b.value),
      FOLD_RETURNS,
    );
    assert.deepEqual(
      bars.map((b) => b.fill),
      FOLD_RETURNS.map((r) => (r > 0 ? UP : DOWN)),
    );
    // Bar heights follow the returns (to the pixel rounding of the smallest).
    const perUnit = bars[2]!.height / Math.abs(FOLD_RETURNS[2]!);
    bars.forEach((b, i) =>
      assert.ok(Math.abs(b.height - Math.abs(FOLD_RETURNS[i]!) * perUnit) <= 1.01, `fold ${i + 1}'s bar is as tall as its return`),
    );

    // Monte Carlo: the band and the median through every fan point, above the capital line.
    const fan = await page.$eval('#monte-carlo svg.plot', (svg) => ({
      points: Number((svg as SVGSVGElement).dataset.points),
      median: svg.querySelector('polyline.p50')!.getAttribute('points')!.split(' ').length,
      band: svg.querySelector('polygon.band')!.getAttribute('points')!.split(' ').length,
      baseline: svg.querySelectorAll('line.baseline').length,
    }));
    assert.deepEqual(fan, {
      points: report.monte_carlo.fan.length,
      median: report.monte_carlo.fan.length,
      band: 2 * report.monte_carlo.fan.length,
      baseline: 1,
    });
    assert.match((await page.textContent('#monte-carlo'))!, /Final return-31\.0% · \+4\.0% · \+42\.0%/);
    assert.match((await page.textContent('#monte-carlo'))!, /Losing half the account2\.3%/);

    // Random entries: a bar per bin, heights in proportion to the counts, the mark in the strategy's bin.
    const hist = await page.$eval('#random-baseline svg.plot', (svg) => ({
      bins: Number((svg as SVGSVGElement).dataset.bins),
      markBin: Number((svg as SVGSVGElement).dataset.markBin),
      heights: [...svg.querySelectorAll('.bins rect')].map((r) => Number(r.getAttribute('height'))),
      mark: svg.querySelector('.mark text')?.textContent,
    }));
    assert.equal(hist.bins, BASELINE_COUNTS.length);
    assert.equal(hist.markBin, STRATEGY_BIN);
    assert.equal(hist.mark, 'this strategy +1.8%');
    const tallest = Math.max(...BASELINE_COUNTS);
    hist.heights.forEach((px, i) =>
      assert.ok(
        Math.abs(px / hist.heights[BASELINE_COUNTS.indexOf(tallest)]! - BASELINE_COUNTS[i]! / tallest) < 0.01,
        `bin ${i} in proportion`,
      ),
    );
    assert.match((await page.textContent('#random-baseline'))!, /Return p-value0\.274/);

    // The Sharpe figures, deflated for the 12 variants tried, and the minimum track record.
    const figures = Object.fromEntries(
      await page.$$eval('#significance tr', (trs) =>
        trs.map((tr) => [tr.querySelector('th')!.textContent, tr.querySelector('td.value')!.textContent]),
      ),
    );
    assert.deepEqual(figures, {
      'Sharpe (annualised)': '1.87',
      'Deflated Sharpe': '0.412',
      'Probabilistic Sharpe': '0.861',
      'N trials': '12',
      'Skewness · kurtosis': '-0.42 · 5.10',
      'Minimum track record': '18,433 bars · 13 days',
    });
    await screenshot('model-robustness-panel');
    assert.deepEqual(problems, []);
  });

  it('a robust model shows the robust badge; a report without walk-forward folds says the bars were too few', async () => {
    const report = { ...robustnessFixture('robust', stored.settings.capital), walk_forward: null };
    await plant(report);
    const { page, problems } = await openModelPage();
    assert.equal(await page.getAttribute('#robustness h2 .verdict', 'data-verdict'), 'robust');
    assert.equal(await page.textContent('#robustness h2 .verdict'), 'Robust');
    assert.equal(await page.textContent('#walk-forward p'), 'Too few bars for walk-forward folds.');
    assert.equal(await page.locator('#monte-carlo svg.plot').count(), 1, 'the rest of the panel is still drawn');
    assert.deepEqual(problems, []);
  });

  it('a model trained before robustness reports existed shows a short note instead of the panel', async () => {
    await plant(undefined);
    assert.equal((await sf.api('GET', `/api/v1/results/${encodeURIComponent(record.stem)}`, { key })).body.robustness, undefined);
    const { page, problems, screenshot } = await openModelPage();
    assert.match((await page.textContent('#robustness-missing'))!, /trained before robustness reports existed: retrain it/);
    assert.equal(await page.locator('.verdict').count(), 0, 'no verdict is made up');
    assert.equal(await page.locator('#robustness svg').count(), 0);
    await screenshot('model-robustness-missing');
    assert.deepEqual(problems, []);
  });
});
