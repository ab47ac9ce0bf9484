import { z } from 'zod';

/**
 * The webhook channel's body template for execution bridges (issue 38): a JSON text with
 * `{{placeholder}}`s the delivery fills from each signal. Checked at deploy (src/delivery/template.ts).
 */

/** Every placeholder a template may use, with what it becomes (the OpenAPI description lists them). */
export const TEMPLATE_PLACEHOLDERS = {
  side: 'long or short',
  action: 'open, close or cancel',
  order: 'buy or sell: the order that opens (open) or closes (close, cancel) the position',
  symbol: 'e.g. EURUSD',
  timeframe: 'e.g. 15min',
  price: 'the signal price (a number)',
  stop_loss: 'the stop level (a number), null when none',
  take_profit: 'the take-profit level (a number), null when none',
  confidence: 'the model’s probability (a number 0–1: p↑, or P(win) for a meta-labelled model), null when none',
  confidence_text: 'the same as text, e.g. "p↑ 0.63" or "P(win) 0.63", empty when none',
  reason: 'signal, SL or TP',
  pnl: 'close: net USD P&L (a number), else null',
  ts: 'when the signal was created (ISO 8601 UTC)',
  ts_unix: 'the same in unix seconds (a number)',
  bar_time: 'open time of the signal bar (ISO 8601 UTC)',
  model: 'the model’s display name',
  model_stem: 'the model’s stem',
  signal_id: 'the signal id (the same on every retry: de-duplicate on it)',
  deployment_id: 'the deployment id',
} as const;
export type TemplatePlaceholder = keyof typeof TEMPLATE_PLACEHOLDERS;

/** Largest template accepted, and largest body a filled template may become. */
export const TEMPLATE_MAX_BYTES = 4096;

const TRADINGVIEW_EXAMPLE =
  '{"action":"{{order}}","ticker":"{{symbol}}","price":{{price}},"sl":{{stop_loss}},"tp":{{take_profit}},"comment":"{{model}} {{signal_id}}"}';
const PINECONNECTOR_EXAMPLE =
  '{"message":"YOUR_LICENSE_ID,{{order}},{{symbol}},sl={{stop_loss}},tp={{take_profit}},comment={{signal_id}}"}';

export const WebhookTemplate = z
  .string()
  .min(2)
  .max(TEMPLATE_MAX_BYTES)
  .describe(
    'Webhook channel only: the POST body in your own shape, for an execution bridge (the signature headers are the same). ' +
      'A JSON text with placeholders, each replaced by the signal’s value: a string value JSON-escaped (write the quotes ' +
      'around it: "{{symbol}}"), a number bare (no quotes: {{price}}), a missing value as null (or empty inside quotes). ' +
      `Placeholders: ${Object.entries(TEMPLATE_PLACEHOLDERS)
        .map(([k, v]) => `{{${k}}} (${v})`)
        .join(', ')}. ` +
      `Checked at deploy: every placeholder must be one of these (422 naming an unknown one), the filled body must be valid JSON, at most ${TEMPLATE_MAX_BYTES} bytes. ` +
      `Example, a TradingView-alert-style bridge: ${TRADINGVIEW_EXAMPLE} — ` +
      `a PineConnector-style command line (its license id first, then order, symbol, levels): ${PINECONNECTOR_EXAMPLE}`,
  )
  .meta({ examples: [TRADINGVIEW_EXAMPLE, PINECONNECTOR_EXAMPLE] });
