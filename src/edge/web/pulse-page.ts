/** /pulse: the public activity feed as an HTML page, readable without JavaScript. */
import type { ActivityEvent, ActivityList } from '../../../schemas/activity.ts';
import { html, type SafeHtml } from './html.ts';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The headline of an event, as words (the live script renders the same fields the same way). */
function metricsOf(event: ActivityEvent): string {
  const m = event.metrics;
  if (!m) return '';
  const parts: string[] = [];
  if (m.n !== undefined) parts.push(`${m.n} trades`);
  if (m.wr !== undefined) parts.push(`win ${pct(m.wr)}`);
  if (m.ret !== undefined) parts.push(`return ${pct(m.ret)}`);
  if (m.pf !== undefined) parts.push(`PF ${m.pf.toFixed(2)}`);
  return parts.join(' · ');
}

export function pulseItem(event: ActivityEvent): SafeHtml {
  const model = event.model;
  const market = model ? [model.symbol, model.timeframe].filter(Boolean).join(' ') : '';
  return html`<li class="event kind-${event.kind.toLowerCase()}" data-id="${event.id}">
<time datetime="${event.ts}">${event.ts.slice(0, 19).replace('T', ' ')}</time>
<span class="kind">${event.kind}</span>
<span class="bot">${event.bot}</span>
<span class="model">${model?.name ?? ''}</span>
<span class="market">${market}</span>
<span class="metrics">${metricsOf(event)}</span>
</li>`;
}

export function pulseBody(page: ActivityList): SafeHtml {
  const newest = page.events[0]?.id ?? 0;
  return html`<h1>Pulse</h1>
<p class="lede">Every model trained, backtested, deployed and every signal fired, as it happens. <span id="pulse-status" class="status">Live updates need JavaScript; this list is as of loading.</span></p>
<ol id="pulse" class="pulse" data-newest="${newest}">${page.events.map(pulseItem)}</ol>
${page.events.length === 0 ? html`<p class="empty" id="pulse-empty">Nothing yet: train a model and it shows here.</p>` : ''}
${page.next_before ? html`<p><a class="older" href="/pulse?before=${encodeURIComponent(page.next_before)}">Older events</a></p>` : ''}`;
}
