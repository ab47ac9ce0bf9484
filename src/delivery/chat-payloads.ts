import type { SignalEvent } from '../../schemas/live.ts';
import { priceDigits, probabilityText } from './format.ts';

/**
 * A signal as Discord's webhook payload (one embed) and as a Slack Block Kit message: side,
 * symbol, timeframe, price, stop, take profit, confidence, the model and a link to its page.
 */

const REASONS: Record<SignalEvent['reason'], string> = { signal: 'model signal', SL: 'stop-loss hit', TP: 'take-profit hit' };

/** The model page of a signal's model; null without a public URL to build it on. */
export function modelPageUrl(publicUrl: string | null | undefined, event: Pick<SignalEvent, 'model'>): string | null {
  return publicUrl ? `${publicUrl.replace(/\/+$/, '')}/models/${encodeURIComponent(event.model)}` : null;
}

interface Fact {
  name: string;
  value: string;
}

/** The headline and facts every chat and e-mail message shows. */
export function facts(event: SignalEvent): { title: string; facts: Fact[]; colour: number } {
  const digits = priceDigits(event.symbol);
  const price = (v: number | null) => (v === null ? '—' : v.toFixed(digits));
  const side = event.side.toUpperCase();
  const market = `${event.symbol} ${event.timeframe}`;
  const probability = probabilityText(event);
  if (event.action === 'cancel') {
    return {
      title: `❌ CANCELLED ${side} · ${market}`,
      facts: [
        { name: 'Not entered', value: 'the fill bar came outside the strategy’s session or days' },
        { name: 'Model', value: event.model_name },
      ],
      colour: 0x95a5a6,
    };
  }
  const open = event.action === 'open';
  const list: Fact[] = [{ name: open ? 'Price' : 'Exit', value: price(event.price) }];
  if (open) list.push({ name: 'Stop loss', value: price(event.stop_loss) }, { name: 'Take profit', value: price(event.take_profit) });
  else if (event.pnl !== null) list.push({ name: 'P&L', value: `${event.pnl >= 0 ? '+' : '−'}$${Math.abs(event.pnl).toFixed(2)}` });
  list.push(
    { name: 'Confidence', value: probability ?? '—' },
    { name: 'Reason', value: REASONS[event.reason] },
    { name: 'Model', value: event.model_name },
  );
  if (event.late) list.push({ name: 'Late', value: `due ${event.due_at ?? event.bar_time} (catch-up)` });
  const icon = open ? (event.side === 'long' ? '🟢' : '🔴') : '⚪';
  return {
    title: `${icon} ${open ? 'OPEN' : 'CLOSE'} ${side} · ${market}`,
    facts: list,
    colour: open ? (event.side === 'long' ? 0x2ecc71 : 0xe74c3c) : 0x95a5a6,
  };
}

/** Discord's execute-webhook body: one embed; mentions are never parsed (a model name cannot ping @everyone). */
export function discordPayload(event: SignalEvent, pageUrl: string | null): Record<string, unknown> {
  const f = facts(event);
  return {
    username: 'signalforge',
    allowed_mentions: { parse: [] },
    embeds: [
      {
        title: f.title.slice(0, 256),
        ...(pageUrl ? { url: pageUrl } : {}),
        color: f.colour,
        fields: f.facts.map((x) => ({ name: x.name, value: x.value.slice(0, 1024) || '—', inline: x.name !== 'Model' })),
        timestamp: event.created_at,
        footer: { text: `signal ${event.id}`.slice(0, 2048) },
      },
    ],
  };
}

/** Slack mrkdwn escapes (&, <, >), so a model name cannot make a link or a mention. */
const slackEscape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Slack's incoming-webhook body: Block Kit blocks and the plain `text` notifications show. */
export function slackPayload(event: SignalEvent, pageUrl: string | null): Record<string, unknown> {
  const f = facts(event);
  const title = slackEscape(f.title);
  const blocks: Array<Record<string, unknown>> = [
    { type: 'section', text: { type: 'mrkdwn', text: `*${title}*` } },
    {
      type: 'section',
      fields: f.facts.slice(0, 10).map((x) => ({ type: 'mrkdwn', text: `*${x.name}*\n${slackEscape(x.value)}`.slice(0, 2000) })),
    },
    {
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `${pageUrl ? `<${pageUrl}|Model page> · ` : ''}signal \`${event.id}\` · ${event.created_at}` }],
    },
  ];
  const summary = f.facts.map((x) => `${x.name} ${x.value}`).join(' · ');
  return { text: slackEscape(`${f.title} — ${summary}`).slice(0, 3000), blocks };
}
