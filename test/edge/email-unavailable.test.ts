/**
 * The email channel on a server without SMTP_URL (as `npm start` runs with no mail server): it is
 * listed as unavailable with the reason wherever it shows, and every way in is refused (422)
 * naming SMTP_URL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openBucket } from '../../src/bus/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { modelRecord } from '../community/fixtures.ts';
import { deploy } from '../delivery/harness.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

describe('email channel without SMTP_URL', () => {
  let s: TestService;
  let key: string;
  let userId: number;

  before(async () => {
    s = await startTestService({ MARKET_FEED: 'none', RATE_LIMIT_PER_MIN: '100000' });
    ({ api_key: key, user_id: userId } = await s.mintKey('no-mail'));
  });
  after(() => s?.stop());

  it('GET /api/v1/email says the channel is unavailable and why', async () => {
    const res = await s.api('GET', '/api/v1/email', { key });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.available, false);
    assert.match(
      res.body.unavailable_reason,
      /^the email channel is unavailable on this server: no SMTP server is configured \(the operator sets SMTP_URL/,
    );
  });

  it('registering an address, and deploying with the email channel, are refused (422) naming SMTP_URL', async () => {
    const register = await s.api('POST', '/api/v1/email', { key, body: { address: 'a@example.com' } });
    assert.equal(register.status, 422, register.text);
    assert.match(register.body.error, /SMTP_URL/);

    // The refusal comes before the model's safety check: any stored bytes do.
    const record = modelRecord({ user_id: userId, model_name: 'No Mail' });
    await s.service.domain.training.models.save(record, {
      onnx: new Uint8Array([1, 2, 3]),
      code: '# code\n',
      results: { pred_signals: [] } as never,
    });
    const deployed = await s.api('POST', '/api/v1/deploy', { key, body: { model_name: 'No Mail', channels: ['sse', 'email'] } });
    assert.equal(deployed.status, 422, deployed.text);
    assert.equal(deployed.body.error_code, 'SF_UNPROCESSABLE');
    assert.match(
      deployed.body.error,
      /^the email channel is unavailable on this server \(no SMTP_URL is configured\): choose another channel$/,
    );
  });

  it('one_shot with deliver_to.email is refused (422) before anything is charged', async () => {
    const balance = async () => (await s.api('GET', '/api/v1/key/usage', { key })).body.balance as number;
    const credits = await balance();
    const res = await s.api('POST', '/api/v1/one_shot', {
      key,
      body: { prompt: 'buy EURUSD when RSI is below 30', deliver_to: { email: true } },
    });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.error, 'deliver_to.email: the email channel is unavailable on this server (no SMTP_URL is configured)');
    assert.equal(await balance(), credits, 'nothing charged');
  });

  it('an email deployment made elsewhere shows its channel disabled with the reason in the delivery log', async () => {
    const deployments = await openBucket(s.service.bus, Buckets.deployments);
    await deploy({ deployments }, { userId, modelName: 'Mailed Elsewhere', channels: ['email'], extra: { email_to: 'a@example.com' } });
    const res = await s.api('GET', `/api/v1/deploy/${encodeURIComponent('Mailed Elsewhere')}/deliveries`, { key });
    assert.equal(res.status, 200, res.text);
    const [email] = res.body.channels;
    assert.deepEqual([email.channel, email.enabled, email.target], ['email', false, 'a@example.com']);
    assert.match(email.disabled_reason, /no SMTP server is configured \(the operator sets SMTP_URL/);
  });

  it('the OpenAPI document and /api/v1/docs offer the channel and say it is unavailable here', async () => {
    const res = await s.api('GET', '/openapi.json');
    assert.equal(res.status, 200);
    const text = JSON.stringify(res.body);
    assert.match(text, /email = a mail to your confirmed address \(POST \/api\/v1\/email; unavailable on a server without SMTP_URL\)/);
    for (const path of ['/api/v1/email', '/api/v1/email/confirm', '/api/v1/email/unsubscribe']) assert.ok(res.body.paths[path], path);
    const docs = await s.api('GET', '/api/v1/docs');
    const register = docs.body.tasks
      .flatMap((t: { endpoints: Array<{ method: string; path: string; summary: string }> }) => t.endpoints)
      .find((e: { method: string; path: string }) => e.method === 'POST' && e.path === '/api/v1/email');
    assert.match(register.summary, /\(unavailable on this server: no SMTP_URL\)$/);
  });
});
