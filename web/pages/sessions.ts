/** The account's browser sessions: where it is signed in, and ending them. */
import { forgetKey, sessionCall } from '../lib/api.ts';
import { $, h, mount } from '../lib/dom.ts';
import type { SessionList } from '../../schemas/sign-in.ts';
import type { z } from 'zod';

type Sessions = z.infer<typeof SessionList>;

export async function startSessionsPage(): Promise<void> {
  const root = $('#sessions-page');
  const out = h('div', { id: 'sessions-result' });
  const list = h('ul', { id: 'sessions', class: 'sessions' });
  const fail = (err: unknown) => mount(out, h('p', { class: 'error' }, err instanceof Error ? err.message : String(err)));
  const when = (iso: string) => iso.slice(0, 16).replace('T', ' ');

  const render = async () => {
    const { sessions } = await sessionCall<Sessions>('GET', '/api/v1/auth/sessions');
    mount(
      list,
      sessions.map((s) =>
        h(
          'li',
          { 'data-session': s.id, class: s.current ? 'current' : '' },
          h('strong', {}, s.device),
          ` · signed in ${when(s.created_at)} · last seen ${when(s.last_seen_at)} `,
          s.current
            ? h('span', { class: 'muted' }, '(this browser)')
            : h('button', { type: 'button', class: 'secondary end-session', onclick: () => void end(s.id) }, 'Sign out'),
        ),
      ),
    );
  };
  const end = async (id: string) => {
    try {
      await sessionCall('DELETE', `/api/v1/auth/sessions/${id}`);
      await render();
    } catch (err) {
      fail(err);
    }
  };
  const endOthers = async () => {
    try {
      const { revoked } = await sessionCall<{ revoked: number }>('DELETE', '/api/v1/auth/sessions');
      mount(out, h('p', { class: 'notice' }, `${revoked} other session(s) signed out.`));
      await render();
    } catch (err) {
      fail(err);
    }
  };
  const signOut = async () => {
    await fetch('/api/v1/logout', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    // The key in this browser is the account's too: signing out of this browser forgets it here.
    forgetKey();
    location.assign('/sign-in');
  };

  try {
    await render();
  } catch {
    mount(root, h('h1', {}, 'Sessions'), h('p', {}, 'This browser is not signed in. ', h('a', { href: '/sign-in' }, 'Sign in'), '.'));
    return;
  }
  mount(
    root,
    h('h1', {}, 'Sessions'),
    h(
      'p',
      { class: 'muted' },
      'Where your account is signed in. Rotating your API key or changing your password also signs the others out.',
    ),
    list,
    h(
      'p',
      {},
      h('button', { type: 'button', id: 'end-others', onclick: () => void endOthers() }, 'Sign out everywhere else'),
      ' ',
      h('button', { type: 'button', class: 'secondary', id: 'sign-out', onclick: () => void signOut() }, 'Sign out of this browser'),
    ),
    out,
  );
}
