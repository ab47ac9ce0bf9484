/** A deployment's deliveries (webhook, Telegram, Discord, Slack): counts, the failing attempt, dead letters, replay. */
import type { DeliveriesResponse, ReplayResponse } from '../../schemas/delivery.ts';
import { call } from '../lib/api.ts';
import { h, mount } from '../lib/dom.ts';

export function deliveriesBox(stem: string): HTMLElement {
  const box = h(
    'div',
    { class: 'deliveries' },
    h('button', { type: 'button', class: 'secondary', onclick: () => void show() }, 'Deliveries'),
  );
  const show = async () => {
    const d = await call<DeliveriesResponse>('GET', `/api/v1/deploy/${encodeURIComponent(stem)}/deliveries`);
    const replay = async () => {
      const r = await call<ReplayResponse>('POST', `/api/v1/deploy/${encodeURIComponent(stem)}/deliveries/replay`, {});
      box.append(h('p', { class: 'muted' }, `${r.replayed} dead letter(s) queued again.`));
    };
    mount(
      box,
      d.channels.length === 0 ? h('p', { class: 'muted' }, 'Only SSE: nothing is pushed, so nothing can fail.') : null,
      d.channels.map((c) =>
        h(
          'div',
          { class: 'channel' },
          h(
            'p',
            {},
            h('strong', {}, c.channel),
            ` → ${c.target ?? '—'} · ${c.delivered} delivered · ${c.pending} pending · ${c.dead_letters} dead`,
            c.enabled ? '' : ` · disabled: ${c.disabled_reason ?? ''}`,
          ),
          c.current
            ? h('p', { class: 'error' }, `Retrying ${c.current.signal_id} (${c.current.attempts} attempts): ${c.current.last_error}`)
            : null,
          c.dead.length
            ? h(
                'table',
                { class: 'stats' },
                c.dead.map((x) =>
                  h(
                    'tr',
                    {},
                    h('td', {}, x.died_at.slice(0, 19).replace('T', ' ')),
                    h('td', {}, `${x.signal.action} ${x.signal.side}`),
                    h('td', {}, x.status),
                    h('td', {}, x.last_error),
                  ),
                ),
              )
            : null,
        ),
      ),
      d.channels.some((c) => c.dead_letters > 0)
        ? h('button', { type: 'button', onclick: () => void replay() }, 'Replay dead letters')
        : null,
    );
  };
  return box;
}
