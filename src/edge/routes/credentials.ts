import type { FastifyRequest } from 'fastify';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { Credentials, deviceLabel, RECOVERY_CODE_COUNT, type Accounts, type CredentialChange } from '../../accounts/index.ts';
import type { Config } from '../../config.ts';
import { RecentSignInRequiredError } from '../../errors.ts';
import { ErrorBody } from '../../../schemas/common.ts';
import { NoFields } from '../../../schemas/accounts.ts';
import type { UserRecord } from '../../../schemas/account-records.ts';
import {
  AccountCredentials,
  CreationOptions,
  CredentialResponse,
  PasskeyRegisterRequest,
  PasswordRequest,
  RecoveryCodesResponse,
} from '../../../schemas/sign-in.ts';
import { requireUser } from '../plugins/auth.ts';
import { renewSession, startSession } from '../plugins/session.ts';
import { relyingParty } from '../relying-party.ts';
import type { App } from '../types.ts';
import { liveClock, type Clock } from '../../lib/clock.ts';

export interface CredentialRoutesDeps {
  accounts: Pick<Accounts, 'directory' | 'claims' | 'credentials'>;
  config: Pick<Config, 'PUBLIC_URL'>;
  /** The time a sign-in's age is read at (liveClock unless a test sets it). */
  clock?: Clock;
}

/** How recent a browser's sign-in must be for it to change how a claimed account signs in. */
export const RECENT_SIGN_IN_MS = 15 * 60_000;

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

const CLAIM =
  'On a trial account the first passkey or password **claims** it: `is_trial` becomes false and ' +
  `${RECOVERY_CODE_COUNT} one-time recovery codes are returned, this once. The username, key, plan, credits, models and ` +
  'deployments stay as they were. A trial account is changed with its key or its session; a claimed one only from a browser ' +
  `session signed in within the last ${RECENT_SIGN_IN_MS / 60_000} minutes (403 SF_RECENT_SIGN_IN_REQUIRED otherwise), so a ` +
  'leaked key or an old session cannot take the account over. ';

/**
 * A claimed account's credentials change only from a fresh browser sign-in; a trial account's
 * with whatever identifies it (its key, its session: that is all it has).
 */
function requireRecentSignIn(request: FastifyRequest, user: UserRecord, clock: Clock): void {
  if (user.is_trial) return;
  const session = request.authVia === 'session' ? request.browserSession : null;
  if (!session || clock.now() - session.signed_in_at > RECENT_SIGN_IN_MS) {
    throw new RecentSignInRequiredError(
      `changing how this account signs in needs a browser session signed in within the last ${RECENT_SIGN_IN_MS / 60_000} minutes: ` +
        'sign in again (POST /api/v1/auth/sign-in/…), then send the session cookie without X-API-Key',
    );
  }
}

/** Account status, passkeys, password and recovery codes: claiming a trial account and keeping it. */
export function credentialRoutes(app: App, { accounts, config, clock = liveClock }: CredentialRoutesDeps): void {
  const { directory, claims, credentials } = accounts;

  /** The answer of a call that attached a credential; a claim signs the browser in afresh (a recent sign-in from now). */
  const attached = async (
    request: FastifyRequest,
    reply: Parameters<typeof startSession>[1],
    user: UserRecord,
    change: CredentialChange,
  ) => {
    if (change.claimed && request.authVia === 'session') await startSession(request, reply, directory, user.user_id);
    return {
      user_id: user.user_id,
      username: user.username,
      is_trial: false,
      claimed: change.claimed,
      recovery_codes: change.recoveryCodes,
    };
  };

  app.get('/api/v1/auth/account', {
    config: { auth: 'key-or-session' },
    schema: {
      tags: ['sign-in'],
      summary: 'How your account signs in',
      description: 'Whether it is claimed, whether it has a password, its passkeys, and how many unused recovery codes are left.',
      response: { 200: AccountCredentials },
    },
    handler: async (request) => {
      const user = requireUser(request);
      const record = await credentials.read(user.user_id);
      return {
        user_id: user.user_id,
        username: user.username,
        is_trial: user.is_trial,
        claimed_at: iso(user.claimed_at),
        password: record.password_hash !== undefined,
        passkeys: record.passkeys.map((p) => ({
          id: p.id,
          name: p.name,
          created_at: iso(p.created_at)!,
          last_used_at: iso(p.last_used_at),
        })),
        recovery_codes_left: Credentials.recoveryCodesLeft(record),
      };
    },
  });

  app.post('/api/v1/auth/passkeys/options', {
    config: { auth: 'key-or-session' },
    schema: {
      tags: ['sign-in'],
      summary: 'Start adding a passkey (claims a trial account)',
      description:
        'The WebAuthn creation options (a challenge, valid 5 minutes, once): a discoverable passkey with user verification. ' +
        'The relying party is PUBLIC_URL’s host when set, else the host of the request. ' +
        CLAIM,
      body: NoFields.nullish(),
      response: { 200: CreationOptions, 403: ErrorBody },
    },
    handler: async (request) => {
      const user = requireUser(request);
      requireRecentSignIn(request, user, clock);
      return { ...(await claims.passkeyOptions(user, relyingParty(request, config.PUBLIC_URL))) };
    },
  });

  app.post('/api/v1/auth/passkeys', {
    config: { auth: 'key-or-session' },
    schema: {
      tags: ['sign-in'],
      summary: 'Finish adding a passkey (claims a trial account)',
      description:
        'The browser’s answer to the options of POST /api/v1/auth/passkeys/options (400 SF_PASSKEY_REJECTED when it does not verify). ' +
        CLAIM,
      body: PasskeyRegisterRequest,
      response: { 200: CredentialResponse, 403: ErrorBody },
    },
    handler: async (request, reply) => {
      const user = requireUser(request);
      requireRecentSignIn(request, user, clock);
      const name = request.body.name ?? `${deviceLabel(request.headers['user-agent'])} passkey`;
      const credential = request.body.credential as unknown as RegistrationResponseJSON;
      const change = await claims.addPasskey(user, credential, relyingParty(request, config.PUBLIC_URL), name);
      return attached(request, reply, user, change);
    },
  });

  app.put('/api/v1/auth/password', {
    config: { auth: 'key-or-session' },
    schema: {
      tags: ['sign-in'],
      summary: 'Set or change the password (claims a trial account)',
      description:
        'Stored as an Argon2id hash (m = 19 MiB, t = 2, p = 1). A change needs `current_password` (checked under the sign-in ' +
        'throttle of the username) and ends every other session of the account; a browser that asked keeps signed in with a ' +
        'new cookie. ' +
        CLAIM,
      body: PasswordRequest,
      response: { 200: CredentialResponse, 401: ErrorBody, 403: ErrorBody },
    },
    handler: async (request, reply) => {
      const user = requireUser(request);
      requireRecentSignIn(request, user, clock);
      const change = await claims.setPassword(user, request.body.password, request.body.current_password, request.ip);
      if (change.changed) await renewSession(request, reply, directory);
      return attached(request, reply, user, change);
    },
  });

  app.post('/api/v1/auth/recovery-codes', {
    config: { auth: 'key-or-session' },
    schema: {
      tags: ['sign-in'],
      summary: 'Replace the recovery codes',
      description:
        `${RECOVERY_CODE_COUNT} new one-time codes, shown only in this response; the previous ones stop working. ` +
        `A claimed account only (409 for a trial account), from a browser session signed in within the last ${RECENT_SIGN_IN_MS / 60_000} minutes.`,
      body: NoFields.nullish(),
      response: { 200: RecoveryCodesResponse, 403: ErrorBody, 409: ErrorBody },
    },
    handler: async (request) => {
      const user = requireUser(request);
      requireRecentSignIn(request, user, clock);
      return { recovery_codes: await claims.newRecoveryCodes(user) };
    },
  });
}
