/** Sign-in, claim, credentials and sessions (POST /api/v1/auth/…). */
import { z } from 'zod';
import { IsoDateTime } from './common.ts';
import { Username } from './accounts.ts';
import { strictObject } from './strict.ts';

export const Password = z
  .string()
  .min(10, 'a password has at least 10 characters')
  .max(256, 'a password has at most 256 characters')
  .describe('10 to 256 characters; stored only as an Argon2id hash')
  .meta({ examples: ['correct horse battery staple'] });

export const PasswordRequest = strictObject({
  password: Password,
  current_password: z.string().max(256).optional().describe('Required when the account has a password already (a change)'),
}).meta({ id: 'PasswordRequest' });

export const PasswordSignInRequest = strictObject({
  username: Username,
  password: z.string().min(1).max(256),
}).meta({ id: 'PasswordSignInRequest' });

export const RecoveryCodeSignInRequest = strictObject({
  username: Username,
  code: z.string().min(1).max(64).describe('One of the recovery codes shown at claim time (case, spaces and dashes do not matter)'),
}).meta({ id: 'RecoveryCodeSignInRequest' });

const Base64Url = z
  .string()
  .max(65_536)
  .regex(/^[A-Za-z0-9_-]*$/, 'base64url');

/*
 * The browser's WebAuthn answers, as @simplewebauthn/browser's startRegistration/startAuthentication
 * return them. Loose objects on purpose: browsers add fields as WebAuthn grows, and the answer is
 * checked field by field, cryptographically, by @simplewebauthn/server.
 */
export const RegistrationCredential = z
  .looseObject({
    id: Base64Url,
    rawId: Base64Url,
    type: z.literal('public-key'),
    response: z.looseObject({
      clientDataJSON: Base64Url,
      attestationObject: Base64Url,
      transports: z.array(z.string().max(32)).max(10).optional(),
    }),
    clientExtensionResults: z.looseObject({}),
    authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  })
  .describe('What startRegistration() of @simplewebauthn/browser returns (RegistrationResponseJSON)');

export const AuthenticationCredential = z
  .looseObject({
    id: Base64Url,
    rawId: Base64Url,
    type: z.literal('public-key'),
    response: z.looseObject({
      clientDataJSON: Base64Url,
      authenticatorData: Base64Url,
      signature: Base64Url,
      userHandle: Base64Url.optional(),
    }),
    clientExtensionResults: z.looseObject({}),
    authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  })
  .describe('What startAuthentication() of @simplewebauthn/browser returns (AuthenticationResponseJSON)');

export const PasskeyRegisterRequest = strictObject({
  credential: RegistrationCredential,
  name: z.string().trim().min(1).max(60).optional().describe('A name to tell your passkeys apart; default: the browser and system'),
}).meta({ id: 'PasskeyRegisterRequest' });

export const PasskeySignInRequest = strictObject({ credential: AuthenticationCredential }).meta({ id: 'PasskeySignInRequest' });

export const CreationOptions = z
  .looseObject({ challenge: z.string(), rp: z.object({ id: z.string().optional(), name: z.string() }) })
  .describe(
    'PublicKeyCredentialCreationOptionsJSON: pass it to startRegistration({ optionsJSON }) of @simplewebauthn/browser; answer within 5 minutes',
  )
  .meta({ id: 'PasskeyCreationOptions' });

export const RequestOptions = z
  .looseObject({ challenge: z.string(), rpId: z.string().optional() })
  .describe(
    'PublicKeyCredentialRequestOptionsJSON: pass it to startAuthentication({ optionsJSON }) of @simplewebauthn/browser; answer within 5 minutes',
  )
  .meta({ id: 'PasskeyRequestOptions' });

/** The answer of a call that attached a credential (and may have claimed the trial account). */
export const CredentialResponse = z
  .object({
    user_id: z.number().int(),
    username: z.string(),
    is_trial: z.boolean().describe('false from the first credential on'),
    claimed: z.boolean().describe('true when this call claimed the trial account'),
    recovery_codes: z
      .array(z.string())
      .nullable()
      .describe(
        'Shown only here, only when this call claimed the account: keep them; each signs in once (POST /auth/sign-in/recovery-code)',
      ),
  })
  .meta({ id: 'CredentialResponse' });

export const RecoveryCodesResponse = z
  .object({ recovery_codes: z.array(z.string()).describe('Shown only here; the previous set no longer works') })
  .meta({ id: 'RecoveryCodesResponse' });

export const SignInResponse = z
  .object({
    user_id: z.number().int(),
    username: z.string(),
    is_trial: z.boolean(),
    recovery_codes_left: z.number().int().optional().describe('After a recovery-code sign-in: the unused codes left'),
  })
  .describe('The HttpOnly sf_session cookie is set: the browser is signed in. Get an API key with POST /api/v1/key/generate')
  .meta({ id: 'SignInResponse' });

export const Passkey = z.object({
  id: z.string().describe('Credential id (base64url)'),
  name: z.string(),
  created_at: IsoDateTime,
  last_used_at: IsoDateTime.nullable(),
});

export const AccountCredentials = z
  .object({
    user_id: z.number().int(),
    username: z.string(),
    is_trial: z.boolean(),
    claimed_at: IsoDateTime.nullable(),
    password: z.boolean().describe('Whether the account has a password'),
    passkeys: z.array(Passkey),
    recovery_codes_left: z.number().int(),
  })
  .meta({ id: 'AccountCredentials' });

export const SessionId = z
  .string()
  .regex(/^[0-9a-f]{16}$/, '16 hex characters, as GET /auth/sessions lists them')
  .meta({ examples: ['9f86d081884c7d65'] });

export const Session = z.object({
  id: SessionId,
  device: z.string().describe('Browser and system, from the User-Agent'),
  created_at: IsoDateTime,
  last_seen_at: IsoDateTime.describe('Updated at most every 5 minutes'),
  current: z.boolean().describe('The session of this request'),
});

export const SessionList = z.object({ sessions: z.array(Session).describe('Most recently used first') }).meta({ id: 'SessionList' });
export const SessionParams = z.object({ session_id: SessionId });
export const RevokedResponse = z.object({ revoked: z.number().int().describe('Sessions ended') }).meta({ id: 'RevokedResponse' });
