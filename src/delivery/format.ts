import type { SignalEvent } from '../../schemas/live.ts';
import type { WebhookPayload } from '../../schemas/delivery.ts';

/** The JSON body of a webhook POST: `{ type: "signal", timestamp, data: SignalEvent }`. */
export function webhookBody(event: SignalEvent): string {
  const payload: WebhookPayload = { type: 'signal', timestamp: event.created_at, data: event };
  return JSON.stringify(payload);
}

const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Decimals a price of the symbol is shown with (5 for most majors, 3 for JPY pairs, 2 for BTC). */
export function priceDigits(symbol: string): number {
  if (symbol.endsWith('JPY')) return 3;
  if (symbol.startsWith('BTC')) return 2;
  return 5;
}

const REASONS: Record<SignalEvent['reason'], string> = {
  signal: 'model signal',
  SL: 'stop-loss hit',
  TP: 'take-profit hit',
};

/**
 * The model's probability as a message shows it: "p↑ 0.63" (a direction model's P(up)) or, for a
 * meta-labelled model (labels: meta), "P(win) 0.63" of the rule's trade; null when the event has none.
 */
export function probabilityText(event: Pick<SignalEvent, 'p_up' | 'labels'>): string | null {
  if (event.p_up === null) return null;
  return `${event.labels === 'meta' ? 'P(win)' : 'p↑'} ${event.p_up.toFixed(2)}`;
}

const utc = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/**
 * A signal as a Telegram message (parse_mode HTML), e.g.
 *   🟢 OPEN LONG · EURUSD 15min
 *   Price 1.08512
 *   SL 1.08312 · TP 1.08912
 *   Reason: model signal (p↑ 0.63)        — a meta-labelled model: (P(win) 0.63)
 *   Model: My model
 *   Bar 2024-05-01 12:15 UTC
 */
export function telegramMessage(event: SignalEvent): string {
  if (event.action === 'cancel') return cancelMessage(event);
  const digits = priceDigits(event.symbol);
  const price = (value: number) => value.toFixed(digits);
  const open = event.action === 'open';
  const icon = open ? (event.side === 'long' ? '🟢' : '🔴') : '⚪';
  const lines = [`${icon} <b>${open ? 'OPEN' : 'CLOSE'} ${event.side.toUpperCase()}</b> · ${event.symbol} ${event.timeframe}`];
  lines.push(`${open ? 'Price' : 'Exit'} <b>${price(event.price)}</b>`);
  if (open) {
    lines.push(
      `SL ${event.stop_loss === null ? '—' : price(event.stop_loss)} · TP ${event.take_profit === null ? '—' : price(event.take_profit)}`,
    );
  } else if (event.pnl !== null) {
    lines.push(`P&amp;L ${event.pnl >= 0 ? '+' : '−'}$${Math.abs(event.pnl).toFixed(2)}`);
  }
  const probability = probabilityText(event);
  const p = probability === null ? '' : ` (${probability})`;
  lines.push(`Reason: ${REASONS[event.reason]}${p}`);
  lines.push(`Model: ${escapeHtml(event.model_name)}`);
  lines.push(`Bar ${utc(event.bar_time)}`);
  if (event.late) lines.push(`Late: due ${utc(event.due_at!)} (catch-up)`);
  return lines.join('\n');
}

const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/**
 * A cancel: the entry announced on the previous bar that did not fill, e.g.
 *   ❌ <b>CANCELLED LONG</b> · EURUSD 15min
 *   Not entered: the bar came Wednesday 21:00 UTC, outside the strategy's session or days
 *   Model: My model
 *   Bar 2024-05-01 21:00 UTC
 */
function cancelMessage(event: SignalEvent): string {
  const day = WEEKDAY_NAMES[new Date(event.bar_time).getUTCDay()];
  const lines = [
    `❌ <b>CANCELLED ${event.side.toUpperCase()}</b> · ${event.symbol} ${event.timeframe}`,
    `Not entered: the bar came ${day} ${event.bar_time.slice(11, 16)} UTC, outside the strategy's session or days`,
    `Model: ${escapeHtml(event.model_name)}`,
    `Bar ${utc(event.bar_time)}`,
  ];
  if (event.late) lines.push(`Late: due ${utc(event.due_at!)} (catch-up)`);
  return lines.join('\n');
}
