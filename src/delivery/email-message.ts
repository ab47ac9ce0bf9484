import type { SignalEvent } from '../../schemas/live.ts';
import { facts } from './chat-payloads.ts';

/** A mail as composed: plain text with an HTML alternative of the same content. */
export interface ComposedMail {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** The subject line without the emoji of the chat channels (mail clients show them unevenly). */
const plainTitle = (title: string): string => title.replace(/^\S+\s/, '');

/**
 * A signal as an e-mail: the facts the chat channels show (side, symbol, timeframe, price, stop,
 * take profit, confidence, the model), a link to the model page when there is a public URL, and
 * the unsubscribe link in the footer (the same URL as the List-Unsubscribe header).
 */
export function signalMail(event: SignalEvent, links: { page: string | null; unsubscribe: string }): ComposedMail {
  const f = facts(event);
  const title = plainTitle(f.title);
  const subject = `${title} · ${event.model_name}`.slice(0, 200);
  const footer = `signal ${event.id} · ${event.created_at}`;
  const text = [
    title,
    '',
    ...f.facts.map((x) => `${x.name}: ${x.value}`),
    '',
    ...(links.page ? [`Model page: ${links.page}`] : []),
    footer,
    '',
    `You get this because your signalforge deployment sends its signals to this address. Stop them: ${links.unsubscribe}`,
    '',
  ].join('\n');
  const rows = f.facts
    .map((x) => `<tr><th align="left" style="padding:2px 12px 2px 0">${escapeHtml(x.name)}</th><td>${escapeHtml(x.value)}</td></tr>`)
    .join('');
  const colour = `#${f.colour.toString(16).padStart(6, '0')}`;
  const html =
    `<!doctype html><html><body style="font-family:sans-serif">` +
    `<h2 style="border-left:6px solid ${colour};padding-left:8px">${escapeHtml(title)}</h2>` +
    `<table>${rows}</table>` +
    (links.page ? `<p><a href="${escapeHtml(links.page)}">Model page</a></p>` : '') +
    `<p style="color:#777;font-size:12px">${escapeHtml(footer)}<br>` +
    `You get this because your signalforge deployment sends its signals to this address. ` +
    `<a href="${escapeHtml(links.unsubscribe)}">Unsubscribe</a></p></body></html>`;
  return { subject, text, html };
}

/** The mail that confirms an address: the link (a signed, single-use token) and when it expires. */
export function confirmationMail(address: string, confirmUrl: string, expiresAt: string): ComposedMail {
  const subject = 'Confirm your address for signalforge signals';
  const text = [
    `Someone (hopefully you) asked signalforge to send trading signals to ${address}.`,
    '',
    `Confirm it by opening this link (it works once, until ${expiresAt}):`,
    confirmUrl,
    '',
    'If it was not you, ignore this mail: nothing will be sent to this address.',
    '',
  ].join('\n');
  const html =
    `<!doctype html><html><body style="font-family:sans-serif">` +
    `<p>Someone (hopefully you) asked signalforge to send trading signals to <b>${escapeHtml(address)}</b>.</p>` +
    `<p><a href="${escapeHtml(confirmUrl)}">Confirm this address</a> (the link works once, until ${escapeHtml(expiresAt)}).</p>` +
    `<p style="color:#777">If it was not you, ignore this mail: nothing will be sent to this address.</p></body></html>`;
  return { subject, text, html };
}
