import { z } from 'zod';
import type { Accounts } from '../../accounts/index.ts';
import type { Config } from '../../config.ts';
import { KeyResponse, TrialKeyRequest, WhoamiResponse } from '../../../schemas/accounts.ts';
import { ErrorBody } from '../../../schemas/common.ts';
import { requireUser, SESSION_COOKIE } from '../plugins/auth.ts';
import type { App } from '../types.ts';

export interface KeyRoutesDeps {
  accounts: Pick<Accounts, 'directory' | 'metering' | 'mintLimiter'>;
  config: Pick<Config, 'TRIAL_CREDITS' | 'TRIAL_MINTS_PER_HOUR'>;
}

const SESSION_MAX_AGE_S = 30 * 24 * 3600;

export function keyRoutes(app: App, { accounts, config }: KeyRoutesDeps): void {
  const { directory, metering, mintLimiter } = accounts;

  app.post('/api/v1/key/trial', {
    config: { auth: 'none' },
    schema: {
      tags: ['keys'],
      summary: 'Mint an anonymous trial key',
      description:
        `No signup. Grants ${config.TRIAL_CREDITS} credits (TRIAL_CREDITS; the contract states both 50 and 10,000 — ` +
        `we grant 50 by default). At most ${config.TRIAL_MINTS_PER_HOUR} keys per client IP per rolling hour ` +
        '(X-Forwarded-For is honoured only when the service runs with TRUST_PROXY). Also sets the `sf_session` ' +
        'cookie that binds the browser to this account. The key is shown only in this response.',
      body: TrialKeyRequest.optional(),
      response: { 200: KeyResponse, 409: ErrorBody },
    },
    // A POST without a body reaches the validator as null; treat it as the empty request it is.
    preValidation: async (request) => {
      request.body ??= {};
    },
    handler: async (request, reply) => {
      await mintLimiter.take(request.ip);
      const { user, apiKey, sessionToken } = await directory.createTrial(request.body?.username);
      const credits = await metering.grant(user.user_id, config.TRIAL_CREDITS, 'signup');
      reply.header(
        'set-cookie',
        `${SESSION_COOKIE}=${sessionToken}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_MAX_AGE_S}`,
      );
      return { api_key: apiKey, credits, is_trial: user.is_trial, user_id: user.user_id, username: user.username };
    },
  });

  app.post('/api/v1/key/generate', {
    config: { auth: 'key-or-session' },
    schema: {
      tags: ['keys'],
      summary: 'Rotate your API key',
      description:
        'Issues a new key for the caller (identified by X-API-Key or the session cookie). The old key stops ' +
        'working at once. No body is needed; any body is ignored.',
      body: z.unknown().optional(),
      response: { 200: KeyResponse },
    },
    handler: async (request) => {
      const caller = requireUser(request);
      const { user, apiKey } = await directory.rotateKey(caller.user_id);
      const credits = await metering.balance(user.user_id);
      return { api_key: apiKey, credits, is_trial: user.is_trial, user_id: user.user_id, username: user.username };
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
