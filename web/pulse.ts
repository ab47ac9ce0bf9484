/** /pulse, live: new activity events are prepended as the stream brings them. */
import type { ActivityEvent } from '../schemas/activity.ts';
import { h } from './lib/dom.ts';
import { activityMarketText, activityMetricsText, activityModelText, activityTimeText } from '../src/lib/activity-text.ts';

/** The same fields and words as the server-rendered items (src/edge/web/pulse-page.ts). */
function item(event: ActivityEvent): HTMLLIElement {
  return h(
    'li',
    { class: `event kind-${event.kind.toLowerCase()} new`, 'data-id': event.id },
    h('time', { datetime: event.ts }, activityTimeText(event.ts)),
    h('span', { class: 'kind' }, event.kind),
    h('span', { class: 'bot' }, event.bot),
    h('span', { class: 'model' }, activityModelText(event)),
    h('span', { class: 'market' }, activityMarketText(event.model)),
    h('span', { class: 'metrics' }, activityMetricsText(event.metrics)),
  );
}

const list = document.getElementById('pulse');
const status = document.getElementById('pulse-status');
// Live only on the first page: an older page is history.
if (list && !new URLSearchParams(location.search).has('before')) {
  const since = Number(list.dataset.newest ?? 0);
  const source = new EventSource(`/api/v1/activity/stream?since=${since}`);
  source.onopen = () => {
    if (status) status.textContent = 'Live.';
  };
  source.onerror = () => {
    if (status) status.textContent = 'Reconnecting…';
  };
  const onEvent = (e: MessageEvent) => {
    const event = JSON.parse(e.data) as ActivityEvent;
    if (list.querySelector(`[data-id="${event.id}"]`)) return;
    document.getElementById('pulse-empty')?.remove();
    list.prepend(item(event));
    while (list.children.length > 200) list.lastElementChild?.remove();
  };
  for (const kind of ['TRAINED', 'BACKTEST_DONE', 'DEPLOYED', 'SIGNAL_FIRED', 'SHARED', 'FORKED']) source.addEventListener(kind, onEvent);
  source.onmessage = onEvent;
}
