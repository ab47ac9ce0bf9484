/**
 * Signal and confirmation mails as composed: the chat channels' facts in text and HTML, the model
 * name escaped in HTML, the unsubscribe link in both, no page link without a public URL.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { confirmationMail, signalMail } from '../../src/delivery/index.ts';
import type { SignalEvent } from '../../schemas/live.ts';

const event: SignalEvent = {
  id: 'sig_dep_1_1714521600000_0',
  deployment_id: 'dep_1',
  model: '7_USDJPY_1h_<b>Bold</b>',
  model_name: '<b>Bold</b> & "quoted"',
  symbol: 'USDJPY',
  timeframe: '1h',
  action: 'open',
  side: 'short',
  price: 151.234,
  stop_loss: 151.9,
  take_profit: 150.1,
  reason: 'signal',
  p_up: 0.31,
  pnl: null,
  bar_time: '2024-05-01T00:00:00.000Z',
  created_at: '2024-05-01T01:00:02.000Z',
};
const UNSUBSCRIBE = 'https://signals.example/api/v1/email/unsubscribe?token=abc.def';

describe('email messages', () => {
  it('a signal mail: subject, facts in text and HTML, the page and unsubscribe links', () => {
    const mail = signalMail(event, { page: 'https://signals.example/models/x', unsubscribe: UNSUBSCRIBE });
    assert.equal(mail.subject, 'OPEN SHORT · USDJPY 1h · <b>Bold</b> & "quoted"');
    assert.ok(mail.text.startsWith('OPEN SHORT · USDJPY 1h\n\nPrice: 151.234\nStop loss: 151.900\nTake profit: 150.100\n'));
    assert.ok(mail.text.includes('Model: <b>Bold</b> & "quoted"'), 'plain text as it is');
    assert.ok(mail.text.includes('Model page: https://signals.example/models/x'));
    assert.ok(mail.text.includes(`Stop them: ${UNSUBSCRIBE}`));
    assert.ok(mail.html.includes('<td>&lt;b&gt;Bold&lt;/b&gt; &amp; &quot;quoted&quot;</td>'), 'the model name cannot inject HTML');
    assert.ok(!mail.html.includes('<b>Bold'));
    assert.ok(mail.html.includes(`<a href="${UNSUBSCRIBE}">Unsubscribe</a>`));
  });

  it('a cancel without a public URL: no page link', () => {
    const mail = signalMail({ ...event, action: 'cancel', p_up: null }, { page: null, unsubscribe: UNSUBSCRIBE });
    assert.match(mail.subject, /^CANCELLED SHORT · USDJPY 1h/);
    assert.ok(!mail.text.includes('Model page'));
    assert.ok(!mail.html.includes('Model page'));
  });

  it('a confirmation mail names the address, the link and its expiry', () => {
    const mail = confirmationMail('a<b>@example.com', 'https://signals.example/api/v1/email/confirm?token=t.s', '2026-01-02T00:00:00.000Z');
    assert.ok(mail.text.includes('https://signals.example/api/v1/email/confirm?token=t.s'));
    assert.ok(mail.text.includes('until 2026-01-02T00:00:00.000Z'));
    assert.ok(mail.html.includes('a&lt;b&gt;@example.com'));
  });
});
