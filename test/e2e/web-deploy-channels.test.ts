/**
 * The model page's deploy controls offer every delivery channel (issue 38), in a real browser
 * (Debian chromium) against the real service: Discord and Slack webhooks (local stand-ins that
 * answer as the services do), a webhook with a bridge body template (verified by the reference
 * Standard Webhooks implementation), and e-mail through a real SMTP server in the test process —
 * registered, confirmed by the mailed link and deployed from the page. Restarted without SMTP_URL,
 * the page says e-mail is unavailable and why, and deploys without it.
 * Each test saves a screenshot under test-output/web/.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import type { SignalEvent } from '../../schemas/live.ts';
import { EMAIL_OFF } from '../../src/delivery/index.ts';
import { freshPage, launchBrowser, type WatchedPage } from '../helpers/browser.ts';
import { startDiscordStandIn, type DiscordStandIn } from '../helpers/discord-stand-in.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { startSlackStandIn, type SlackStandIn } from '../helpers/slack-stand-in.ts';
import { startSmtpStandIn, type SmtpStandIn } from '../helpers/smtp-stand-in.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { trainModel } from '../helpers/training.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

const TEMPLATE = '{"action":"{{order}}","ticker":"{{symbol}}","price":{{price}},"sl":{{stop_loss}},"comment":"{{model}} {{signal_id}}"}';

async function waitUntil(predicate: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the model page deploys to every channel', () => {
  let sf: TestService;
  let browser: Browser;
  let discord: DiscordStandIn;
  let slack: SlackStandIn;
  let smtp: SmtpStandIn;
  let key: string;
  let stem: string;
  /** The owner's browser, its key stored before any page script runs (on every origin it opens). */
  let visitor: WatchedPage;
  /** Signal numbers no live bar of the deployment would use (its own start at 0). */
  let n = 900;

  before(async () => {
    [discord, slack, smtp, browser] = await Promise.all([startDiscordStandIn(), startSlackStandIn(), startSmtpStandIn(), launchBrowser()]);
    sf = await startTestService({
      TRIAL_MINTS_PER_HOUR: '100',
      WEBHOOK_ALLOW_PRIVATE: 'loopback',
      DISCORD_WEBHOOK_HOSTS: discord.origin,
      SLACK_WEBHOOK_HOSTS: slack.origin,
      SMTP_URL: smtp.url,
      EMAIL_FROM: 'signalforge <signals@signals.test>',
    });
    key = (await sf.mintKey('channel_owner')).api_key;
    // A threshold few bars reach: the live model itself seldom signals while the tests publish theirs.
    stem = (await trainModel(sf, key, { code: strategyCode({ threshold: 0.95 }), symbol: 'EURUSD', timeframe: '1min' })).model_stem!;
    visitor = await freshPage(browser);
    await visitor.context.addInitScript((k) => localStorage.setItem('sf_api_key', k), key);
  });
  after(async () => {
    await browser?.close();
    await sf?.stop();
    await Promise.all([discord?.stop(), slack?.stop(), smtp?.stop()]);
  });

  // Each test answers for the console of its own steps.
  beforeEach(() => {
    if (visitor) visitor.problems.length = 0;
  });

  const openModelPage = async () => {
    await visitor.page.goto(`${sf.url}/models/${encodeURIComponent(stem)}`);
    await visitor.page.waitForSelector('body[data-ready="1"]', { timeout: 30_000 });
    await visitor.page.waitForSelector('#deploy button.secondary:text-is("Mail me a confirmation link"), #deploy p:has-text("E-mail:")');
  };
  /** A deploy field by its label (the labels wrap their inputs). */
  const field = (label: string) =>
    visitor.page
      .locator('#deploy label')
      .filter({ hasText: new RegExp(`^${label}`) })
      .locator('input, textarea');
  const deployButton = () => visitor.page.locator('#deploy > button:not(.secondary)');
  /** Waits until the panel's first line names exactly these channels (in any order). */
  const deployedOn = async (channels: string[]) => {
    try {
      await visitor.page.waitForFunction(
        (want) => {
          const said = /^Deployed on (.*)\.$/.exec(document.querySelector('#deploy > p')?.textContent ?? '')?.[1];
          return said !== undefined && said.split(', ').sort().join() === want;
        },
        [...channels].sort().join(),
        { timeout: 15_000 },
      );
    } catch (err) {
      throw new Error(`not deployed on ${channels.join(', ')}; the panel says: ${await visitor.page.textContent('#deploy')}`, {
        cause: err,
      });
    }
  };
  const deployment = async () => {
    const res = await sf.api('GET', '/api/v1/deployed', { key });
    return (
      res.body.deployed as Array<{
        model: string;
        deployment_id: string;
        model_name: string;
        channels: string[];
        webhook_url: string | null;
        webhook_template: string | null;
      }>
    ).find((d) => d.model === stem)!;
  };
  /** Publishes an open-long signal of the deployment on SIGNALS, as its actor would. */
  const publishSignal = async (d: { deployment_id: string; model_name: string }): Promise<SignalEvent> => {
    const barTime = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 60_000).toISOString();
    const signal: SignalEvent = {
      id: `sig_${d.deployment_id}_${Date.parse(barTime)}_${n++}`,
      deployment_id: d.deployment_id,
      model: stem,
      model_name: d.model_name,
      symbol: 'EURUSD',
      timeframe: '1min',
      action: 'open',
      side: 'long',
      price: 1.0871,
      stop_loss: 1.0851,
      take_profit: 1.0901,
      reason: 'signal',
      p_up: 0.97,
      pnl: null,
      bar_time: barTime,
      created_at: new Date().toISOString(),
    };
    await sf.service.bus.js.publish(`signals.${d.deployment_id}`, JSON.stringify(signal));
    return signal;
  };
  /** Waits until the deployment's channel has delivered and has nothing pending. */
  const delivered = async (channel: string) => {
    await waitUntil(
      async () => {
        const res = await sf.api('GET', `/api/v1/deploy/${encodeURIComponent(stem)}/deliveries`, { key });
        const c = (res.body.channels as Array<{ channel: string; delivered: number; pending: number }> | undefined)?.find(
          (x) => x.channel === channel,
        );
        return !!c && c.delivered >= 1 && c.pending === 0;
      },
      15_000,
      `${channel} delivered`,
    );
  };

  it('deploys to a Discord and a Slack webhook from the page; a signal is posted once to each, as an embed and as blocks', async () => {
    const { page } = visitor;
    await openModelPage();
    assert.equal(await page.textContent('#deploy > p'), 'Not deployed.');
    const discordUrl = discord.webhook('3801', 'tok-page');
    const slackUrl = slack.webhook('T38/B38/page-secret');
    await field('Discord webhook URL').fill(discordUrl);
    await field('Slack webhook URL').fill(slackUrl);
    await deployButton().click();
    await deployedOn(['sse', 'discord', 'slack']);
    const d = await deployment();
    assert.deepEqual([...d.channels].sort(), ['discord', 'slack', 'sse']);
    // The URLs are secrets: the page says so and does not fill them in again.
    assert.equal(await field('Discord webhook URL').inputValue(), '');
    assert.match((await page.textContent('#deploy'))!, /Discord and Slack webhook URLs are secrets and are not shown again/);

    const signal = await publishSignal(d);
    await Promise.all([delivered('discord'), delivered('slack')]);
    const embeds = discord.posted.filter((m) => m.signalId === signal.id);
    assert.equal(embeds.length, 1, 'one Discord message for the signal');
    assert.equal(embeds[0]!.webhook, '3801');
    assert.equal(embeds[0]!.body.embeds.length, 1);
    assert.equal(embeds[0]!.body.embeds[0].title, '🟢 OPEN LONG · EURUSD 1min');
    const posts = slack.posted.filter((m) => m.signalId === signal.id);
    assert.equal(posts.length, 1, 'one Slack message for the signal');
    assert.equal(posts[0]!.webhook, 'T38/B38/page-secret');
    assert.match(JSON.stringify(posts[0]!.body.blocks), /OPEN LONG/);
    await visitor.screenshot('model-deploy-discord-slack');
    assert.deepEqual(visitor.problems, []);
  });

  it('deploys a webhook with a bridge body template from the page: the receiver gets the filled JSON, signed', async () => {
    const { page } = visitor;
    const receiver = await startWebhookReceiver();
    try {
      await openModelPage();
      await field('Webhook URL').fill(`${receiver.url}/bridge`);
      await field('Webhook body template').fill(TEMPLATE);
      await deployButton().click();
      const secret = (await (await page.waitForSelector('#deploy .notice code.key')).textContent())!;
      await deployedOn(['sse', 'webhook']);
      const d = await deployment();
      assert.deepEqual([...d.channels].sort(), ['sse', 'webhook'], 'Discord and Slack left out: their URLs were not pasted again');
      assert.equal(d.webhook_template, TEMPLATE);
      assert.equal(await field('Webhook body template').inputValue(), TEMPLATE, 'the page shows the template deployed');

      receiver.secret('/bridge', secret);
      const signal = await publishSignal(d);
      await receiver.waitFor(
        () => receiver.accepted('/bridge').some((r) => r.headers['webhook-id'] === signal.id),
        15_000,
        'the bridge POST',
      );
      const hook = receiver.accepted('/bridge').find((r) => r.headers['webhook-id'] === signal.id)!;
      assert.equal(hook.verified, true, hook.verifyError);
      assert.deepEqual(hook.payload, {
        action: 'buy',
        ticker: 'EURUSD',
        price: signal.price,
        sl: signal.stop_loss,
        comment: `${d.model_name} ${signal.id}`,
      });
      await visitor.screenshot('model-deploy-bridge-template');
      assert.deepEqual(visitor.problems, []);
    } finally {
      await receiver.stop();
    }
  });

  it('e-mail: an address registered on the page is confirmed by the mailed link, then deployed; a signal arrives as a mail', async () => {
    const { page } = visitor;
    const address = 'trader@example.com';
    await openModelPage();
    assert.equal(await page.locator('#deploy-email').count(), 0, 'no address confirmed yet: no e-mail box to tick');
    assert.match((await page.textContent('#deploy .email'))!, /E-mail: confirm an address to receive signals by mail\./);
    await page.fill('#deploy .email input[type=email]', address);
    await page.click('#deploy .email button:text-is("Mail me a confirmation link")');
    await page.waitForSelector(`#deploy .email span:has-text("a confirmation link was mailed to ${address}")`);
    await waitUntil(() => smtp.to(address).length === 1, 10_000, 'the confirmation mail');
    const [confirmation] = smtp.to(address);
    const link = /(http:\/\/\S+\/api\/v1\/email\/confirm\?token=\S+)/.exec(confirmation!.text!)?.[1];
    assert.ok(link?.startsWith(`${sf.url}/`), `the mail links this service: ${confirmation!.text}`);

    await page.goto(link!);
    assert.equal(await page.textContent('h1'), 'Address confirmed');
    assert.match((await page.textContent('body'))!, new RegExp(`${address} is confirmed`));

    await openModelPage();
    assert.match((await page.textContent('#deploy .email'))!, new RegExp(`E-mail \\(${address}\\)`));
    assert.equal(await field('Webhook URL').inputValue(), (await deployment()).webhook_url, 'the webhook deployed before is filled in');
    await field('Webhook URL').fill('');
    await page.check('#deploy-email');
    await deployButton().click();
    await deployedOn(['sse', 'email']);
    const d = await deployment();
    assert.deepEqual([...d.channels].sort(), ['email', 'sse']);

    const signal = await publishSignal(d);
    await waitUntil(
      () => smtp.to(address).some((m) => m.headers['message-id'] === `<${signal.id}@signalforge>`),
      15_000,
      'the signal mail',
    );
    const mails = smtp.to(address).filter((m) => m.headers['message-id'] === `<${signal.id}@signalforge>`);
    assert.equal(mails.length, 1);
    assert.equal(mails[0]!.subject, `OPEN LONG · EURUSD 1min · ${d.model_name}`);
    assert.equal(mails[0]!.from, 'signals@signals.test');
    assert.equal(await page.isChecked('#deploy-email'), true, 'the page shows e-mail deployed');
    await visitor.screenshot('model-deploy-email');
    assert.deepEqual(visitor.problems, []);
  });

  describe('on a server without SMTP_URL', () => {
    before(async () => {
      const undeployed = await sf.api('DELETE', `/api/v1/deploy/${encodeURIComponent(stem)}`, { key });
      assert.equal(undeployed.status, 200, undeployed.text);
      // An empty variable counts as unset.
      await sf.restart({ SMTP_URL: '' });
    });

    it('the page shows e-mail as unavailable with the reason, offers no e-mail control, and deploys without it', async () => {
      const { page } = visitor;
      await openModelPage();
      const said = await page.textContent('#deploy');
      assert.ok(said!.includes(`E-mail: unavailable — ${EMAIL_OFF}.`), said!);
      assert.equal(await page.locator('#deploy-email').count(), 0, 'no box to tick');
      assert.equal(await page.locator('#deploy .email').count(), 0, 'no address form');
      await deployButton().click();
      await deployedOn(['sse']);
      assert.deepEqual((await deployment()).channels, ['sse']);
      await visitor.screenshot('model-deploy-email-unavailable');
      assert.deepEqual(visitor.problems, []);
    });
  });
});
