/**
 * The webhook channel's body template for execution bridges: what the deploy refuses (an unknown
 * placeholder named, JSON that breaks once filled, the size cap) and what a signal fills in
 * (values JSON-escaped in strings, JSON literals outside them).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderTemplate, templateProblem, templateValues } from '../../src/lib/bridge-template.ts';
import { TEMPLATE_MAX_BYTES, TEMPLATE_PLACEHOLDERS, WebhookTemplate } from '../../schemas/bridge-template.ts';
import type { SignalEvent } from '../../schemas/live.ts';

const event: SignalEvent = {
  id: 'sig_dep_x_1714565700000_0',
  deployment_id: 'dep_x',
  model: '7_EURUSD_15min_Trend "one"',
  model_name: 'Trend "one"',
  symbol: 'EURUSD',
  timeframe: '15min',
  action: 'open',
  side: 'short',
  price: 1.08512,
  stop_loss: 1.08712,
  take_profit: null,
  reason: 'signal',
  p_up: 0.37,
  pnl: null,
  bar_time: '2024-05-01T12:15:00.000Z',
  created_at: '2024-05-01T12:30:00.120Z',
};

const fill = (template: string) => JSON.parse(renderTemplate(template, templateValues(event)));

describe('bridge template: the deploy check', () => {
  it('accepts both documented examples', () => {
    const examples = (WebhookTemplate.meta() as { examples: string[] }).examples;
    assert.equal(examples.length, 2);
    for (const example of examples) assert.equal(templateProblem(example), null, example);
  });

  it('names an unknown placeholder, and lists the known ones', () => {
    const problem = templateProblem('{"action":"{{side}}","qty":{{quantity}},"t":"{{ tiker }}"}');
    assert.match(problem!, /^webhook_template has an unknown placeholder \{\{quantity\}\}, \{\{tiker\}\}: use /);
    for (const name of Object.keys(TEMPLATE_PLACEHOLDERS)) assert.ok(problem!.includes(`{{${name}}}`), name);
  });

  it('refuses a template that is not valid JSON once filled', () => {
    assert.match(templateProblem('{"ticker":{{symbol}}x}')!, /^webhook_template is not valid JSON once filled: /);
    assert.match(templateProblem('{"price":{{price}}')!, /not valid JSON once filled/);
    // A number in quotes is fine; a string without quotes becomes a JSON string: also fine.
    assert.equal(templateProblem('{"price":"{{price}}","ticker":{{symbol}}}'), null);
  });

  it('refuses a template that only breaks when a value is missing', () => {
    // `{{stop_loss}}5` is 1.087125 with a stop, `null5` without one.
    assert.match(templateProblem('{"sl":{{stop_loss}}5}')!, /not valid JSON once filled when a value is missing/);
  });

  it('refuses a template over the size cap', () => {
    const big = `{"pad":"${'x'.repeat(TEMPLATE_MAX_BYTES)}"}`;
    assert.equal(templateProblem(big), `webhook_template is ${Buffer.byteLength(big)} bytes: at most ${TEMPLATE_MAX_BYTES}`);
    // Under the cap as written, over it once the placeholders are filled.
    const grows = `{"m":"${'{{model_stem}}'.repeat(Math.floor((TEMPLATE_MAX_BYTES - 20) / 14))}"}`;
    assert.ok(Buffer.byteLength(grows) <= TEMPLATE_MAX_BYTES);
    assert.match(templateProblem(grows)!, /filled with a signal exceeds 4096 bytes/);
  });
});

describe('bridge template: filled from a signal', () => {
  it('gives a TradingView-alert-style body', () => {
    assert.deepEqual(
      fill('{"action":"{{order}}","ticker":"{{symbol}}","price":{{price}},"sl":{{stop_loss}},"tp":{{take_profit}},"id":"{{signal_id}}"}'),
      {
        action: 'sell',
        ticker: 'EURUSD',
        price: 1.08512,
        sl: 1.08712,
        tp: null,
        id: event.id,
      },
    );
  });

  it('escapes text inside strings, so a value cannot break out of the JSON', () => {
    assert.deepEqual(fill('{"comment":"{{model}} at {{ts}}","model":{{model}}}'), {
      comment: 'Trend "one" at 2024-05-01T12:30:00.120Z',
      model: 'Trend "one"',
    });
  });

  it('gives a PineConnector-style command line, a missing level empty inside the string', () => {
    assert.deepEqual(fill('{"message":"LIC,{{order}},{{symbol}},sl={{stop_loss}},tp={{take_profit}}"}'), {
      message: 'LIC,sell,EURUSD,sl=1.08712,tp=',
    });
  });

  it('fills confidence as a number and as text, and the close of a short as a buy', () => {
    const meta = { ...event, labels: 'meta' as const, p_up: 0.634 };
    assert.deepEqual(JSON.parse(renderTemplate('[{{confidence}},"{{confidence_text}}",{{ts_unix}}]', templateValues(meta))), [
      0.634,
      'P(win) 0.63',
      1714566600,
    ]);
    assert.equal(templateValues({ ...event, action: 'close' }).order, 'buy');
    assert.equal(templateValues({ ...event, side: 'long' }).order, 'buy');
  });

  it('keeps escaped quotes in the template text from confusing strings and placeholders', () => {
    assert.deepEqual(fill('{"note":"say \\"{{side}}\\"","side":{{side}}}'), { note: 'say "short"', side: 'short' });
  });
});
