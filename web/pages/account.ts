/** My account: masked key and rotation, credits and usage, caps, models and deployments. */
import { call, forgetKey, maskKey, storedKey, storeKey } from '../lib/api.ts';
import { $, h, mount } from '../lib/dom.ts';
import type { CapsResponse, UsageResponse, WhoamiResponse } from '../../schemas/accounts.ts';
import type { z } from 'zod';
import type { ModelList } from '../../schemas/training.ts';
import type { DeployedList } from '../../schemas/live.ts';
import { deliveriesBox } from './deliveries.ts';

export async function startAccountPage(): Promise<void> {
  const root = $('#account');
  if (!storedKey()) {
    // Signed in (a passkey, a password, a recovery code) without this account's key in this browser.
    const session = localStorage.getItem('sf_had_key') ? await fetch('/api/v1/whoami-key') : null;
    if (session?.ok) {
      const me = (await session.json()) as WhoamiResponse;
      mount(
        root,
        h('h1', {}, 'Account'),
        h(
          'p',
          { id: 'signed-in-as' },
          `Signed in as ${me.username}. This browser holds no API key of the account: get one (the previous key stops working, and your other sessions are signed out).`,
        ),
        rotateBox(root, 'Get my API key'),
        securityLinks(me.is_trial),
      );
      return;
    }
    mount(
      root,
      h('h1', {}, 'Account'),
      h(
        'p',
        {},
        'This browser has no account yet. ',
        h('a', { href: '/' }, 'Run an idea'),
        ' and a trial account is made for you, or ',
        h('a', { href: '/sign-in', id: 'to-sign-in' }, 'sign in'),
        '.',
      ),
      rotateBox(root),
    );
    return;
  }
  const [me, usage, caps, models, deployed] = await Promise.all([
    call<WhoamiResponse>('GET', '/api/v1/whoami-key'),
    call<UsageResponse>('GET', '/api/v1/key/usage'),
    call<CapsResponse>('GET', '/api/v1/caps'),
    call<z.infer<typeof ModelList>>('GET', '/api/v1/models'),
    call<DeployedList>('GET', '/api/v1/deployed'),
  ]);
  mount(
    root,
    h('h1', {}, 'Account'),
    h(
      'p',
      {},
      `${me.username} · ${me.is_trial ? 'trial' : me.plan} · key `,
      h('code', { id: 'masked-key' }, maskKey(storedKey() ?? '')),
      ` · ${usage.balance} credits`,
    ),
    rotateBox(root),
    securityLinks(me.is_trial),
    h('h2', {}, 'Daily caps'),
    h(
      'table',
      { class: 'stats' },
      Object.entries(caps.caps).map(([name, c]) =>
        h('tr', {}, h('th', {}, name.replace('_', ' ')), h('td', {}, `${c.used} / ${c.limit} used today`)),
      ),
    ),
    h('h2', {}, 'My models'),
    h(
      'ul',
      { class: 'models' },
      models.models.map((m) =>
        h(
          'li',
          {},
          h('a', { href: `/models/${encodeURIComponent(m.name)}` }, m.model_name),
          ` · test ${(m.test_stats.ret * 100).toFixed(2)}% over ${m.test_stats.n} trades `,
          deleteControl(m.name, m.model_name),
        ),
      ),
    ),
    h('h2', {}, 'Deployments'),
    h(
      'ul',
      { class: 'models' },
      deployed.deployed.map((d) =>
        h(
          'li',
          {},
          h('a', { href: `/models/${encodeURIComponent(d.model)}` }, d.model_name),
          ` · ${d.channels.join(', ')} `,
          h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              onclick: async () => {
                await call('DELETE', `/api/v1/deploy/${encodeURIComponent(d.model)}`);
                location.reload();
              },
            },
            'Undeploy',
          ),
          deliveriesBox(d.model),
        ),
      ),
    ),
    h('h2', {}, 'Credit history'),
    h(
      'table',
      { class: 'stats' },
      usage.history.map((u) =>
        h(
          'tr',
          {},
          h('td', {}, u.ts.slice(0, 19).replace('T', ' ')),
          h('td', {}, u.reason),
          h('td', {}, u.delta),
          h('td', {}, u.balance_after),
        ),
      ),
    ),
  );
}

/**
 * Rotation through the session cookie (POST /key/generate without the key: the edge resolves the
 * cookie and refuses another site's page); the new key is shown once and replaces the stored one.
 */
function rotateBox(root: HTMLElement, label = 'Rotate key'): HTMLElement {
  const out = h('div', { id: 'rotated' });
  const rotate = async () => {
    const res = await fetch('/api/v1/key/generate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const body = await res.json();
    if (!res.ok) {
      mount(out, h('p', { class: 'error' }, body.error ?? `HTTP ${res.status}`));
      return;
    }
    forgetKey();
    storeKey(body.api_key);
    mount(
      out,
      h(
        'div',
        { class: 'notice' },
        h('p', {}, 'Your new key, shown only this once (the old one no longer works):'),
        h('code', { class: 'key', id: 'new-key' }, body.api_key),
      ),
    );
    const masked = root.querySelector('#masked-key');
    if (masked) masked.textContent = maskKey(body.api_key);
    const who = document.getElementById('who');
    if (who) who.textContent = `${body.username} · ${maskKey(body.api_key)}`;
  };
  return h('div', { class: 'rotate' }, h('button', { type: 'button', id: 'rotate', onclick: () => void rotate() }, label), out);
}

/** A trial is lost with its browser until claimed; a claimed account manages its sign-in methods and sessions. */
function securityLinks(isTrial: boolean): HTMLElement {
  return h(
    'p',
    { class: isTrial ? 'notice' : '', id: 'security' },
    isTrial ? 'A trial account lives only in this browser. ' : '',
    h(
      'a',
      { href: '/account/claim', id: 'to-claim' },
      isTrial ? 'Claim it with a passkey or a password' : 'Passkeys, password and recovery codes',
    ),
    ' · ',
    h('a', { href: '/account/sessions', id: 'to-sessions' }, 'Sessions'),
  );
}

/**
 * DELETE /models/{name} (the API undeploys it first), behind an inline confirmation: the model,
 * its artifacts and its deployment are gone for good.
 */
function deleteControl(stem: string, name: string): HTMLElement {
  const box = h('span', { class: 'delete-model' });
  const ask = () =>
    mount(
      box,
      h('span', { class: 'warning' }, `Delete "${name}" and stop its deployment? `),
      h('button', { type: 'button', class: 'danger confirm-delete', onclick: () => void remove() }, 'Delete for good'),
      h('button', { type: 'button', class: 'secondary cancel-delete', onclick: () => idle() }, 'Cancel'),
    );
  const idle = () => mount(box, h('button', { type: 'button', class: 'secondary ask-delete', onclick: () => ask() }, 'Delete'));
  const remove = async () => {
    try {
      await call('DELETE', `/api/v1/models/${encodeURIComponent(stem)}`);
      location.reload();
    } catch (err) {
      mount(box, h('span', { class: 'error' }, err instanceof Error ? err.message : String(err)));
    }
  };
  idle();
  return box;
}
