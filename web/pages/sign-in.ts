/** Signing in (passkey or password) and recovering an account with a one-time recovery code. */
import { startAuthentication } from '@simplewebauthn/browser';
import { forgetKey, markSignedIn, sessionCall } from '../lib/api.ts';
import { $, h, mount } from '../lib/dom.ts';
import type { SignInResponse } from '../../schemas/sign-in.ts';
import type { z } from 'zod';

type SignedIn = z.infer<typeof SignInResponse>;

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Signed in: a key this browser held belonged to whoever was here before, so it is forgotten; the
 * account page then offers this account's key (POST /key/generate).
 */
function signedIn(out: HTMLElement, me: SignedIn, extra?: HTMLElement): void {
  forgetKey();
  markSignedIn();
  mount(
    out,
    h(
      'div',
      { class: 'notice', id: 'signed-in' },
      h('p', {}, `Signed in as ${me.username}.`),
      extra ?? null,
      h('p', {}, h('a', { href: '/account', id: 'to-account' }, 'Go to your account'), ' to get your API key and see your sessions.'),
    ),
  );
}

type Field = [name: string, label: string, type: string, autocomplete: string];
const USERNAME: Field = ['username', 'Username', 'text', 'username'];

/** A form of text fields whose values go to `onSubmit` (the page stays: no navigation, no native dialog). */
export function credentialForm(
  fields: Field[],
  submit: string,
  id: string,
  onSubmit: (values: Record<string, string>) => Promise<void>,
): HTMLFormElement {
  const form = h(
    'form',
    { id, class: 'auth-form' },
    fields.map(([name, label, type, autocomplete]) => h('label', {}, label, h('input', { name, type, autocomplete, required: true }))),
    h('button', { type: 'submit' }, submit),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const values = Object.fromEntries([...new FormData(form).entries()].map(([k, v]) => [k, String(v)]));
    void onSubmit(values);
  });
  return form;
}

export async function startSignInPage(): Promise<void> {
  const root = $('#sign-in');
  const out = h('div', { id: 'sign-in-result' });
  const fail = (err: unknown) => mount(out, h('p', { class: 'error', id: 'sign-in-error' }, errorText(err)));
  const withPasskey = async () => {
    try {
      const optionsJSON = await sessionCall('POST', '/api/v1/auth/sign-in/passkey/options', {});
      const credential = await startAuthentication({ optionsJSON });
      signedIn(out, await sessionCall<SignedIn>('POST', '/api/v1/auth/sign-in/passkey', { credential }));
    } catch (err) {
      fail(err);
    }
  };
  const withPassword = async ({ username, password }: Record<string, string>) => {
    try {
      signedIn(out, await sessionCall<SignedIn>('POST', '/api/v1/auth/sign-in/password', { username, password }));
    } catch (err) {
      fail(err);
    }
  };
  mount(
    root,
    h('h1', {}, 'Sign in'),
    h('p', { class: 'muted' }, 'For an account claimed with a passkey or a password (a trial account is claimed on its Account page).'),
    h('button', { type: 'button', id: 'passkey-sign-in', onclick: () => void withPasskey() }, 'Sign in with a passkey'),
    h('h2', {}, 'Or with your password'),
    credentialForm([USERNAME, ['password', 'Password', 'password', 'current-password']], 'Sign in', 'password-sign-in', withPassword),
    h('p', {}, 'Lost your passkey and password? ', h('a', { href: '/recover' }, 'Use a recovery code'), '.'),
    out,
  );
}

export async function startRecoverPage(): Promise<void> {
  const root = $('#recover');
  const out = h('div', { id: 'recover-result' });
  const recover = async ({ username, code }: Record<string, string>) => {
    try {
      const me = await sessionCall<SignedIn>('POST', '/api/v1/auth/sign-in/recovery-code', { username, code });
      const left = h(
        'p',
        { id: 'codes-left' },
        `That code is spent: ${me.recovery_codes_left ?? 0} left. `,
        h('a', { href: '/account/claim' }, 'Add a new passkey or password'),
        ' now, and get new codes there.',
      );
      signedIn(out, me, left);
    } catch (err) {
      mount(out, h('p', { class: 'error', id: 'recover-error' }, errorText(err)));
    }
  };
  mount(
    root,
    h('h1', {}, 'Recover your account'),
    h('p', { class: 'muted' }, 'Use one of the recovery codes you were shown when you claimed the account. Each code works once.'),
    credentialForm([USERNAME, ['code', 'Recovery code', 'text', 'one-time-code']], 'Sign in with the code', 'recovery-sign-in', recover),
    out,
  );
}
