import assert from 'node:assert/strict';
import { randomBytes, webcrypto } from 'node:crypto';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { signWebhook, webhookBody, webhookHeaders } from '../../src/delivery/index.ts';
import { WebhookPayload } from '../../schemas/delivery.ts';
import type { SignalEvent } from '../../schemas/live.ts';

const event: SignalEvent = {
  id: 'sig_dep_abc_1714564800000_0',
  deployment_id: 'dep_abc',
  model: '7_EURUSD_15min_Momentum',
  model_name: 'Momentum',
  symbol: 'EURUSD',
  timeframe: '15min',
  action: 'open',
  side: 'long',
  price: 1.08512,
  stop_loss: 1.08312,
  take_profit: 1.08912,
  reason: 'signal',
  p_up: 0.63,
  pnl: null,
  bar_time: '2024-05-01T12:15:00.000Z',
  created_at: '2024-05-01T12:30:00.120Z',
};

/** An implementation of Standard Webhooks verification written apart from ours, on WebCrypto. */
async function verifyWithWebCrypto(secret: string, headers: Record<string, string>, body: string): Promise<boolean> {
  const raw = Uint8Array.from(atob(secret.replace(/^whsec_/, '')), (c) => c.charCodeAt(0));
  const key = await webcrypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const content = new TextEncoder().encode(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`);
  const mac = new Uint8Array(await webcrypto.subtle.sign('HMAC', key, content));
  const expected = btoa(String.fromCharCode(...mac));
  return headers['webhook-signature']!.split(' ').some((s) => s === `v1,${expected}`);
}

describe('Standard Webhooks signing', () => {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;

  it('verifies with the reference implementation (standardwebhooks package)', () => {
    const body = webhookBody(event);
    const headers = webhookHeaders(secret, event.id, Math.floor(Date.now() / 1000), body);
    const payload = new Webhook(secret).verify(body, headers) as WebhookPayload;
    assert.deepEqual(payload, { type: 'signal', timestamp: event.created_at, data: event });
    assert.equal(WebhookPayload.safeParse(payload).success, true);
    assert.equal(headers['content-type'], 'application/json');
    assert.equal(headers['webhook-id'], event.id);
    assert.match(headers['webhook-signature']!, /^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('verifies with an independent WebCrypto implementation', async () => {
    const body = webhookBody(event);
    const headers = webhookHeaders(secret, event.id, 1714564800, body);
    assert.equal(await verifyWithWebCrypto(secret, headers, body), true);
    assert.equal(await verifyWithWebCrypto(secret, headers, body.replace('1.08512', '1.08513')), false);
  });

  it('matches the published test vector of the spec’s reference libraries', () => {
    // The vector used across the Standard Webhooks / Svix libraries' test suites.
    const signature = signWebhook(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    assert.equal(signature, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('fails verification for a tampered body, another secret, or another timestamp', () => {
    const body = webhookBody(event);
    const ts = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders(secret, event.id, ts, body);
    const wh = new Webhook(secret);
    assert.throws(() => wh.verify(body.replace('long', 'short'), headers), /No matching signature/);
    assert.throws(() => new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(body, headers), /No matching signature/);
    assert.throws(() => wh.verify(body, { ...headers, 'webhook-timestamp': String(ts - 1) }), /No matching signature/);
    // A retry re-signs with its own timestamp; the id stays the same.
    const retry = webhookHeaders(secret, event.id, ts + 30, body);
    assert.equal(retry['webhook-id'], headers['webhook-id']);
    assert.notEqual(retry['webhook-signature'], headers['webhook-signature']);
    assert.doesNotThrow(() => wh.verify(body, retry));
  });

  it('signs a non-ASCII body and many secrets one after another, each verifying under its own secret only', async () => {
    const body = webhookBody({ ...event, model_name: 'Mömentum ✓ 動き' });
    const secrets = Array.from({ length: 50 }, () => `whsec_${randomBytes(24).toString('base64')}`);
    const signed = secrets.map((s, i) => webhookHeaders(s, `${event.id}_${i}`, 1714564800, body, 'agent/1'));
    for (let i = 0; i < secrets.length; i++) {
      assert.equal(signed[i]!['user-agent'], 'agent/1');
      assert.ok(await verifyWithWebCrypto(secrets[i]!, signed[i]!, body), `secret ${i}`);
      assert.ok(!(await verifyWithWebCrypto(secrets[(i + 1) % secrets.length]!, signed[i]!, body)), `secret ${i} under the next one`);
    }
    // Signed again (its key now kept): the same signature.
    assert.deepEqual(webhookHeaders(secrets[0]!, `${event.id}_0`, 1714564800, body, 'agent/1'), signed[0]);
  });
});
