import { TEMPLATE_MAX_BYTES, TEMPLATE_PLACEHOLDERS, type TemplatePlaceholder } from '../../schemas/bridge-template.ts';
import type { SignalEvent } from '../../schemas/live.ts';

/**
 * The webhook channel's body template (execution bridges): `{{name}}` placeholders filled from a
 * signal. A placeholder inside a JSON string gets the value JSON-escaped without quotes (null →
 * empty); outside one it gets the value as a JSON literal (a number bare, a string quoted, null).
 * So no value can break out of the JSON the user wrote.
 */

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

type Value = string | number | null;

const known = (name: string): name is TemplatePlaceholder => Object.hasOwn(TEMPLATE_PLACEHOLDERS, name);

/** The values of every placeholder for one signal. */
export function templateValues(event: SignalEvent): Record<TemplatePlaceholder, Value> {
  const opening = event.action === 'open';
  const buys = event.side === 'long' ? opening : !opening;
  return {
    side: event.side,
    action: event.action,
    order: buys ? 'buy' : 'sell',
    symbol: event.symbol,
    timeframe: event.timeframe,
    price: event.price,
    stop_loss: event.stop_loss,
    take_profit: event.take_profit,
    confidence: event.p_up,
    confidence_text: event.p_up === null ? '' : `${event.labels === 'meta' ? 'P(win)' : 'p↑'} ${event.p_up.toFixed(2)}`,
    reason: event.reason,
    pnl: event.pnl,
    ts: event.created_at,
    ts_unix: Math.floor(Date.parse(event.created_at) / 1000),
    bar_time: event.bar_time,
    model: event.model_name,
    model_stem: event.model,
    signal_id: event.id,
    deployment_id: event.deployment_id,
  };
}

/** Fills the template; the placeholders must be known (checkTemplate ran at deploy). */
export function renderTemplate(template: string, values: Record<TemplatePlaceholder, Value>): string {
  let out = '';
  let inString = false;
  let from = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const literal = template.slice(from, match.index);
    inString = stringStateAfter(literal, inString);
    out += literal;
    const name = match[1]!;
    const value = known(name) ? values[name] : null;
    out += inString ? (value === null ? '' : JSON.stringify(String(value)).slice(1, -1)) : JSON.stringify(value);
    from = match.index + match[0].length;
  }
  return out + template.slice(from);
}

/** Whether the text ends inside a JSON string, given whether it started in one (escapes honoured). */
function stringStateAfter(text: string, startsInString: boolean): boolean {
  let inString = startsInString;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString && c === '\\') i++;
    else if (c === '"') inString = !inString;
  }
  return inString;
}

/** A signal with every field set (strings with quotes and backslashes in them), to try a template on. */
const PROBE: SignalEvent = {
  id: 'sig_dep_probe_1714565700000_0',
  deployment_id: 'dep_probe',
  model: '7_EURUSD_15min_A "quoted" \\ model',
  model_name: 'A "quoted" \\ model',
  symbol: 'EURUSD',
  timeframe: '15min',
  action: 'open',
  side: 'long',
  price: 1.08512,
  stop_loss: 1.08312,
  take_profit: 1.08912,
  reason: 'signal',
  p_up: 0.63,
  labels: 'meta',
  pnl: -12.5,
  bar_time: '2024-05-01T12:15:00.000Z',
  created_at: '2024-05-01T12:30:00.120Z',
};

/**
 * Checks a template at deploy: known placeholders only, valid JSON once filled (with values and
 * with nulls), at most TEMPLATE_MAX_BYTES. Returns what to fix (the deploy answers it as a 422), null when it is fine.
 */
export function templateProblem(template: string): string | null {
  const size = Buffer.byteLength(template);
  if (size > TEMPLATE_MAX_BYTES) return `webhook_template is ${size} bytes: at most ${TEMPLATE_MAX_BYTES}`;
  const unknown = [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!).filter((name) => !known(name));
  if (unknown.length > 0) {
    const list = [...new Set(unknown)].map((n) => `{{${n}}}`).join(', ');
    return `webhook_template has an unknown placeholder ${list}: use ${Object.keys(TEMPLATE_PLACEHOLDERS)
      .map((k) => `{{${k}}}`)
      .join(', ')}`;
  }
  const full = templateValues(PROBE);
  const empty = Object.fromEntries(Object.keys(full).map((k) => [k, null])) as Record<TemplatePlaceholder, Value>;
  for (const values of [full, empty]) {
    const body = renderTemplate(template, values);
    try {
      JSON.parse(body);
    } catch (err) {
      const what = values === full ? '' : ' when a value is missing (null; e.g. stop_loss on a close)';
      return `webhook_template is not valid JSON once filled${what}: ${(err as Error).message}. Put quotes around text placeholders ("{{symbol}}") and none around numbers ({{price}})`;
    }
    if (Buffer.byteLength(body) > TEMPLATE_MAX_BYTES)
      return `webhook_template filled with a signal exceeds ${TEMPLATE_MAX_BYTES} bytes: make it shorter`;
  }
  return null;
}
