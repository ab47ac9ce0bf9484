/**
 * E-mail delivery end to end: real nats-server, the real delivery actor, real SignalEvents on
 * SIGNALS, addresses confirmed through the real account records, and a real SMTP server in the
 * test process (smtp-server) whose received messages the tests read: text with an HTML
 * alternative, RFC 8058 one-click unsubscribe headers, the daily cap, SMTP 4xx retried, 5xx final.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EmailAddresses } from '../../src/accounts/index.ts';
import { startSmtpStandIn, type SmtpStandIn } from '../helpers/smtp-stand-in.ts';
import { deploy, publish, signal, startHarness, waitFor, type Harness } from './harness.ts';

const PUBLIC_URL = 'https://signals.example';
const CAP = 3;

describe('email delivery (NATS → delivery actor → SMTP)', () => {
  let h: Harness;
  let smtp: SmtpStandIn;
  let addresses: EmailAddresses;
  let users = 5000;

  before(async () => {
    smtp = await startSmtpStandIn();
    h = await startHarness({
      WEBHOOK_RETRY_BASE_MS: '100',
      WEBHOOK_RETRY_MAX_MS: '300',
      WEBHOOK_RETRY_WINDOW_MS: '60000',
      SMTP_URL: smtp.url,
      EMAIL_FROM: 'signalforge <signals@signals.example>',
      SIGNAL_EMAILS_PER_DAY: String(CAP),
      PUBLIC_URL,
    });
    addresses = await EmailAddresses.open(h.bus);
  });
  after(async () => {
    await h?.close();
    await smtp?.stop();
  });

  /** A user with a confirmed address, and a deployment of theirs sending to it. */
  const confirmedDeployment = async (address: string) => {
    const userId = ++users;
    const { token } = await addresses.register(userId, address, 'http://127.0.0.1:1');
    await addresses.confirm(token);
    return deploy(h, { userId, channels: ['email'], extra: { email_to: address } });
  };
  const status = async (d: { user_id: number; model_name: string }) => (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!;

  it('mails each signal once, as text with an HTML alternative and one-click unsubscribe headers', async () => {
    const d = await confirmedDeployment('ada@example.com');
    const open = { ...signal(d, 0), p_up: 0.634 };
    await publish(h.bus, open);
    await waitFor(() => smtp.to('ada@example.com').length === 1, 10_000, 'the mail');
    await waitFor(async () => (await status(d)).delivered === 1, 5_000, 'the delivered count');

    const [mail] = smtp.to('ada@example.com');
    assert.equal(mail!.from, 'signals@signals.example');
    assert.equal(mail!.subject, `OPEN LONG · EURUSD 15min · ${d.model_name}`);
    assert.match(mail!.headers['content-type']!, /^multipart\/alternative/);
    assert.match(mail!.text!, /^OPEN LONG · EURUSD 15min\n/);
    for (const line of ['Price: 1.08000', 'Stop loss: 1.07800', 'Take profit: 1.08400', 'Confidence: p↑ 0.63', `Model: ${d.model_name}`]) {
      assert.ok(mail!.text!.includes(line), `text has "${line}"`);
    }
    assert.ok(mail!.text!.includes(`Model page: ${PUBLIC_URL}/models/${encodeURIComponent(d.stem)}`));
    assert.match(mail!.html!, /<th[^>]*>Take profit<\/th><td>1\.08400<\/td>/);
    assert.equal(mail!.headers['message-id'], `<${open.id}@signalforge>`);

    const unsubscribe = /^<(https:\/\/signals\.example\/api\/v1\/email\/unsubscribe\?token=[\w.-]+)>$/.exec(
      mail!.headers['list-unsubscribe']!,
    )?.[1];
    assert.ok(unsubscribe, `List-Unsubscribe is one https URL: ${mail!.headers['list-unsubscribe']}`);
    assert.equal(mail!.headers['list-unsubscribe-post'], 'List-Unsubscribe=One-Click');
    assert.ok(
      mail!.text!.includes(unsubscribe) && mail!.html!.includes(unsubscribe.replace(/&/g, '&amp;')),
      'the footer links the same URL',
    );
    assert.equal((await status(d)).target, 'ada@example.com');
  });

  it('after a one-click unsubscribe no further mail goes; the delivery log says why', async () => {
    const d = await confirmedDeployment('ben@example.com');
    await publish(h.bus, signal(d, 0));
    await waitFor(() => smtp.to('ben@example.com').length === 1, 10_000, 'the first mail');
    const token = new URL(/<([^>]+)>/.exec(smtp.to('ben@example.com')[0]!.headers['list-unsubscribe']!)![1]!).searchParams.get('token')!;
    assert.deepEqual((await addresses.unsubscribe(token)).changed, true);

    const later = signal(d, 1);
    await publish(h.bus, later);
    await waitFor(async () => (await status(d)).dead_letters === 1, 10_000, 'the dead letter');
    const s = await status(d);
    assert.equal(s.enabled, false);
    assert.match(s.disabled_reason!, /^ben@example\.com unsubscribed by its one-click link .* email delivery disabled for this deployment/);
    assert.equal(s.dead[0]!.signal_id, later.id);
    assert.equal(smtp.to('ben@example.com').length, 1, 'nothing mailed after the unsubscribe');
  });

  it('an SMTP 4xx is retried until the server takes the mail: delivered once', async () => {
    const d = await confirmedDeployment('cy@example.com');
    smtp.refuseNext(451, 2);
    const e = signal(d, 0);
    await publish(h.bus, e);
    await waitFor(() => smtp.to('cy@example.com').length === 1, 10_000, 'the mail');
    await waitFor(async () => (await status(d)).delivered === 1, 5_000, 'the delivered count');
    assert.deepEqual(
      smtp.replies.filter((r) => r.to.includes('cy@example.com')).map((r) => r.code),
      [451, 451, 250],
    );
    assert.equal((await status(d)).dead_letters, 0);
    assert.equal(await addresses.sentToday(d.user_id, 'signal'), 1, 'refused tries are not counted against the cap');
  });

  it('an SMTP 5xx is final for that signal: a dead letter at once, the channel stays on', async () => {
    const d = await confirmedDeployment('dee@example.com');
    smtp.refuseNext(550);
    const [first, second] = [signal(d, 0), signal(d, 1)];
    await publish(h.bus, first);
    await publish(h.bus, second);
    await waitFor(async () => (await status(d)).delivered === 1, 10_000, 'the second signal delivered');
    const s = await status(d);
    assert.equal(s.enabled, true);
    assert.deepEqual([s.dead_letters, s.dead[0]!.signal_id, s.dead[0]!.last_status, s.dead[0]!.attempts], [1, first.id, 550, 1]);
    assert.match(s.dead[0]!.last_error, /^SMTP 550: /);
    assert.doesNotMatch(s.dead[0]!.last_error, /relay-pass/, 'the SMTP password never shows');
    assert.deepEqual(
      smtp.to('dee@example.com').map((m) => m.headers['message-id']),
      [`<${second.id}@signalforge>`],
    );
  });

  it('a delivery process restarted between signals: each is mailed once, in order, by whichever process holds the deployment', async () => {
    const d = await confirmedDeployment('gus@example.com');
    const events = [signal(d, 0), signal(d, 1), signal(d, 2)];
    await publish(h.bus, events[0]!);
    await waitFor(() => smtp.to('gus@example.com').length === 1, 10_000, 'the first mail');
    await h.restartActor();
    for (const e of events.slice(1)) await publish(h.bus, e);
    await waitFor(async () => (await status(d)).delivered === 3, 15_000, 'three delivered');
    assert.deepEqual(
      smtp.to('gus@example.com').map((m) => m.headers['message-id']),
      events.map((e) => `<${e.id}@signalforge>`),
    );
  });

  it('over the daily cap a signal is not mailed: a capped dead letter, not retried; other accounts are not held back', async () => {
    const d = await confirmedDeployment('eve@example.com');
    const other = await confirmedDeployment('fay@example.com');
    const events = Array.from({ length: CAP + 2 }, (_, i) => signal(d, i));
    for (const e of events) await publish(h.bus, e);
    await publish(h.bus, signal(other, 0));
    await waitFor(async () => (await status(d)).dead_letters === 2, 10_000, 'two capped dead letters');
    const s = await status(d);
    assert.equal(s.delivered, CAP);
    assert.equal(s.enabled, true);
    assert.equal(s.current, null, 'nothing waits for a retry');
    assert.deepEqual(
      s.dead.map((x) => [x.signal_id, x.capped, x.attempts, x.first_attempt_at]),
      [
        [events[CAP]!.id, true, 0, null],
        [events[CAP + 1]!.id, true, 0, null],
      ],
      'not sent: no attempt',
    );
    assert.match(s.dead[0]!.last_error, new RegExp(`^capped: this account reached its ${CAP} signal e-mails for the UTC day`));
    assert.equal(smtp.to('eve@example.com').length, CAP);
    await waitFor(() => smtp.to('fay@example.com').length === 1, 10_000, 'the other account’s mail');
  });
});
