/**
 * The webhook sender against a local receiver and a stand-in DNS: a deployment's signals post to
 * one checked target, resolved once per `dnsCacheMs`; once that has passed, the host is resolved
 * and checked again, so a name that now answers a private address (DNS rebinding) is not called.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WebhookSender } from '../../../actors/delivery/webhook-sender.ts';
import type { HostLookup, ResolvedAddress } from '../../../src/delivery/index.ts';
import { clockAt } from '../../../src/lib/clock.ts';
import { signal } from '../../delivery/harness.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';
import type { DeploymentRecord } from '../../../schemas/live.ts';

const secret = `whsec_${Buffer.from('a test secret of 24 bytes').toString('base64')}`;

function deployment(url: string): DeploymentRecord {
  return {
    deployment_id: 'dep_sender',
    user_id: 7,
    username: 'user-7',
    model_name: 'Model',
    stem: '7_EURUSD_15min_Model',
    symbol: 'EURUSD',
    timeframe: '15min',
    channels: ['webhook'],
    webhook_url: url,
    webhook_secret: secret,
    messenger_chat_id: null,
    created_at: 0,
  };
}

describe('WebhookSender', () => {
  let receiver: WebhookReceiver;
  // Near the real time: the receiver refuses signatures whose timestamp is minutes off.
  let now = Date.now();
  let answer: ResolvedAddress[] = [{ address: '127.0.0.1', family: 4 }];
  const asked: string[] = [];
  const lookup: HostLookup = async (host) => {
    asked.push(host);
    return answer;
  };
  let sender: WebhookSender;

  before(async () => {
    receiver = await startWebhookReceiver();
    sender = new WebhookSender({ allowPrivate: 'loopback', timeoutMs: 5_000, lookup, dnsCacheMs: 5_000, clock: clockAt(() => now) });
  });
  after(async () => {
    sender.close();
    await receiver.stop();
  });

  it('posts every signal of a deployment signed to its target, resolving the host once per dnsCacheMs', async () => {
    const url = `http://hooks.test:${receiver.port}/a`;
    const other = `http://hooks.test:${receiver.port}/b`;
    receiver.secret('/a', secret);
    receiver.secret('/b', secret);
    for (let n = 0; n < 5; n++) assert.deepEqual(await sender.send(signal(deployment(url), n), deployment(url)), { ok: true, status: 200 });
    // Another path on the same host: the host's checked addresses are reused.
    assert.deepEqual(await sender.send(signal(deployment(other), 0), deployment(other)), { ok: true, status: 200 });
    assert.deepEqual(asked, ['hooks.test']);
    assert.equal(receiver.accepted('/a').length, 5);
    assert.ok(receiver.accepted().every((hook) => hook.verified === true));
  });

  it('after dnsCacheMs the host is resolved and checked again: a private answer now is refused and not called', async () => {
    const url = `http://hooks.test:${receiver.port}/a`;
    const before = receiver.requests.length;
    answer = [{ address: '10.0.0.7', family: 4 }];
    // Still inside the cache: the address checked before is the one connected to.
    now += 4_000;
    assert.equal((await sender.send(signal(deployment(url), 8), deployment(url))).ok, true);
    now += 1_001;
    const refused = await sender.send(signal(deployment(url), 9), deployment(url));
    assert.equal(refused.ok, false);
    assert.match(refused.ok ? '' : refused.error, /resolves to 10\.0\.0\.7, which is a private address/);
    assert.equal(receiver.requests.length, before + 1, 'the refused send reached nobody');
    // Refusals are not cached: the next send asks again, and a public answer passes again.
    answer = [{ address: '127.0.0.1', family: 4 }];
    assert.equal((await sender.send(signal(deployment(url), 10), deployment(url))).ok, true);
    assert.deepEqual(asked, ['hooks.test', 'hooks.test', 'hooks.test']);
  });
});
