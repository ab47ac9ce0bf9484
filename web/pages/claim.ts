/**
 * Keeping an account: claim a trial with a passkey or a password (its recovery codes are shown
 * once, then), add passkeys, change the password, replace the recovery codes.
 */
import { startRegistration } from '@simplewebauthn/browser';
import { markSignedIn, sessionCall } from '../lib/api.ts';
import { $, h, mount } from '../lib/dom.ts';
import type { AccountCredentials, CredentialResponse, RecoveryCodesResponse } from '../../schemas/sign-in.ts';
import type { z } from 'zod';
import { credentialForm } from './sign-in.ts';

type Status = z.infer<typeof AccountCredentials>;
type Attached = z.infer<typeof CredentialResponse>;

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The codes, shown this once, with what they are for. */
function codesBox(codes: string[], heading: string): HTMLElement {
  return h(
    'div',
    { class: 'notice', id: 'recovery-codes' },
    h('p', {}, heading),
    h(
      'p',
      {},
      'Keep these recovery codes somewhere safe: each one signs you in once if you lose your passkey and password. They are shown only now.',
    ),
    h(
      'ul',
      { class: 'codes' },
      codes.map((c) => h('li', {}, h('code', {}, c))),
    ),
  );
}

export async function startClaimPage(): Promise<void> {
  const root = $('#claim');
  const out = h('div', { id: 'claim-result' });
  let status: Status;
  try {
    status = await sessionCall<Status>('GET', '/api/v1/auth/account');
  } catch (err) {
    mount(
      root,
      h('h1', {}, 'Sign-in methods'),
      h(
        'p',
        {},
        'This browser is not signed in to an account. ',
        h('a', { href: '/sign-in' }, 'Sign in'),
        ' or ',
        h('a', { href: '/' }, 'run an idea'),
        ' to get a trial account.',
      ),
    );
    return;
  }
  const done = async (result: Attached, what: string) => {
    markSignedIn();
    await render();
    mount(
      out,
      result.recovery_codes
        ? codesBox(result.recovery_codes, `${what} Your account ${result.username} is claimed: it is yours on any device now.`)
        : h('p', { class: 'notice', id: 'attached' }, what),
    );
  };
  const fail = (err: unknown) => mount(out, h('p', { class: 'error', id: 'claim-error' }, errorText(err)));

  const addPasskey = async () => {
    try {
      const optionsJSON = await sessionCall('POST', '/api/v1/auth/passkeys/options', {});
      const credential = await startRegistration({ optionsJSON });
      await done(await sessionCall<Attached>('POST', '/api/v1/auth/passkeys', { credential }), 'Passkey added.');
    } catch (err) {
      fail(err);
    }
  };
  const setPassword = async (values: Record<string, string>) => {
    try {
      const body = status.password
        ? { password: values.password, current_password: values.current_password }
        : { password: values.password };
      await done(
        await sessionCall<Attached>('PUT', '/api/v1/auth/password', body),
        status.password ? 'Password changed: your other sessions were signed out.' : 'Password set.',
      );
    } catch (err) {
      fail(err);
    }
  };
  const newCodes = async () => {
    try {
      const { recovery_codes } = await sessionCall<z.infer<typeof RecoveryCodesResponse>>('POST', '/api/v1/auth/recovery-codes', {});
      mount(out, codesBox(recovery_codes, 'New recovery codes: the old ones no longer work.'));
    } catch (err) {
      fail(err);
    }
  };

  const body = h('div', {});
  const title = h('h1', {});
  const render = async () => {
    status = await sessionCall<Status>('GET', '/api/v1/auth/account');
    title.textContent = status.is_trial ? 'Claim your account' : 'Sign-in methods';
    const passwordFields: [string, string, string, string][] = status.password
      ? [
          ['current_password', 'Current password', 'password', 'current-password'],
          ['password', 'New password (10 characters or more)', 'password', 'new-password'],
        ]
      : [['password', 'Password (10 characters or more)', 'password', 'new-password']];
    mount(
      body,
      h(
        'p',
        { id: 'account-state' },
        status.is_trial
          ? `${status.username} is a trial account: it lives only in this browser until you claim it. A claimed account signs in from any browser and gets the free plan's monthly credits (see Usage).`
          : `${status.username} is claimed${status.claimed_at ? ` since ${status.claimed_at.slice(0, 10)}` : ''}.`,
      ),
      h('h2', {}, 'Passkeys'),
      status.passkeys.length
        ? h(
            'ul',
            { class: 'passkeys' },
            status.passkeys.map((p) =>
              h(
                'li',
                {},
                p.name,
                h(
                  'span',
                  { class: 'muted' },
                  ` · added ${p.created_at.slice(0, 10)}${p.last_used_at ? ` · last used ${p.last_used_at.slice(0, 16).replace('T', ' ')}` : ''}`,
                ),
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'No passkey yet.'),
      h(
        'button',
        { type: 'button', id: 'add-passkey', onclick: () => void addPasskey() },
        status.is_trial ? 'Claim with a passkey' : 'Add a passkey',
      ),
      h('h2', {}, 'Password'),
      credentialForm(
        passwordFields,
        status.is_trial ? 'Claim with this password' : status.password ? 'Change password' : 'Set password',
        'password-form',
        setPassword,
      ),
      status.is_trial ? null : h('h2', {}, 'Recovery codes'),
      status.is_trial
        ? null
        : h(
            'p',
            {},
            `${status.recovery_codes_left} unused. `,
            h('button', { type: 'button', class: 'secondary', id: 'new-codes', onclick: () => void newCodes() }, 'Replace them'),
          ),
    );
  };
  await render();
  mount(
    root,
    title,
    out,
    body,
    h('p', {}, h('a', { href: '/account/sessions' }, 'Your sessions'), ' · ', h('a', { href: '/account' }, 'Account')),
  );
}
