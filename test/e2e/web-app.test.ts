import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { freshPage, launchBrowser, paintedPixels, type WatchedPage } from '../helpers/browser.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

/**
 * The web app in a real browser (Debian chromium), against the real service: the contract's
 * quick-deploy deep link, the model and market pages, key rotation, CSRF, escaping, live signals.
 * Each test saves a screenshot under test-output/web/.
 */

// Four days of 1-minute history: enough bars to train on and for every indicator's warm-up.
const ENV = { HISTORY_DAYS: '4', TRIAL_MINTS_PER_HOUR: '100', WEBHOOK_ALLOW_PRIVATE: 'loopback' };
const UP = '#22c55e';
const DOWN = '#ef4444';
const PROMPT = 'EURUSD 1 minute RSI mean reversion, stop 10 pips <script>alert("pwned")</script>';

describe('the web app in a browser', () => {
  let sf: TestService;
  let browser: Browser;
  /** The visitor of the first test: its page ends on a model page with a key and a session. */
  let visitor: WatchedPage;
  let stem: string;
  /** A model page left open on a deployment that signals on every bar close (see the last test). */
  let barWatch: Promise<{ watcher: WatchedPage; openedAt: number }>;
  before(async () => {
    [sf, browser] = await Promise.all([startTestService(ENV), launchBrowser()]);
    barWatch = watchBarCloses();
    barWatch.catch(() => {});
  });

  /**
   * Deploys (with its own key) a strategy that is always in the market with a stop and a target a
   * hair from the entry, so every 1-minute bar close closes a position and opens the next: a live
   * signal each minute. Its model page is opened at once and watched while the other tests run.
   */
  async function watchBarCloses(): Promise<{ watcher: WatchedPage; openedAt: number }> {
    const key = (await sf.mintKey()).api_key;
    const code = strategyCode({ threshold: 0.5, stopLoss: 0.000001, takeProfit: 0.000001, onOpposite: 'reverse' });
    const res = await fetch(`${sf.url}/api/v1/one_shot`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      // BTCUSD: the synthetic market closes its bars every minute on weekends too.
      body: JSON.stringify({ prompt: 'a signal every bar', code, symbol: 'BTCUSD', timeframe: '1min' }),
    });
    // The stream ends after its terminal event.
    const stream = await res.text();
    const done = /event: done\ndata: (.*)\n/.exec(stream);
    if (!done) throw new Error(`one_shot did not deploy: ${stream.slice(-500)}`);
    const watcher = await freshPage(browser);
    await watcher.context.addInitScript((k) => localStorage.setItem('sf_api_key', k), key);
    await watcher.page.goto(`${sf.url}/models/${encodeURIComponent(JSON.parse(done[1]!).stem)}`);
    // Following the deployment: waiting for the next bar, or already showing a signal (the actor's
    // catch-up signal can arrive before the waiting line is ever seen).
    await watcher.page.waitForSelector('#feed-waiting, #signal-feed li.signal');
    return { watcher, openedAt: Date.now() };
  }
  after(async () => {
    await browser?.close();
    await sf?.stop();
  });

  it('quick-deploy with run=1, from a fresh profile, ends on a model page with drawn candles and trade markers, without console errors', async () => {
    visitor = await freshPage(browser);
    const { page } = visitor;
    await page.goto(`${sf.url}/quick-deploy?prompt=${encodeURIComponent(PROMPT)}&run=1`);
    await page.waitForURL(/\/models\//, { timeout: 90_000 });
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30_000 });
    stem = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);

    // The account was made on the way: a trial user owns the model, deployed on sse.
    const key = await page.evaluate(() => localStorage.getItem('sf_api_key'));
    assert.match(key ?? '', /^sf_[A-Za-z0-9]{40}$/);
    const models = await sf.api('GET', '/api/v1/models', { key: key! });
    assert.deepEqual(
      models.body.models.map((m: { name: string }) => m.name),
      [stem],
    );
    const deployed = await sf.api('GET', '/api/v1/deployed', { key: key! });
    assert.equal(deployed.body.deployed[0]?.model, stem);
    const cookies = await visitor.context.cookies(sf.url);
    const session = cookies.find((c) => c.name === 'sf_session');
    assert.ok(session?.httpOnly, 'the trial set the HttpOnly session cookie');
    assert.equal(session?.sameSite, 'Lax');

    // Every trade is on the chart (an entry and an exit marker each), and candles are painted.
    const results = (await sf.api('GET', `/api/v1/results/${encodeURIComponent(stem)}`, { key: key! })).body;
    const trades = results.trade_log.length + results.pred_trade_log.length;
    assert.ok(trades > 0, 'the backtest traded');
    const chart = await page.$eval('#candles', (el) => ({ ...(el as HTMLElement).dataset }));
    assert.equal(Number(chart.markers), 2 * trades);
    assert.ok(Number(chart.candles) >= results.spans.train.bars, `${chart.candles} candles cover the trained span`);
    const pixels = await paintedPixels(page, '#candles', [UP, DOWN]);
    assert.ok(pixels[UP]! > 200 && pixels[DOWN]! > 200, `up and down candles are painted: ${JSON.stringify(pixels)}`);
    assert.ok((await paintedPixels(page, '#equity', ['#38bdf8']))['#38bdf8']! > 100, 'the equity curve is painted');

    // The last trade's own levels are drawn: entry, and its stop and take-profit when it had them.
    const last = [...results.trade_log, ...results.pred_trade_log].at(-1);
    const expected = [
      `entry@${last.entry_price}`,
      ...(last.stop_loss === null ? [] : [`SL@${last.stop_loss}`]),
      ...(last.take_profit === null ? [] : [`TP@${last.take_profit}`]),
    ];
    assert.ok(last.stop_loss !== null, 'the prompt’s 10-pip stop is on its trades');
    assert.equal(chart.levels, expected.join(' '));

    const rows = await page.$$eval('.trade-list tbody tr', (trs) => trs.length);
    assert.equal(rows, Math.min(25, trades));
    await visitor.screenshot('quick-deploy-model-page');
    assert.deepEqual(visitor.problems, []);
  });

  it('shows a prompt containing <script> as text, on the idea box and in the code', async () => {
    const { page, problems, screenshot } = await freshPage(browser);
    await page.goto(`${sf.url}/quick-deploy?prompt=${encodeURIComponent(PROMPT)}`);
    await page.waitForSelector('#chips button');
    assert.equal(await page.inputValue('#prompt'), PROMPT, 'the box holds the prompt, character for character');
    assert.equal(
      await page.$$eval('script', (s) => s.filter((x) => !x.getAttribute('src')).length),
      0,
      'no script element came from the prompt',
    );
    // Without run=1 nothing runs until the click: no account was made.
    assert.equal(await page.evaluate(() => localStorage.getItem('sf_api_key')), null);
    await screenshot('quick-deploy-waiting');
    assert.deepEqual(problems, []);
    // The model page of the first test shows the code the prompt was written into, as text.
    const code = await visitor.page.inputValue('.code-panel textarea');
    assert.ok(code.includes('<script>alert("pwned")</script>'), 'the prompt is in the code comment as typed');
    const shown = await visitor.page.textContent('.code-panel pre.highlighted');
    assert.equal(shown, code, 'the highlighted code reads exactly as written');
    assert.ok(
      await visitor.page.$$eval('.code-panel pre.highlighted span.hl-keyword', (els) => els.length > 0),
      'keywords are highlighted',
    );
    assert.equal(await visitor.page.$$eval('.code-panel script, .code-panel img', (els) => els.length), 0, 'no element came from the code');
    assert.deepEqual(visitor.problems, [], 'no dialog opened, no error');
  });

  it('the home idea box runs on a click with the symbol and timeframe picked by chips, the code streaming in', async () => {
    const { page, problems, screenshot } = await freshPage(browser);
    await page.goto(`${sf.url}/`);
    await page.waitForSelector('#chips button');
    await page.fill('#prompt', 'RSI mean reversion, stop 10 pips');
    await page.click('[data-market="symbol"]:text-is("GBPUSD")');
    await page.click('[data-market="timeframe"]:text-is("1min")');
    assert.equal(await page.getAttribute('[data-market="symbol"]:text-is("GBPUSD")', 'aria-pressed'), 'true');
    await page.click('#run');
    // The key is shown once, in full, while the pipeline runs.
    const shown = await (await page.waitForSelector('#fresh-key code')).textContent();
    assert.match(shown ?? '', /^sf_[A-Za-z0-9]{40}$/);
    await page.waitForURL(/\/models\//, { timeout: 90_000 });
    assert.match(decodeURIComponent(page.url()), /_GBPUSD_1min_/);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30_000 });
    assert.ok(
      (await page.inputValue('.code-panel textarea')).includes('def strategy_config'),
      'the streamed code is kept for the model page',
    );
    assert.match(
      (await page.textContent('#who')) ?? '',
      new RegExp(`${shown!.slice(0, 7)}…${shown!.slice(-4)}$`),
      'afterwards the key is shown masked',
    );
    await screenshot('home-run-model-page');
    assert.deepEqual(problems, []);
  });

  it('shows a live signal in the model page’s feed when the deployment publishes one', async () => {
    const { page } = visitor;
    await page.waitForSelector('#feed-waiting, #signal-feed li.signal');
    const key = (await page.evaluate(() => localStorage.getItem('sf_api_key')))!;
    const deployment = (await sf.api('GET', '/api/v1/deployed', { key })).body.deployed[0];
    // What the model actor publishes when a bar closes (signals.<deployment_id>; see test/e2e/live.test.ts).
    const barTime = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 60_000).toISOString();
    const signal = {
      id: `sig_${deployment.deployment_id}_${Date.parse(barTime)}_9`,
      deployment_id: deployment.deployment_id,
      model: stem,
      model_name: deployment.model_name,
      symbol: 'EURUSD',
      timeframe: '1min',
      action: 'open',
      side: 'short',
      price: 1.08765,
      stop_loss: 1.08865,
      take_profit: null,
      reason: 'signal',
      p_up: 0.31,
      pnl: null,
      bar_time: barTime,
      created_at: new Date().toISOString(),
    };
    await sf.service.bus.js.publish(`signals.${deployment.deployment_id}`, JSON.stringify(signal));
    const item = await page.waitForSelector(`#signal-feed li[data-id="${signal.id}"]`, { timeout: 15_000 });
    assert.match((await item.textContent()) ?? '', /open short @ 1\.08765 SL 1\.08865/);
    await visitor.screenshot('model-live-signal');
    assert.deepEqual(visitor.problems, []);
  });

  it('deploys to a webhook from the model page, showing the signing secret once — the one the deliveries are signed with', async () => {
    const { page } = visitor;
    const receiver = await startWebhookReceiver();
    try {
      await page.fill('#deploy input[type=url]', `${receiver.url}/hook`);
      await page.click('#deploy button:text-is("Redeploy")');
      const secret = (await (await page.waitForSelector('#deploy .notice code.key')).textContent())!;
      assert.match(secret, /^whsec_/);
      assert.ok((await page.textContent('#deploy .notice pre'))!.includes(secret), 'the verification snippet carries the secret');
      const key = (await page.evaluate(() => localStorage.getItem('sf_api_key')))!;
      const deployment = (await sf.api('GET', '/api/v1/deployed', { key })).body.deployed[0];
      assert.deepEqual(deployment.channels.sort(), ['sse', 'webhook']);
      assert.equal(deployment.webhook_url, `${receiver.url}/hook`);
      assert.match((await page.textContent('#deploy'))!, /Deployed on sse, webhook/);

      receiver.secret('/hook', secret);
      const barTime = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 60_000).toISOString();
      const signal = {
        id: `sig_${deployment.deployment_id}_${Date.parse(barTime)}_7`,
        deployment_id: deployment.deployment_id,
        model: stem,
        model_name: deployment.model_name,
        symbol: 'EURUSD',
        timeframe: '1min',
        action: 'close',
        side: 'long',
        price: 1.0871,
        stop_loss: null,
        take_profit: null,
        reason: 'TP',
        p_up: null,
        pnl: 12.5,
        bar_time: barTime,
        created_at: new Date().toISOString(),
      };
      await sf.service.bus.js.publish(`signals.${deployment.deployment_id}`, JSON.stringify(signal));
      await receiver.waitFor(
        () => receiver.accepted('/hook').some((r) => r.payload?.data?.id === signal.id || r.payload?.id === signal.id),
        15_000,
        'the webhook',
      );
      const hook = receiver.accepted('/hook').find((r) => r.payload?.data?.id === signal.id || r.payload?.id === signal.id)!;
      assert.equal(hook.verified, true, 'signed with the secret the page showed');
      await page.reload();
      await page.waitForSelector('#deploy p');
      assert.equal(await page.$$eval('#deploy .notice code.key', (els) => els.length), 0, 'the secret is not shown again');
      await visitor.screenshot('model-webhook-deployed');
      assert.deepEqual(visitor.problems, []);
    } finally {
      await receiver.stop();
    }
  });

  it('retrains edited code from the model page and opens the new model', async () => {
    const { page } = visitor;
    await page.goto(`${sf.url}/models/${encodeURIComponent(stem)}`);
    await page.waitForSelector('body[data-ready="1"]');
    await page.click('.code-panel button:text-is("Edit")');
    const code = await page.inputValue('.code-panel textarea');
    const edited = code.replace(/"signal_threshold": [0-9.]+/, '"signal_threshold": 0.6');
    assert.notEqual(edited, code, 'the threshold is in the code');
    await page.fill('.code-panel textarea', edited);
    await page.click('.code-panel button:text-is("Retrain")');
    await page.waitForURL((url) => url.pathname !== `/models/${encodeURIComponent(stem)}` && url.pathname.startsWith('/models/'), {
      timeout: 90_000,
    });
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30_000 });
    const key = (await page.evaluate(() => localStorage.getItem('sf_api_key')))!;
    const newStem = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    const results = (await sf.api('GET', `/api/v1/results/${encodeURIComponent(newStem)}`, { key })).body;
    assert.equal(results.settings.confidence_threshold, 0.6, 'trained with the edited code');
    assert.equal(await page.inputValue('.code-panel textarea'), edited, 'the new model page shows the code it was trained on');
    assert.deepEqual(visitor.problems, []);
  });

  it('/pulse lists the activity without JavaScript, and with it adds new events live, newest first', async () => {
    const noJs = await browser.newContext({ javaScriptEnabled: false });
    const plain = await noJs.newPage();
    await plain.goto(`${sf.url}/pulse`);
    const listed = await plain.$$eval('#pulse li', (els) =>
      els.map((e) => ({ id: Number(e.getAttribute('data-id')), kind: e.querySelector('.kind')?.textContent })),
    );
    assert.ok(listed.length >= 3, 'the quick deploy made public events');
    // The feed as the API serves it, up to the newest event the page showed (others may have come since).
    const served = ((await sf.api('GET', '/api/v1/activity?limit=200')).body.events as { id: number; kind: string }[]).filter(
      (e) => e.id <= listed[0]!.id,
    );
    assert.deepEqual(
      listed,
      served.slice(0, listed.length).map(({ id, kind }) => ({ id, kind })),
    );
    await plain.screenshot({ path: 'test-output/web/pulse-no-javascript.png', fullPage: true });
    await noJs.close();

    const { page, problems, screenshot } = await freshPage(browser);
    await page.goto(`${sf.url}/pulse`);
    await page.waitForFunction(() => document.getElementById('pulse-status')?.textContent === 'Live.');
    const id = await sf.service.domain.activity.bus.emit({
      kind: 'DEPLOYED',
      bot: 'live-bot',
      model: { name: 'Fresh <b>model</b>', symbol: 'GBPUSD', timeframe: '5min' },
    });
    const first = await page.waitForSelector(`#pulse li:first-child[data-id="${id}"]`, { timeout: 10_000 });
    assert.equal(await first.$eval('.model', (e) => e.textContent), 'Fresh <b>model</b>', 'shown as text');
    assert.ok(await page.$(`#pulse li[data-id="${listed[0]!.id}"]`), 'the server-rendered events are still listed under it');
    await screenshot('pulse-live');
    assert.deepEqual(problems, []);
  });

  it('the market page draws candles and an indicator', async () => {
    const { page, problems, screenshot } = await freshPage(browser);
    await page.goto(`${sf.url}/market?symbol=EURUSD&timeframe=1min&ind=bb,rsi`);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30_000 });
    const data = await page.$eval('#price', (el) => ({ ...(el as HTMLElement).dataset }));
    assert.equal(Number(data.candles), 500);
    assert.ok(Number(data.indicators) >= 4, `bb (3 lines) and rsi drawn: ${data.indicators}`);
    const pixels = await paintedPixels(page, '#price', [UP, DOWN, '#f59e0b']);
    assert.ok(pixels[UP]! > 100 && pixels[DOWN]! > 100, `candles painted: ${JSON.stringify(pixels)}`);
    assert.ok(pixels['#f59e0b']! > 50, 'the first Bollinger line is painted');
    assert.equal((await page.locator('[data-panel="rsi"] canvas').count()) > 0, true, 'RSI has its own panel');
    // Live: the latest candles and indicator values are fetched again (every 15 s) and drawn without errors.
    await page.waitForFunction(() => Number((document.querySelector('#price') as HTMLElement).dataset.updates ?? 0) >= 1, undefined, {
      timeout: 30_000,
    });
    await screenshot('market');
    assert.deepEqual(problems, []);
  });

  it('rotating the key on the account page makes the old key fail', async () => {
    const { page } = visitor;
    const oldKey = (await page.evaluate(() => localStorage.getItem('sf_api_key')))!;
    await page.goto(`${sf.url}/account`);
    await page.waitForSelector('#masked-key');
    assert.equal(await page.textContent('#masked-key'), `${oldKey.slice(0, 7)}…${oldKey.slice(-4)}`, 'the key is shown masked');
    await page.click('#rotate');
    const newKey = (await page.textContent('#new-key'))!;
    assert.match(newKey, /^sf_[A-Za-z0-9]{40}$/);
    assert.notEqual(newKey, oldKey);
    assert.equal((await sf.api('GET', '/api/v1/whoami-key', { key: oldKey })).status, 401, 'the old key fails');
    assert.equal((await sf.api('GET', '/api/v1/whoami-key', { key: newKey })).status, 200, 'the new key works');
    assert.equal(await page.evaluate(() => localStorage.getItem('sf_api_key')), newKey, 'the app now uses the new key');
    await visitor.screenshot('account-rotated');
    assert.deepEqual(visitor.problems, []);
  });

  it('a browser that lost its key but keeps its session is sent to rotate it, not given a second account', async () => {
    const { page } = visitor;
    const key = (await page.evaluate(() => localStorage.getItem('sf_api_key')))!;
    const me = (await sf.api('GET', '/api/v1/whoami-key', { key })).body;
    const modelsBefore = (await sf.api('GET', '/api/v1/models', { key })).body.count;
    await page.evaluate(() => localStorage.removeItem('sf_api_key'));
    await page.goto(`${sf.url}/`);
    await page.fill('#prompt', 'EURUSD 1 minute EMA crossover');
    await page.click('#run');
    const error = await (await page.waitForSelector('#progress .error')).textContent();
    assert.equal(
      error,
      `This browser is signed in as ${me.username} but does not hold its API key: rotate the key on the Account page to use it here.`,
    );
    assert.equal((await sf.api('GET', '/api/v1/models', { key })).body.count, modelsBefore, 'nothing ran');
    await page.goto(`${sf.url}/account`);
    await page.click('#rotate');
    const fresh = (await page.textContent('#new-key'))!;
    assert.equal((await sf.api('GET', '/api/v1/whoami-key', { key: fresh })).body.user_id, me.user_id, 'the same account, with a new key');
    assert.deepEqual(visitor.problems, []);
  });

  it('a live signal appears in the model page’s feed when a bar closes', async () => {
    const { watcher, openedAt } = await barWatch;
    // The next 1-minute bar close after the page opened (at most a minute away, plus the actor's turn).
    // A catch-up signal (late) may come first: the actor announces its position as it starts.
    const item = await watcher.page.waitForSelector('#signal-feed li.signal:not(.late)', { timeout: 90_000 });
    const text = (await item.textContent())!;
    assert.match(text, /^\d{4}-\d\d-\d\d \d\d:\d\d (open|close) (long|short) @ \d/);
    assert.ok(!text.includes('(late)'), `sent on time: ${text}`);
    const barTime = Date.parse(`${text.slice(0, 16).replace(' ', 'T')}:00Z`);
    assert.ok(barTime >= openedAt - 2 * 60_000, 'a bar that closed while the page was open');
    await watcher.screenshot('model-live-bar-close');
    assert.deepEqual(watcher.problems, []);
    await watcher.context.close();
  });

  describe('a page of another site', () => {
    let evil: Server;
    let evilUrl: string;
    before(async () => {
      // Another origin on the same host (same-site: the Lax cookie IS sent, so the edge's check is what stops it).
      evil = createServer((req, res) => {
        const target = new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '';
        res.setHeader('content-type', 'text/html');
        res.end(
          `<!doctype html><form id="f" method="post" enctype="text/plain" action="${sf.url}${target}"><input name='{"a":"' value='"}'><button>go</button></form>`,
        );
      });
      await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
      evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => evil.close(() => resolve())));

    it('cannot rotate, deploy or spend with the visitor’s cookie', async () => {
      const { page, context } = visitor;
      const key = (await page.evaluate(() => localStorage.getItem('sf_api_key')))!;
      const before = (await sf.api('GET', '/api/v1/key/usage', { key })).body.balance;
      const deployedBefore = (await sf.api('GET', '/api/v1/deployed', { key })).body;
      const attacker = await context.newPage();
      for (const target of ['/api/v1/key/generate', '/api/v1/deploy', '/api/v1/one_shot', '/api/v1/logout', '/api/v1/key/trial']) {
        await attacker.goto(`${evilUrl}/?to=${encodeURIComponent(target)}`);
        const [response] = await Promise.all([attacker.waitForNavigation(), attacker.click('button')]);
        assert.equal(response?.status(), 403, `${target}: ${await attacker.textContent('body')}`);
        assert.match((await attacker.textContent('body')) ?? '', /SF_FOREIGN_ORIGIN/);
        assert.equal(response?.request().headers().origin, evilUrl, 'the browser named the attacking origin');
      }
      await attacker.screenshot({ path: 'test-output/web/cross-site-refused.png' });
      await attacker.close();
      assert.equal((await sf.api('GET', '/api/v1/whoami-key', { key })).status, 200, 'the key was not rotated');
      assert.equal((await sf.api('GET', '/api/v1/key/usage', { key })).body.balance, before, 'no credit was spent');
      assert.deepEqual((await sf.api('GET', '/api/v1/deployed', { key })).body, deployedBefore, 'nothing was deployed');
      const me = await page.evaluate(async () => (await fetch('/api/v1/whoami-key')).status);
      assert.equal(me, 200, 'the session still stands (the forged logout was refused)');
    });
  });
  it('deletes a model from the account page after an inline confirmation, and its deployment with it', async () => {
    const { page } = visitor;
    const key = (await page.evaluate(() => localStorage.getItem('sf_api_key')))!;
    const before = (await sf.api('GET', '/api/v1/models', { key })).body.models as { name: string; model_name: string }[];
    const deployed = (await sf.api('GET', '/api/v1/deployed', { key })).body.deployed as { model: string }[];
    const target = before.find((m) => deployed.some((d) => d.model === m.name)) ?? before[0]!;
    await page.goto(`${sf.url}/account`);
    await page.waitForSelector('.models');
    const item = page.locator('li', { has: page.locator(`a[href="/models/${encodeURIComponent(target.name)}"]`) }).first();
    // Asked, then cancelled: nothing happens.
    await item.locator('button.ask-delete').click();
    assert.equal(await item.locator('.delete-model .warning').textContent(), `Delete "${target.model_name}" and stop its deployment? `);
    await item.locator('button.cancel-delete').click();
    assert.equal((await sf.api('GET', '/api/v1/models', { key })).body.count, before.length, 'a cancelled delete deletes nothing');
    await item.locator('button.ask-delete').click();
    await Promise.all([page.waitForEvent('load'), item.locator('button.confirm-delete').click()]);
    const after = (await sf.api('GET', '/api/v1/models', { key })).body.models as { name: string }[];
    assert.deepEqual(
      after.map((m) => m.name),
      before.filter((m) => m.name !== target.name).map((m) => m.name),
    );
    assert.equal((await sf.api('GET', `/api/v1/results/${encodeURIComponent(target.name)}`, { key })).status, 404);
    const still = (await sf.api('GET', '/api/v1/deployed', { key })).body.deployed as { model: string }[];
    assert.ok(!still.some((d) => d.model === target.name), 'its deployment went with it');
    await page.waitForSelector('.models');
    await visitor.screenshot('account-model-deleted');
    assert.deepEqual(visitor.problems, []);
  });
});
