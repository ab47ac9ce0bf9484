import type { Accounts } from '../../accounts/index.ts';
import type { Config } from '../../config.ts';
import { KeyResponse, LogoutResponse, NoFields, TrialKeyRequest, WhoamiResponse } from '../../../schemas/accounts.ts';
import { ErrorBody } from '../../../schemas/common.ts';
import { requireUser } from '../plugins/auth.ts';
import { readCookie, renewSession, SESSION_COOKIE, setSessionCookie } from '../plugins/session.ts';
import { deviceLabel, mintTrial } from '../../accounts/index.ts';
import type { App } from '../types.ts';

export interface KeyRoutesDeps {
  accounts: Pick<Accounts, 'directory' | 'metering' | 'mintLimiter'>;
  config: Pick<Config, 'TRIAL_CREDITS' | 'TRIAL_MINTS_PER_HOUR'>;
}

export function keyRoutes(app: App, { accounts, config }: KeyRoutesDeps): void {
  const { directory, metering } = accounts;

  app.post('/api/v1/key/trial', {
    config: { auth: 'none' },
    schema: {
      tags: ['keys'],
      summary: 'Mint an anonymous trial key',
      description:
        `No signup. Grants ${config.TRIAL_CREDITS} credits (TRIAL_CREDITS; the contract states both 50 and 10,000 — ` +
        `we grant 50 by default). At most ${config.TRIAL_MINTS_PER_HOUR} keys per client IP per rolling hour ` +
        '(X-Forwarded-For is honoured only when the service runs with TRUST_PROXY); a taken username (409) or an invalid ' +
        'body (400) does not count against it. Also sets the HttpOnly `sf_session` cookie that binds the browser to this ' +
        'account (`Secure` over HTTPS; it ends at logout, at a key rotation or after 30 days). The key is shown only in this response.',
      body: TrialKeyRequest.optional(),
      response: { 200: KeyResponse, 409: ErrorBody },
    },
    // A POST without a body reaches the validator as null; treat it as the empty request it is.
    preValidation: async (request) => {
      request.body ??= {};
    },
    handler: async (request, reply) => {
      const { user, apiKey, sessionToken, credits } = await mintTrial(accounts, {
        ip: request.ip,
        username: request.body?.username,
        device: deviceLabel(request.headers['user-agent']),
        credits: config.TRIAL_CREDITS,
      });
      setSessionCookie(request, reply, sessionToken);
      return { api_key: apiKey, credits, is_trial: user.is_trial, user_id: user.user_id, username: user.username };
    },
  });

  app.post('/api/v1/key/generate', {
    config: { auth: 'key-or-session' },
    schema: {
      tags: ['keys'],
      summary: 'Issue or rotate your personal API key',
      description:
        'Issues a new key for the caller (identified by X-API-Key or the session cookie — e.g. a browser just signed in ' +
        'with POST /api/v1/auth/sign-in/…). The key is shown only in this response. The old key stops ' +
        'working at once, and every other browser session of the account ends with it; a caller identified by its ' +
        'session cookie gets a new one in this response. With the cookie, a browser page of another site is refused ' +
        '(403 SF_FOREIGN_ORIGIN). No body is needed (or `{}`); a body of another content-type is refused (415).',
      body: NoFields.nullish(),
      response: { 200: KeyResponse },
    },
    handler: async (request, reply) => {
      const caller = requireUser(request);
      const { user, apiKey } = await directory.rotateKey(caller.user_id);
      await renewSession(request, reply, directory);
      const credits = await metering.balance(user.user_id);
      return { api_key: apiKey, credits, is_trial: user.is_trial, user_id: user.user_id, username: user.username };
    },
  });

  app.post('/api/v1/logout', {
    config: { auth: 'none' },
    schema: {
      tags: ['keys'],
      summary: 'End the browser session',
      description:
        'Ends the session of the `sf_session` cookie sent (it no longer identifies anyone, here or in any other ' +
        'browser holding it) and clears the cookie. `logged_out` is false when no live session was sent. ' +
        'The API key is untouched. A browser page of another site is refused (403 SF_FOREIGN_ORIGIN).',
      body: NoFields.nullish(),
      response: { 200: LogoutResponse, 403: ErrorBody },
    },
    handler: async (request, reply) => {
      const token = readCookie(request, SESSION_COOKIE);
      const user = token ? await directory.authenticateSession(token) : null;
      // A foreign page's logout was refused before this (the auth hook's cookie check).
      if (token) await directory.endSession(token);
      setSessionCookie(request, reply, null);
      return { logged_out: user !== null };
    },
  });

  app.get('/api/v1/whoami-key', {
    config: { auth: 'key-or-session' },
    schema: {
      tags: ['keys'],
      summary: 'Who the key or session belongs to',
      description:
        'Resolves X-API-Key, or else the session cookie. `api_key` is masked (prefix … last 4): only a hash ' +
        'of the key is stored. 401 when neither identifies a user.',
      response: { 200: WhoamiResponse },
    },
    handler: async (request) => {
      const user = requireUser(request);
      return {
        api_key: user.key_hint,
        is_trial: user.is_trial,
        plan: user.plan,
        user_id: user.user_id,
        username: user.username,
      };
    },
  });
}
