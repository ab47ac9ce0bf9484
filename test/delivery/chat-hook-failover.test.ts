/**
 * Discord and Slack delivery across a delivery process killed (SIGKILL) while their webhooks hold
 * it back (a 429): two `signalforge delivery` processes on one real nats-server share the
 * deployments by lease; the holder dies mid-hold; the survivor takes every deployment over once
 * the leases expire, meets what is left of the hold, and posts each signal exactly once, in order.
 * (A process killed during the POST itself may have had it posted: neither service takes an
 * idempotency key, so that one signal can come twice — see the delivery README.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DeploymentRecord, SignalEvent } from '../../schemas/live.ts';
import { startDiscordStandIn, type DiscordStandIn } from '../helpers/discord-stand-in.ts';
import { startSlackStandIn, type SlackStandIn } from '../helpers/slack-stand-in.ts';
import { deploy, publish, signal, waitFor } from './harness.ts';
import { processCluster, twoProcesses } from './process-cluster.ts';

describe('discord and slack delivery across a killed delivery process', () => {
  const cluster = processCluster('chat-failover');
  let discord: DiscordStandIn;
  let slack: SlackStandIn;
  before(async () => {
    discord = await startDiscordStandIn();
    slack = await startSlackStandIn();
  });
  after(async () => {
    await discord?.stop();
    await slack?.stop();
  });

  it('killed while held by 429s: every signal reaches each channel once, in order, from the survivor', { timeout: 120_000 }, async () => {
    const deployed: DeploymentRecord[] = [];
    for (let i = 0; i < 3; i++) {
      deployed.push(
        await deploy(cluster, {
          channels: ['discord', 'slack'],
          extra: { discord_webhook_url: discord.webhook(String(900 + i), `tok${i}`), slack_webhook_url: slack.webhook(`T9/B${i}/s${i}`) },
        }),
      );
      // Each webhook's first call is refused for 8 s: longer than the leases take to expire (6 s).
      discord.rateLimitNext(String(900 + i), 8);
      slack.rateLimitNext(`T9/B${i}/s${i}`, 8);
    }
    const env = {
      WEBHOOK_ALLOW_PRIVATE: 'loopback',
      WEBHOOK_RETRY_BASE_MS: '200',
      DISCORD_WEBHOOK_HOSTS: discord.origin,
      SLACK_WEBHOOK_HOSTS: slack.origin,
    };
    const processes = await twoProcesses(cluster, deployed, env, true);

    const published = new Map<string, SignalEvent[]>(deployed.map((d) => [d.deployment_id, [signal(d, 0), signal(d, 1)]]));
    for (const events of published.values()) for (const e of events) await publish(cluster.bus, e);
    const held = () =>
      deployed.every(
        (_, i) =>
          discord.attempts.some((a) => a.webhook === String(900 + i) && a.status === 429) &&
          slack.attempts.some((a) => a.webhook === `T9/B${i}/s${i}` && a.status === 429),
      );
    await waitFor(held, 20_000, 'every webhook holding its first signal back');
    assert.equal(discord.posted.length + slack.posted.length, 0, 'nothing posted yet');
    // Whoever holds more deployments now dies without a goodbye, mid-hold.
    const survivor = await processes.killBusier();

    const total = deployed.length * 2;
    await waitFor(() => discord.posted.length >= total && slack.posted.length >= total, 60_000, 'every signal on both channels');
    await new Promise((r) => setTimeout(r, 1_000));
    for (const [i, d] of deployed.entries()) {
      const ids = published.get(d.deployment_id)!.map((e) => e.id);
      assert.deepEqual(
        discord.posted.filter((m) => m.webhook === String(900 + i)).map((m) => m.signalId),
        ids,
        `discord ${i}: each once, in order`,
      );
      assert.deepEqual(
        slack.posted.filter((m) => m.webhook === `T9/B${i}/s${i}`).map((m) => m.signalId),
        ids,
        `slack ${i}: each once, in order`,
      );
    }
    assert.ok(
      (await processes.holders()).every((h) => h === survivor),
      'the survivor holds every deployment',
    );
  });
});
