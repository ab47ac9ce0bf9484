/**
 * A signal as Discord's and Slack's messages, for the cases the end-to-end tests do not send: a
 * cancel, a late signal, no public URL (no link), and text that must not become markup.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { discordPayload, modelPageUrl, slackPayload } from '../../src/delivery/index.ts';
import type { SignalEvent } from '../../schemas/live.ts';

const base: SignalEvent = {
  id: 'sig_dep_1_1714565700000_0',
  deployment_id: 'dep_1',
  model: '7_USDJPY_1h_Carry <b>',
  model_name: 'Carry <b>',
  symbol: 'USDJPY',
  timeframe: '1h',
  action: 'open',
  side: 'short',
  price: 151.2346,
  stop_loss: 151.7,
  take_profit: null,
  reason: 'signal',
  p_up: null,
  pnl: null,
  bar_time: '2024-05-01T12:00:00.000Z',
  created_at: '2024-05-01T13:00:00.050Z',
};

const fields = (payload: Record<string, unknown>) =>
  Object.fromEntries(
    (payload.embeds as Array<{ fields: Array<{ name: string; value: string }> }>)[0]!.fields.map((f) => [f.name, f.value]),
  );

describe('chat payloads', () => {
  it('builds the model page link on PUBLIC_URL, and none without it', () => {
    assert.equal(modelPageUrl('https://sf.example/', base), 'https://sf.example/models/7_USDJPY_1h_Carry%20%3Cb%3E');
    assert.equal(modelPageUrl(undefined, base), null);
    assert.equal('url' in (discordPayload(base, null).embeds as object[])[0]!, false);
    const context = (slackPayload(base, null).blocks as Array<{ type: string; elements?: Array<{ text: string }> }>).find(
      (b) => b.type === 'context',
    )!;
    assert.equal(context.elements![0]!.text, `signal \`${base.id}\` · ${base.created_at}`);
  });

  it('shows JPY prices with 3 decimals, a missing level and confidence as a dash', () => {
    assert.deepEqual(fields(discordPayload(base, null)), {
      Price: '151.235',
      'Stop loss': '151.700',
      'Take profit': '—',
      Confidence: '—',
      Reason: 'model signal',
      Model: 'Carry <b>',
    });
    assert.equal((discordPayload(base, null).embeds as Array<{ color: number }>)[0]!.color, 0xe74c3c, 'a short entry is red');
  });

  it('says a cancel as a cancel, and a late signal as late', () => {
    const cancel = discordPayload({ ...base, action: 'cancel' }, null);
    assert.equal((cancel.embeds as Array<{ title: string }>)[0]!.title, '❌ CANCELLED SHORT · USDJPY 1h');
    assert.deepEqual(Object.keys(fields(cancel)), ['Not entered', 'Model']);
    const late = fields(discordPayload({ ...base, late: true, due_at: '2024-05-01T13:00:00.000Z' }, null));
    assert.equal(late.Late, 'due 2024-05-01T13:00:00.000Z (catch-up)');
  });

  it('escapes Slack markup in every text', () => {
    const slack = slackPayload({ ...base, model_name: '<@U123> & <!here>' }, 'https://sf.example/models/x');
    const json = JSON.stringify(slack);
    assert.ok(!json.includes('<@U123>') && !json.includes('<!here>'), json);
    assert.match(slack.text as string, /Model &lt;@U123&gt; &amp; &lt;!here&gt;/);
  });
});
