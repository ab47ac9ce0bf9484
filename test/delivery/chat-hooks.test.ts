/**
 * Discord and Slack webhook URLs at deploy: only the services' own hosts (the configured list),
 * only their webhook paths, https, and the SSRF check on top (a listed host that resolves to a
 * private address is refused all the same). The default host lists are the configuration's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { checkChatHook, webhookTargetChecker, type HostLookup } from '../../src/delivery/index.ts';
import { WebhookTargetError } from '../../src/errors.ts';

/** Stand-in DNS: Discord and Slack public; `discord.com` itself answers a private address only when asked to. */
const lookup =
  (privateDiscord = false): HostLookup =>
  async (host) => {
    if (host === 'discord.com' && privateDiscord) return [{ address: '10.1.2.3', family: 4 }];
    if (/(^|\.)discord(app)?\.com$/.test(host)) return [{ address: '162.159.135.232', family: 4 }];
    if (host === 'hooks.slack.com') return [{ address: '34.226.36.45', family: 4 }];
    if (host === 'evil.example') return [{ address: '93.184.216.34', family: 4 }];
    throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  };

const config = loadConfig({});
const refused = async (promise: Promise<unknown>, message: RegExp) =>
  assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof WebhookTargetError, String(err));
    assert.match((err as Error).message, message);
    return true;
  });

describe('discord webhook URLs', () => {
  const check = (url: string, privateDiscord = false) =>
    checkChatHook('discord', url, config.DISCORD_WEBHOOK_HOSTS, { lookup: lookup(privateDiscord) });

  it('accepts Discord’s hosts and webhook paths', async () => {
    for (const host of ['discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com']) {
      const checked = await check(`https://${host}/api/webhooks/123456789012345678/AbC-dEf_123`);
      assert.equal(checked.normalized, `https://${host}/api/webhooks/123456789012345678/AbC-dEf_123`);
    }
    assert.ok(await check('https://discord.com/api/v10/webhooks/1/t?thread_id=5'), 'an API version and a thread');
  });

  it('refuses other hosts, http, and paths that are not a webhook', async () => {
    await refused(check('https://evil.example/api/webhooks/1/t'), /^discord_webhook_url must be a Discord webhook URL on discord\.com, /);
    await refused(check('https://discord.com.evil.example/api/webhooks/1/t'), /must be a Discord webhook URL/);
    await refused(check('http://discord.com/api/webhooks/1/t'), /must be a Discord webhook URL/);
    await refused(check('https://discord.com:8443/api/webhooks/1/t'), /must be a Discord webhook URL/);
    await refused(
      check('https://discord.com/api/users/@me'),
      /^discord_webhook_url is not a Discord webhook URL: it should look like https:\/\/discord\.com\/api\/webhooks\/<id>\/<token>$/,
    );
    await refused(check('https://user:pw@discord.com/api/webhooks/1/t'), /is not a Discord webhook URL/);
  });

  it('refuses a listed host that resolves to a private address (the SSRF check)', async () => {
    await refused(
      check('https://discord.com/api/webhooks/1/t', true),
      /^discord_webhook_url host "discord\.com" resolves to 10\.1\.2\.3, which is a private address/,
    );
  });

  it('matches an origin in the list exactly (a local stand-in)', async () => {
    const hosts = ['http://127.0.0.1:9000'];
    assert.ok(await checkChatHook('discord', 'http://127.0.0.1:9000/api/webhooks/1/t', hosts, { allowPrivate: 'loopback' }));
    await refused(
      checkChatHook('discord', 'http://127.0.0.1:9001/api/webhooks/1/t', hosts, { allowPrivate: 'loopback' }),
      /must be a Discord webhook URL/,
    );
    await refused(checkChatHook('discord', 'http://127.0.0.1:9000/api/webhooks/1/t', hosts), /loopback address/);
  });
});

describe('slack webhook URLs', () => {
  const check = (url: string) => checkChatHook('slack', url, config.SLACK_WEBHOOK_HOSTS, { lookup: lookup() });

  it('accepts hooks.slack.com/services/…', async () => {
    assert.ok(await check('https://hooks.slack.com/services/T0001/B0002/XXXXyyyyZZZZ'));
  });

  it('refuses other hosts and paths', async () => {
    await refused(
      check('https://evil.example/services/T0001/B0002/x'),
      /^slack_webhook_url must be a Slack webhook URL on hooks\.slack\.com, /,
    );
    await refused(check('https://hooks.slack.com/workflows/T0001/A1/1/x'), /^slack_webhook_url is not a Slack webhook URL/);
    await refused(check('not a url'), /^slack_webhook_url is not a valid URL$/);
  });
});

describe('the deploy API’s checker', () => {
  it('sends each channel’s URL to its own check', async () => {
    const checker = webhookTargetChecker({
      ...config,
      WEBHOOK_ALLOW_PRIVATE: 'loopback',
      DISCORD_WEBHOOK_HOSTS: ['http://127.0.0.1:9000'],
    });
    assert.equal(await checker('http://127.0.0.1:9000/api/webhooks/1/t', 'discord'), 'http://127.0.0.1:9000/api/webhooks/1/t');
    assert.equal(
      await checker('http://127.0.0.1:9000/anything'),
      'http://127.0.0.1:9000/anything',
      'a plain webhook may be any public (here: allowed) URL',
    );
    await refused(checker('http://127.0.0.1:9000/api/webhooks/1/t', 'slack'), /slack_webhook_url must be a Slack webhook URL/);
  });
});
