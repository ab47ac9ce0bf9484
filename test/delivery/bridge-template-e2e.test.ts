/**
 * The webhook channel with a bridge body template, end to end: real nats-server, the real delivery
 * actor, and the local receiver verifying each POST's Standard Webhooks signature with the reference
 * implementation — the body is the filled template, the signature headers are the same as ever.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { deploy, publish, signal, startHarness, waitFor, type Harness } from './harness.ts';

const TEMPLATE =
  '{"action":"{{order}}","ticker":"{{symbol}}","price":{{price}},"sl":{{stop_loss}},"tp":{{take_profit}},"comment":"{{model}} {{signal_id}}"}';

describe('webhook delivery with a bridge body template', () => {
  let h: Harness;
  let receiver: WebhookReceiver;
  let failures = 1;

  before(async () => {
    receiver = await startWebhookReceiver();
    // The first POST fails: the retry must send the same filled body under the same webhook-id.
    receiver.respond(() => (failures-- > 0 ? 503 : 200));
    h = await startHarness({ WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_RETRY_MAX_MS: '300', WEBHOOK_RETRY_WINDOW_MS: '60000' });
  });
  after(async () => {
    await h?.close();
    await receiver?.stop();
  });

  it('POSTs the filled template, signed as every webhook is, the same body on a retry', async () => {
    const d = await deploy(h, { webhookUrl: `${receiver.url}/bridge`, modelName: 'Bridge "A"', extra: { webhook_template: TEMPLATE } });
    receiver.secret('/bridge', d.webhook_secret!);
    const open = signal(d, 0);
    const close = signal(d, 1);
    for (const e of [open, close]) await publish(h.bus, e);
    await waitFor(() => receiver.accepted('/bridge').length === 2, 10_000, 'two bridge webhooks');

    const [first, second] = receiver.accepted('/bridge');
    for (const hook of [first!, second!]) {
      assert.equal(hook.verified, true, hook.verifyError);
      assert.equal(hook.headers['content-type'], 'application/json');
    }
    assert.equal(first!.headers['webhook-id'], open.id);
    assert.deepEqual(first!.payload, {
      action: 'buy',
      ticker: 'EURUSD',
      price: open.price,
      sl: 1.078,
      tp: 1.084,
      comment: `Bridge "A" ${open.id}`,
    });
    assert.deepEqual(second!.payload, {
      action: 'sell',
      ticker: 'EURUSD',
      price: close.price,
      sl: null,
      tp: null,
      comment: `Bridge "A" ${close.id}`,
    });

    const tried = receiver.requests.filter((r) => r.path === '/bridge' && r.headers['webhook-id'] === open.id);
    assert.deepEqual(
      tried.map((r) => r.status),
      [503, 200],
    );
    assert.equal(tried[0]!.body, tried[1]!.body, 'a retry sends the same body');
  });
});
