/** /pulse: the public activity feed as an HTML page, readable without JavaScript. */
import type { ActivityEvent, ActivityList } from '../../../schemas/activity.ts';
import { activityMarketText, activityMetricsText, activityModelText, activityTimeText } from '../../lib/activity-text.ts';
import { html, type SafeHtml } from './html.ts';

export function pulseItem(event: ActivityEvent): SafeHtml {
  return html`<li class="event kind-${event.kind.toLowerCase()}" data-id="${event.id}">
<time datetime="${event.ts}">${activityTimeText(event.ts)}</time>
<span class="kind">${event.kind}</span>
<span class="bot">${event.bot}</span>
<span class="model">${activityModelText(event)}</span>
<span class="market">${activityMarketText(event.model)}</span>
<span class="metrics">${activityMetricsText(event.metrics)}</span>
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
