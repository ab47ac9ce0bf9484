import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { FIXED_END_DAY, PROFITABLE_TAKE_PROFIT, SCALPER, startFixedMarketService } from '../helpers/fixed-market.ts';
import type { TestService } from '../helpers/service.ts';
import { waitForJob } from '../helpers/training.ts';
import { freshPage, launchBrowser } from '../helpers/browser.ts';

/**
 * The community pages in a real browser: the leaderboard with its metric and filters, an entry
 * with its lineage, forking it (a trial account made on the way) into a trained copy, and sharing
 * that copy from its model page as the entry's child. Screenshots in test-output/web/.
 */

const ENV = { TRIAL_MINTS_PER_HOUR: '100' };
const TITLE = 'Scalper <b>one</b>';

describe('the community pages in a browser', () => {
  let sf: TestService;
  let browser: Browser;
  let rootId: number;
  before(async () => {
    [sf, browser] = await Promise.all([startFixedMarketService(ENV), launchBrowser()]);
    const alice = (await sf.mintKey('alice')).api_key;
    const start = await sf.api('POST', '/api/v1/train', {
      key: alice,
      body: {
        code: SCALPER,
        timeframe: '1min',
        model_name: 'scalper',
        end_date: FIXED_END_DAY,
        stop_loss: null,
        take_profit: PROFITABLE_TAKE_PROFIT,
      },
    });
    assert.equal(start.status, 200, start.text);
    const job = await waitForJob(sf, alice, start.body.job_id);
    assert.ok(job.status === 'done' && job.test_stats!.ret > 0, `the scalper ends its test span in profit: ${JSON.stringify(job)}`);
    const shared = await sf.api('POST', '/api/v1/share', { key: alice, body: { title: TITLE, description: 'Tiny targets.\nNo stop.' } });
    assert.equal(shared.status, 201, shared.text);
    rootId = shared.body.community_id;
  });
  after(async () => {
    await browser?.close();
    await sf?.stop();
  });

  it('the leaderboard lists the entry (its title as text) and re-ranks by the metric chosen', async () => {
    const { page, problems, screenshot } = await freshPage(browser);
    await page.goto(`${sf.url}/community`);
    await page.waitForSelector('body[data-ready="1"]');
    const link = page.locator(`.leaderboard a[href="/community/${rootId}"]`);
    assert.equal(await link.textContent(), TITLE);
    assert.equal(await page.locator('.leaderboard b').count(), 0, 'no markup from the title');
    await Promise.all([page.waitForURL(/metric=ret/), page.selectOption('select[name=metric]', 'ret')]);
    await page.waitForSelector('body[data-ready="1"]');
    assert.equal(await page.$eval('select[name=metric]', (s) => (s as HTMLSelectElement).value), 'ret');
    assert.equal(await page.locator('.leaderboard thead th').nth(4).textContent(), 'ret');
    const board = (await sf.api('GET', '/api/v1/leaderboard?metric=ret')).body;
    assert.equal(await page.locator('.leaderboard tbody tr td').nth(4).textContent(), String(Number(board.entries[0].value.toFixed(4))));
    await Promise.all([page.waitForURL(/symbol=GBPUSD/), page.selectOption('select[name=symbol]', 'GBPUSD')]);
    await page.waitForSelector('body[data-ready="1"]');
    assert.equal(await page.locator('.leaderboard').count(), 0, 'no GBPUSD entry');
    await screenshot('community-leaderboard-filtered');
    assert.deepEqual(problems, []);
  });

  it('each leaderboard row and the entry show the robustness verdict frozen at share, and the board ranks by deflated Sharpe', async () => {
    const { page, problems, screenshot } = await freshPage(browser);
    await page.goto(`${sf.url}/community`);
    await page.waitForSelector('body[data-ready="1"]');
    assert.equal(await page.textContent('select[name=metric] option[value=dsr]'), 'dsr (deflated Sharpe)');
    await Promise.all([page.waitForURL(/metric=dsr/), page.selectOption('select[name=metric]', 'dsr')]);
    await page.waitForSelector('body[data-ready="1"]');
    assert.equal(await page.locator('.leaderboard thead th').nth(4).textContent(), 'dsr');
    const board = (await sf.api('GET', '/api/v1/leaderboard?metric=dsr')).body;
    const row = board.entries.find((e: { community_id: number }) => e.community_id === rootId);
    assert.ok(row.verdict, `the scalper's model had a report when it was shared: ${JSON.stringify(row)}`);
    const cell = page.locator(`.leaderboard tr:has(a[href="/community/${rootId}"]) td.verdict-cell .verdict`);
    assert.equal(await cell.getAttribute('data-verdict'), row.verdict);
    assert.equal(
      await page.locator('.leaderboard tbody tr td').nth(4).textContent(),
      row.dsr === null ? '—' : String(Number(row.dsr.toFixed(4))),
    );
    await screenshot('community-leaderboard-dsr');

    await page.click(`.leaderboard a[href="/community/${rootId}"]`);
    await page.waitForURL(new RegExp(`/community/${rootId}$`));
    await page.waitForSelector('body[data-ready="1"]');
    const entry = (await sf.api('GET', `/api/v1/community/${rootId}`)).body;
    assert.equal(await page.getAttribute('#entry-verdict .verdict', 'data-verdict'), entry.verdict);
    assert.deepEqual(await page.$$eval('#entry-verdict .reasons li', (lis) => lis.map((li) => li.textContent)), entry.robustness.reasons);
    assert.match((await page.textContent('#entry-verdict'))!, new RegExp(`Deflated Sharpe ${entry.robustness.dsr.toFixed(3)}`));
    await screenshot('community-entry-verdict');
    assert.deepEqual(problems, []);
  });

  it('forks an entry into a trained copy, then shares the copy from its model page as the entry’s child', async () => {
    const { page, problems, screenshot } = await freshPage(browser);
    await page.goto(`${sf.url}/community/${rootId}`);
    await page.waitForSelector('body[data-ready="1"]');
    assert.equal(await page.textContent('h1'), TITLE);
    assert.equal(await page.textContent('.description'), 'Tiny targets.\nNo stop.');
    assert.equal(await page.locator('#lineage .node.current').count(), 1);
    await screenshot('community-entry');

    await page.click('#fork');
    await page.waitForURL(/\/models\//, { timeout: 90_000 });
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30_000 });
    assert.equal(
      (await sf.api('GET', `/api/v1/community/${rootId}`)).body.trial_forks,
      1,
      'the fork is recorded (a trial account’s: shown apart from forks)',
    );
    assert.ok((await page.inputValue('.code-panel textarea')).includes('def strategy_config'), 'the forked code is on the model page');

    // The copy trained with the parent's code and settings: it passes the share gate the parent passed.
    await page.fill('#share input', 'My copy');
    await page.click('#share button');
    await page.waitForURL(/\/community\/\d+$/, { timeout: 15_000 });
    await page.waitForSelector('body[data-ready="1"]');
    const childId = Number(new URL(page.url()).pathname.split('/').pop());
    assert.notEqual(childId, rootId);
    assert.equal(await page.textContent('h1'), 'My copy');
    assert.equal(await page.locator(`#lineage a[href="/community/${rootId}"]`).textContent(), TITLE, 'the parent is in the lineage');
    const lineage = (await sf.api('GET', `/api/v1/lineage/${rootId}`)).body;
    assert.deepEqual(
      lineage.children.map((c: { community_id: number }) => c.community_id),
      [childId],
    );
    await screenshot('community-fork-shared');
    assert.deepEqual(problems, []);
  });
});
