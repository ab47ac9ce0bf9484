/**
 * The model page in a real browser (Debian chromium) against the real service, when it cannot be
 * read and while it waits for its first live bar: a model of another account (a key made in
 * another browser) is not a page stuck on "Loading the model…" beside an error, but says what to
 * do — sign in, or use the key that made it, which then opens it; a deployed model's live panel
 * says when its next bar closes, and on a forex weekend that the market is shut until Sunday night.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { nextBarClose, nextBarNotice } from '../../src/lib/market-hours.ts';
import { freshPage, launchBrowser } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { trainModel } from '../helpers/training.ts';

describe('the model page: unreadable, and waiting for its next bar', () => {
  let sf: TestService;
  let browser: Browser;
  let owner: string;
  let stem: string;
  let modelName: string;
  before(async () => {
    [sf, browser] = await Promise.all([startTestService({ TRIAL_MINTS_PER_HOUR: '100' }), launchBrowser()]);
    owner = (await sf.mintKey('model_owner')).api_key;
    // A threshold few bars reach: the live panel keeps waiting (no signal replaces its line).
    const job = await trainModel(sf, owner, { code: strategyCode({ threshold: 0.95 }), symbol: 'EURUSD', timeframe: '1min' });
    stem = job.model_stem!;
    modelName = job.model_name!;
    const deployed = await sf.api('POST', '/api/v1/deploy', { key: owner, body: { model_name: stem, channels: ['sse'] } });
    assert.equal(deployed.status, 200, deployed.text);
  });
  after(async () => {
    await browser?.close();
    await sf?.stop();
  });

  it('another account’s model: says so and what to do, no loading line left; the key that made it opens it', async () => {
    const visitor = await freshPage(browser);
    const { page } = visitor;
    await page.goto(`${sf.url}/models/${encodeURIComponent(stem)}`);
    const box = await page.waitForSelector('#model-unreadable', { timeout: 30_000 });
    const text = await box.innerText();
    assert.match(text, /has no model/);
    assert.match(text, /Sign in/);
    assert.match(text, /use the key that made it/);
    assert.equal(await page.locator('#model').getByText('Loading the model').count(), 0, 'the loading line is gone');
    assert.equal(await page.getAttribute('#model-sign-in', 'href'), '/sign-in');
    await visitor.screenshot('model-unreadable');

    await page.fill('#model-key', owner);
    await page.click('#model-use-key');
    await page.waitForSelector('body[data-ready="1"]', { timeout: 60_000 });
    assert.equal(await page.locator('#model-unreadable').count(), 0);
    assert.ok((await page.innerText('#model h1')).startsWith(modelName), 'the model opened');
    // The 404 of the first visit is the only console complaint expected.
    assert.deepEqual(
      visitor.problems.filter((p) => !/404/.test(p)),
      [],
    );
    await visitor.context.close();
  });

  it('the live panel of a deployed EURUSD model says when its next bar closes, and on a weekend that the market is shut', async () => {
    const watcher = await freshPage(browser);
    await watcher.context.addInitScript((k) => localStorage.setItem('sf_api_key', k), owner);
    const opened = Date.now();
    await watcher.page.goto(`${sf.url}/models/${encodeURIComponent(stem)}`);
    const waiting = await watcher.page.waitForSelector('#feed-waiting', { timeout: 60_000 });
    const shown = Date.now();
    const nextBar = Date.parse((await waiting.getAttribute('data-next-bar'))!);
    const [earliest, latest] = [nextBarClose('EURUSD', '1min', opened), nextBarClose('EURUSD', '1min', shown)];
    assert.ok(nextBar >= earliest.closesAt && nextBar <= latest.closesAt, `next bar ${new Date(nextBar).toISOString()}`);
    const text = await waiting.innerText();
    if (earliest.reopensAt !== null && latest.reopensAt !== null)
      assert.equal(text, nextBarNotice('EURUSD', '1min', opened).note, 'the weekend is said');
    else if (earliest.reopensAt === null)
      assert.match(text, new RegExp(`next bar to close \\(${new Date(nextBar).toISOString().slice(0, 16).replace('T', ' ')} UTC\\)`));
    await watcher.screenshot('model-live-next-bar');
    await watcher.context.close();
  });
});
