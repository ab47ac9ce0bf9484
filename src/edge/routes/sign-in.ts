import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { Accounts } from '../../accounts/index.ts';
import { SIGN_IN_LIMITS } from '../../accounts/index.ts';
import type { Config } from '../../config.ts';
import { ErrorBody } from '../../../schemas/common.ts';
import { NoFields } from '../../../schemas/accounts.ts';
import {
  PasskeySignInRequest,
  PasswordSignInRequest,
  RecoveryCodeSignInRequest,
  RequestOptions,
  SignInResponse,
} from '../../../schemas/sign-in.ts';
import { refuseForeignOrigin, startSession } from '../plugins/session.ts';
import { relyingParty } from '../relying-party.ts';
import type { App } from '../types.ts';

export interface SignInRoutesDeps {
  accounts: Pick<Accounts, 'directory' | 'signIn'>;
  config: Pick<Config, 'PUBLIC_URL'>;
  allowedOrigins: ReadonlySet<string>;
}

const THROTTLE =
  `Attempts are limited per username and per client address: after ${SIGN_IN_LIMITS.freePerName} attempts at one username ` +
  `(${SIGN_IN_LIMITS.freePerAddress} from one address) each further one must wait, ${SIGN_IN_LIMITS.firstDelayMs / 1000} s ` +
  `at first and twice as long each time, up to ${SIGN_IN_LIMITS.maxDelayMs / 60_000} min (429 SF_SIGN_IN_THROTTLED with Retry-After); ` +
  'a quiet day forgets them, a success forgets the username’s. ';
const NO_ENUMERATION =
  'A wrong answer is 401 SF_SIGN_IN_FAILED with the same message and the same work whether or not the username exists. ';
const SESSION =
  'On success the HttpOnly `sf_session` cookie signs this browser in (a session it held before ends); get an API key with POST /api/v1/key/generate. ';

/** Signing in: by password, recovery code or passkey. Each answers with a session cookie. */
export function signInRoutes(app: App, { accounts, config, allowedOrigins }: SignInRoutesDeps): void {
  const { directory, signIn } = accounts;
  // A sign-in from another site's page would sign the victim's browser in to the attacker's account.
  const sameSiteOnly = {
    preHandler: async (request: Parameters<typeof refuseForeignOrigin>[0]) => refuseForeignOrigin(request, allowedOrigins),
  };
  const answer = (user: { user_id: number; username: string; is_trial: boolean }) => ({
    user_id: user.user_id,
    username: user.username,
    is_trial: user.is_trial,
  });

  app.post('/api/v1/auth/sign-in/password', {
    config: { auth: 'none' },
    schema: {
      tags: ['sign-in'],
      summary: 'Sign in with username and password',
      description: `For a claimed account with a password (PUT /api/v1/auth/password). ${SESSION}${NO_ENUMERATION}${THROTTLE}`,
      body: PasswordSignInRequest,
      response: { 200: SignInResponse, 401: ErrorBody },
    },
    ...sameSiteOnly,
    handler: async (request, reply) => {
      const user = await signIn.withPassword(request.body.username, request.body.password, request.ip);
      await startSession(request, reply, directory, user.user_id);
      return answer(user);
    },
  });

  app.post('/api/v1/auth/sign-in/recovery-code', {
    config: { auth: 'none' },
    schema: {
      tags: ['sign-in'],
      summary: 'Sign in with a recovery code (each works once)',
      description:
        `For a claimed account that lost its passkey or password: one of the codes shown when it was claimed. The code is spent. ${SESSION}` +
        `Then attach a new passkey or password, and get new codes with POST /api/v1/auth/recovery-codes. ${NO_ENUMERATION}${THROTTLE}`,
      body: RecoveryCodeSignInRequest,
      response: { 200: SignInResponse, 401: ErrorBody },
    },
    ...sameSiteOnly,
    handler: async (request, reply) => {
      const { user, left } = await signIn.withRecoveryCode(request.body.username, request.body.code, request.ip);
      await startSession(request, reply, directory, user.user_id);
      return { ...answer(user), recovery_codes_left: left };
    },
  });

  app.post('/api/v1/auth/sign-in/passkey/options', {
    config: { auth: 'none' },
    schema: {
      tags: ['sign-in'],
      summary: 'Start a passkey sign-in',
      description:
        'The WebAuthn request options (a challenge, valid 5 minutes, once) for any passkey of this site: no username is asked, ' +
        'the passkey names its account. The relying party is PUBLIC_URL’s host when set, else the host of the request.',
      body: NoFields.nullish(),
      response: { 200: RequestOptions },
    },
    handler: async (request) => ({ ...(await signIn.passkeyOptions(relyingParty(request, config.PUBLIC_URL))) }),
  });

  app.post('/api/v1/auth/sign-in/passkey', {
    config: { auth: 'none' },
    schema: {
      tags: ['sign-in'],
      summary: 'Finish a passkey sign-in',
      description: `The browser's answer to the options of POST /api/v1/auth/sign-in/passkey/options. ${SESSION}${THROTTLE}`,
      body: PasskeySignInRequest,
      response: { 200: SignInResponse, 401: ErrorBody },
    },
    ...sameSiteOnly,
    handler: async (request, reply) => {
      const credential = request.body.credential as unknown as AuthenticationResponseJSON;
      const user = await signIn.withPasskey(credential, relyingParty(request, config.PUBLIC_URL), request.ip);
      await startSession(request, reply, directory, user.user_id);
      return answer(user);
    },
  });
}
