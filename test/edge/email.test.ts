/**
 * The email channel over HTTP on the real service (edge, embedded NATS, the delivery actor) with
 * a real SMTP server in the test process: an address registered by the key's owner and confirmed
 * by the signed link mailed to it, POST /deploy refusing the channel until then, a signal mailed
 * with its one-click unsubscribe, the RFC 8058 POST (no key) stopping further mails, and tokens
 * that cannot be forged for another account or address.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EmailStatus } from '../../schemas/email.ts';
import { modelRecord } from '../community/fixtures.ts';
import { publish, signal, waitFor } from '../delivery/harness.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { startSmtpStandIn, type SmtpStandIn } from '../helpers/smtp-stand-in.ts';

/** An ONNX model that passes the deploy's safety check (test/scoring/hostile-models: `honest`). */
function honestModel(): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'email-model-'));
  try {
    execFileSync('/usr/bin/python3', [join(import.meta.dirname, '../scoring/hostile-models/generate.py'), dir], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    return new Uint8Array(readFileSync(join(dir, 'honest.onnx')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A token with its payload changed (the signature kept): what a forger can make. */
function forge(token: string, change: (payload: Record<string, unknown>) => void): string {
  const [body, signature] = token.split('.');
  const payload = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8')) as Record<string, unknown>;
  change(payload);
  return `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;
}

const tokenOf = (url: string): string => new URL(url).searchParams.get('token')!;

describe('email channel over HTTP', () => {
  let s: TestService;
  let smtp: SmtpStandIn;
  const logs: string[] = [];
  const tokens: string[] = [];
  let ada: { api_key: string; user_id: number };
  let ben: { api_key: string; user_id: number };

  before(async () => {
    smtp = await startSmtpStandIn({ password: 'smtp-Pa55word-x' });
    s = await startTestService(
      { MARKET_FEED: 'none', RATE_LIMIT_PER_MIN: '100000', SMTP_URL: smtp.url, EMAIL_FROM: 'signals@signals.test', LOG_LEVEL: 'debug' },
      { logSink: (line) => void logs.push(line) },
    );
    [ada, ben] = [await s.mintKey('ada-mail'), await s.mintKey('ben-mail')];
    const record = modelRecord({ user_id: ada.user_id, model_name: 'Mail Model' });
    await s.service.domain.training.models.save(record, { onnx: honestModel(), code: '# code\n', results: { pred_signals: [] } as never });
  });
  after(async () => {
    await s?.stop();
    await smtp?.stop();
  });

  const deployEmail = (key: string) => s.api('POST', '/api/v1/deploy', { key, body: { model_name: 'Mail Model', channels: ['email'] } });
  const emailStatus = async (key: string) => {
    const res = await s.api('GET', '/api/v1/email', { key });
    assert.equal(res.status, 200, res.text);
    return EmailStatus.parse(res.body);
  };
  const linkIn = (text: string, path: string): string => {
    const found = new RegExp(`(http\\S+${path.replace(/\//g, '\\/')}\\?token=[\\w.-]+)`).exec(text)?.[1];
    assert.ok(found, `a ${path} link in:\n${text}`);
    tokens.push(tokenOf(found));
    return found;
  };

  it('refuses the email channel (422) until the account has confirmed an address', async () => {
    const res = await deployEmail(ada.api_key);
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.error_code, 'SF_UNPROCESSABLE');
    assert.match(
      res.body.error,
      /^the email channel needs a confirmed address: register one with POST \/api\/v1\/email, follow the link mailed to it, then deploy again$/,
    );
    assert.deepEqual(await emailStatus(ada.api_key), {
      available: true,
      unavailable_reason: null,
      status: 'none',
      address: null,
      pending_address: null,
      pending_expires_at: null,
      signals_sent_today: 0,
      daily_cap: 200,
    });
  });

  it('mails a signed single-use link; a forged or altered token confirms nothing; the link confirms', async () => {
    const bad = await s.api('POST', '/api/v1/email', { key: ada.api_key, body: { address: 'not an address' } });
    assert.equal(bad.status, 400, bad.text);

    const res = await s.api('POST', '/api/v1/email', { key: ada.api_key, body: { address: 'Ada.Trader@Example.COM' } });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.address, 'Ada.Trader@example.com', 'the domain in lower case, the local part as given');
    await waitFor(() => smtp.to('Ada.Trader@example.com').length === 1, 10_000, 'the confirmation mail');
    const mail = smtp.to('Ada.Trader@example.com')[0]!;
    assert.equal(mail.subject, 'Confirm your address for signalforge signals');
    const link = linkIn(mail.text!, '/api/v1/email/confirm');
    assert.ok(
      link.startsWith(`${s.url}/api/v1/email/confirm?token=`),
      'the link is on the service’s own address, never the request’s Host',
    );
    assert.ok(mail.html!.includes(link.replace(/&/g, '&amp;')));
    assert.equal((await emailStatus(ada.api_key)).status, 'pending');
    assert.equal((await deployEmail(ada.api_key)).status, 422, 'still not confirmed');

    // Ben registers his own address: his token is genuine, but only for him.
    await s.api('POST', '/api/v1/email', { key: ben.api_key, body: { address: 'ben@example.com' } });
    await waitFor(() => smtp.to('ben@example.com').length === 1, 10_000, 'Ben’s confirmation mail');
    const benToken = tokenOf(linkIn(smtp.to('ben@example.com')[0]!.text!, '/api/v1/email/confirm'));
    const adaToken = tokenOf(link);
    const forgeries = [
      forge(benToken, (p) => (p.u = ada.user_id)),
      forge(adaToken, (p) => (p.a = 'ben@example.com')),
      forge(adaToken, (p) => (p.u = ben.user_id)),
      `${adaToken.split('.')[0]}.${benToken.split('.')[1]}`,
      'eyJwIjoiY29uZmlybSJ9.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    ];
    for (const token of forgeries) {
      const refused = await s.api('POST', `/api/v1/email/confirm?token=${encodeURIComponent(token)}`);
      assert.equal(refused.status, 400, refused.text);
      assert.match(refused.body.error, /^this link is not valid/);
    }
    assert.equal((await emailStatus(ada.api_key)).status, 'pending', 'nothing confirmed by a forgery');
    assert.equal((await emailStatus(ben.api_key)).status, 'pending');

    const page = await fetch(link);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.match(await page.text(), /Address confirmed/);
    const confirmed = await emailStatus(ada.api_key);
    assert.deepEqual([confirmed.status, confirmed.address, confirmed.pending_address], ['confirmed', 'Ada.Trader@example.com', null]);
    assert.equal((await emailStatus(ben.api_key)).status, 'pending', 'Ben’s address is not confirmed by Ada’s link');
  });

  it('deploys to the confirmed address, mails a signal, and the one-click POST (no key) stops further mails', async () => {
    const res = await deployEmail(ada.api_key);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.channels, ['email']);
    const again = await deployEmail(ada.api_key);
    assert.deepEqual(
      [again.body.unchanged, again.body.deployment_id],
      [true, res.body.deployment_id],
      'deploying twice to the same address is idempotent',
    );
    const listed = await s.api('GET', '/api/v1/deployed', { key: ada.api_key });
    assert.equal(listed.body.deployed[0].email_to, 'Ada.Trader@example.com');

    const d = (await s.service.domain.deployments.find(ada.user_id, 'Mail Model'))!;
    const first = signal(d, 0);
    await publish(s.service.bus, first);
    await waitFor(() => smtp.to('Ada.Trader@example.com').length === 2, 15_000, 'the signal mail');
    const mail = smtp.to('Ada.Trader@example.com')[1]!;
    assert.equal(mail.headers['message-id'], `<${first.id}@signalforge>`);
    assert.ok(mail.text && mail.html, 'text with an HTML alternative');
    assert.equal(mail.headers['list-unsubscribe-post'], 'List-Unsubscribe=One-Click');
    const unsubscribe = /^<([^>]+)>$/.exec(mail.headers['list-unsubscribe']!)![1]!;
    tokens.push(tokenOf(unsubscribe));
    assert.ok(unsubscribe.startsWith(`${s.url}/api/v1/email/unsubscribe?token=`));

    // A GET (a link scanner) asks, it does not unsubscribe.
    const ask = await fetch(unsubscribe);
    assert.equal(ask.status, 200);
    assert.match(await ask.text(), /<form method="post"/);
    assert.equal((await emailStatus(ada.api_key)).status, 'confirmed');

    const oneClick = (url: string) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    const forged = await oneClick(unsubscribe.replace(/token=.*/, `token=${forge(tokenOf(unsubscribe), (p) => (p.u = ben.user_id))}`));
    assert.equal(forged.status, 400, await forged.text());
    const done = await oneClick(unsubscribe);
    assert.equal(done.status, 200);
    assert.deepEqual(await done.json(), {
      status: 'unsubscribed',
      address: 'Ada.Trader@example.com',
      message: 'Ada.Trader@example.com will get no more signal e-mails (confirm it again with POST /api/v1/email to resume)',
    });
    assert.equal((await emailStatus(ada.api_key)).status, 'unsubscribed');

    const second = signal(d, 1);
    await publish(s.service.bus, second);
    const deliveries = async () =>
      (await s.api('GET', `/api/v1/deploy/${encodeURIComponent('Mail Model')}/deliveries`, { key: ada.api_key })).body.channels[0];
    await waitFor(async () => (await deliveries()).dead_letters === 1, 15_000, 'the unsent signal in the delivery log');
    const status = await deliveries();
    assert.deepEqual([status.channel, status.enabled, status.delivered, status.target], ['email', false, 1, 'Ada.Trader@example.com']);
    assert.match(status.disabled_reason, /unsubscribed by its one-click link/);
    assert.equal(smtp.to('Ada.Trader@example.com').length, 2, 'no mail after the unsubscribe');
    assert.equal((await deployEmail(ada.api_key)).status, 422, 'the channel needs a confirmed address again');
  });

  it('never logs a link token or the SMTP password', () => {
    const text = logs.join('\n');
    assert.ok(tokens.length >= 3);
    for (const token of tokens) assert.ok(!text.includes(token), 'a token reached the log');
    assert.ok(!text.includes('smtp-Pa55word-x'), 'the SMTP password reached the log');
    assert.match(text, /e-mail address confirmed/);
    assert.match(text, /"url":"\/api\/v1\/email\/confirm\?token=…"/, 'the access line is written, its token left out');
  });
});
