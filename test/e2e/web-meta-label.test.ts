import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { openBlobStore, openBucket, type BlobStore } from '../../src/bus/index.ts';
import { userNameKey } from '../../src/lib/user-keys.ts';
import { ModelStore } from '../../src/training/model-store.ts';
import { Buckets, ObjectStores } from '../../schemas/messages.ts';
import { Results, type ModelRecord } from '../../schemas/training.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { trainModel } from '../helpers/training.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { freshPage, launchBrowser, type WatchedPage } from '../helpers/browser.ts';

/**
 * The model page of a meta-labelled model ("Your rule, and what the model adds") in a real
 * browser, against the real service: the trader's rule (long after a 4-bar rise, a 0/1 column
 * the code computes) proposes, the model confirms. The page says the report's verdict word for
 * word and its figures (rule trades, confirmed trades, uplift) as GET /results serves them; an
 * "adds" verdict is shown in green, "adds nothing" as a plain answer; a direction model's page has
 * no such panel. Screenshots in test-output/web/.
 */

// Stop and target a few pips away, so the rule trades often on the synthetic 1-minute bars.
const RULED = strategyCode({
  stopLoss: 0.0003,
  takeProfit: 0.0003,
  prelude: 'df["up_4"] = (close.pct_change(4) > 0).astype(float)',
}).replace('"session_filter": None,', '"session_filter": None,\n        "entry_long": "up_4",');

describe('the model page’s rule-vs-model panel in a browser', () => {
  let sf: TestService;
  let browser: Browser;
  let key: string;
  let meta: ModelRecord;
  let direction: ModelRecord;
  let store: ModelStore;
  let artifacts: BlobStore;
  let served: Results;

  async function openModelPage(stem: string): Promise<WatchedPage> {
    const watched = await freshPage(browser);
    await watched.context.addInitScript((k) => localStorage.setItem('sf_api_key', k), key);
    await watched.page.goto(`${sf.url}/models/${encodeURIComponent(stem)}`);
    await watched.page.waitForSelector('body[data-ready="1"]', { timeout: 30_000 });
    return watched;
  }

  const results = async (stem: string) => Results.parse((await sf.api('GET', `/api/v1/results/${encodeURIComponent(stem)}`, { key })).body);

  /** Rewrites the meta model's results.json in the artifact store (where training keeps it). */
  async function plant(results: Results): Promise<void> {
    await artifacts.put(
      `${userNameKey(meta.user_id, meta.model_name)}/${meta.artifact}/results.json`,
      Buffer.from(JSON.stringify(Results.parse(results)), 'utf8'),
    );
  }

  before(async () => {
    [sf, browser] = await Promise.all([startTestService({ TRIAL_MINTS_PER_HOUR: '100' }), launchBrowser()]);
    const minted = await sf.mintKey('rule_owner');
    key = minted.api_key;
    const bus = sf.service.bus;
    store = await ModelStore.open(bus, await openBucket(bus, Buckets.models), await openBucket(bus, Buckets.signals));
    artifacts = await openBlobStore(bus, ObjectStores.artifacts);
    const metaJob = await trainModel(sf, key, { code: RULED, model_name: 'Rule confirmed' });
    const directionJob = await trainModel(sf, key, { model_name: 'Direction' });
    meta = (await store.resolve(minted.user_id, metaJob.model_name))!;
    direction = (await store.resolve(minted.user_id, directionJob.model_name))!;
    assert.ok(meta && direction, 'both trained models are in the store');
    served = await results(meta.stem);
  });
  after(async () => {
    await browser?.close();
    await sf?.stop();
  });

  it('a meta-labelled model shows its rule alone beside rule + model, the verdict in the report’s words and the uplift test', async () => {
    assert.equal(served.labels, 'meta', 'entry_long made the training meta-labelled');
    const m = served.meta_label!;
    assert.ok(m, 'a meta-labelled model has its report');
    assert.ok(m.uplift.rule_trades >= 10, `the rule traded on the test span (${m.uplift.rule_trades} trades)`);
    const { page, problems, screenshot } = await openModelPage(meta.stem);

    assert.equal(await page.textContent('#meta-label h2'), 'Your rule, and what the model adds');
    assert.equal(await page.textContent('#meta-verdict'), m.verdict);
    const adds = served.robustness!.model_vs_rule!.adds;
    assert.equal(await page.getAttribute('#meta-verdict', 'data-adds'), String(adds));
    assert.ok(
      m.verdict.toLowerCase().includes(served.robustness!.model_vs_rule!.words.toLowerCase()),
      'the report and the robustness reasons read the test the same way',
    );

    // Rule alone vs rule + model: trades, win rate, net P&L as the report has them.
    const row = (key: string) => page.$$eval(`#meta-compare tr[data-row="${key}"] td`, (tds) => tds.map((td) => td.textContent));
    const usd = (x: number) => `${x < 0 ? '-' : ''}$${Math.abs(x).toFixed(2)}`;
    assert.deepEqual((await row('rule')).slice(0, 3), [
      String(m.rule_alone.n),
      `${(m.rule_alone.wr * 100).toFixed(1)}%`,
      usd(m.rule_alone.np),
    ]);
    assert.deepEqual((await row('model')).slice(0, 3), [
      String(m.rule_and_model.n),
      `${(m.rule_and_model.wr * 100).toFixed(1)}%`,
      usd(m.rule_and_model.np),
    ]);
    assert.equal(m.rule_alone.n, m.uplift.rule_trades, 'the rule alone row is the rule’s trades of the uplift test');

    const figure = (key: string) => page.textContent(`#meta-figures tr[data-figure="${key}"] td.value`);
    assert.equal(
      await figure('confirmed'),
      `${m.uplift.chosen_trades.toLocaleString('en')} of ${m.uplift.rule_trades.toLocaleString('en')}`,
    );
    assert.equal(await figure('uplift'), `${m.uplift.pnl > 0 ? '+' : ''}${usd(m.uplift.pnl)}`);
    assert.equal(await figure('recall'), m.labels.recall === null ? '—' : `${(m.labels.recall * 100).toFixed(1)}%`);
    assert.match(
      (await page.textContent('#meta-figures tr[data-figure="precision"]'))!,
      new RegExp(`the rule alone wins ${m.labels.base_rate === null ? '—' : `${(m.labels.base_rate * 100).toFixed(1)}%`}`),
    );
    if (m.uplift.p_value === null) assert.equal(await figure('p-value'), '—');
    else {
      assert.match(
        (await page.textContent('#meta-figures tr[data-figure="p-value"]'))!,
        new RegExp(`share of ${m.uplift.draws.toLocaleString('en')} random picks`),
      );
      assert.ok(m.verdict.includes(`p = ${await figure('p-value')}`), 'the p-value reads as in the verdict');
    }
    assert.match(
      (await page.textContent('#meta-rows'))!,
      new RegExp(
        `over the ${m.uplift.rule_trades.toLocaleString('en')} trades of the rule alone on the test span.*${m.rows.purged.toLocaleString('en')} left out`,
      ),
    );
    // Its diagnostics call the rule's trades win or loss, not the market up or down.
    assert.match((await page.textContent('.diagnostics'))!, /Win\/loss accuracy on the rule's trades/);
    assert.deepEqual(await page.$$eval('.diagnostics table.confusion tr:first-child th', (ths) => ths.map((th) => th.textContent)), [
      'actual \\ predicted',
      'loss',
      'win',
    ]);
    await screenshot('model-meta-label-panel');
    assert.deepEqual(problems, []);
  });

  it('a model that adds is said in green; one that adds nothing is said plainly, with no test when it confirmed none', async () => {
    const m = served.meta_label!;
    const rule = m.uplift.rule_trades;
    const adding = `The model adds to the trader's rule: the 3 of its ${rule} test trades it confirmed beat random picks of as many (p = 0.0040).`;
    await plant({
      ...served,
      meta_label: { ...m, verdict: adding, uplift: { ...m.uplift, chosen_trades: 3, p_value: 0.004 } },
      robustness: {
        ...served.robustness!,
        model_vs_rule: { adds: true, p_value: 0.004, rule_trades: rule, chosen_trades: 3, words: adding.slice(0, -1) },
      },
    });
    let { page, problems } = await openModelPage(meta.stem);
    assert.equal(await page.textContent('#meta-verdict'), adding);
    assert.equal(await page.getAttribute('#meta-verdict', 'data-adds'), 'true');
    const green = await page.$eval('#meta-verdict', (el) => getComputedStyle(el).color);
    assert.equal(green, 'rgb(74, 222, 128)');
    assert.equal(
      await page.textContent('#meta-figures tr[data-figure="p-value"] td.value'),
      '0.0040',
      'the p-value as the verdict says it',
    );
    assert.equal(await page.textContent('#meta-figures tr[data-figure="confirmed"] td.value'), `3 of ${rule}`);
    assert.deepEqual(problems, []);

    const none = `The model confirmed none of the rule's ${rule} test trades: it adds nothing here (lower the confidence threshold, or trade the rule alone).`;
    await plant({
      ...served,
      meta_label: {
        ...m,
        verdict: none,
        labels: { ...m.labels, chosen: 0, precision: null, recall: 0 },
        uplift: { ...m.uplift, chosen_trades: 0, chosen_pnl: 0, random_pnl: 0, p_value: null },
      },
      robustness: {
        ...served.robustness!,
        model_vs_rule: { adds: false, p_value: null, rule_trades: rule, chosen_trades: 0, words: none.slice(0, -1) },
      },
    });
    ({ page, problems } = await openModelPage(meta.stem));
    assert.equal(await page.textContent('#meta-verdict'), none);
    assert.equal(await page.getAttribute('#meta-verdict', 'data-adds'), 'false');
    assert.notEqual(
      await page.$eval('#meta-verdict', (el) => getComputedStyle(el).color),
      green,
      'adding nothing is not dressed as adding',
    );
    assert.equal(await page.locator('#meta-label .error').count(), 0, 'adding nothing is an answer, not an error');
    assert.equal(await page.textContent('#meta-figures tr[data-figure="precision"] td.value'), '—');
    assert.equal(await page.textContent('#meta-figures tr[data-figure="p-value"] td.value'), '—');
    assert.match((await page.textContent('#meta-figures tr[data-figure="p-value"]'))!, /no test: the model confirmed none or all/);
    assert.deepEqual(problems, []);
    await plant(served);
  });

  it('a direction model’s page has no rule-vs-model panel', async () => {
    const d = await results(direction.stem);
    assert.notEqual(d.labels, 'meta');
    assert.equal(d.meta_label ?? null, null);
    const { page, problems } = await openModelPage(direction.stem);
    assert.equal(await page.locator('#robustness').count(), 1, 'the page is drawn');
    assert.equal(await page.locator('#meta-label').count(), 0);
    assert.equal(await page.getByText('what the model adds').count(), 0);
    assert.match((await page.textContent('.diagnostics'))!, /Direction accuracy/);
    assert.deepEqual(problems, []);
  });
});
