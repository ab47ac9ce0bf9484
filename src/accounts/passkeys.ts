import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { JsonKv } from '../bus/index.ts';
import { PasskeyRejectedError } from '../errors.ts';
import type { ChallengeRecord, PasskeyRecord } from '../../schemas/account-records.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

/** Where passkeys are used: the RP ID (a host name) and the page origin the browser must report. */
export interface RelyingParty {
  id: string;
  origin: string;
}

/** How long a ceremony may take, from its options to its answer (the challenges bucket's TTL is the same). */
export const CEREMONY_TTL_MS = 5 * 60 * 1000;
const RP_NAME = 'signalforge';
const CHALLENGE = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * WebAuthn ceremonies (@simplewebauthn/server). Each challenge is kept in KV until it is answered,
 * once, within CEREMONY_TTL_MS, at the RP it was issued for; the answer names the challenge in its
 * signed client data, so no other state travels between the two requests. Passkeys are
 * discoverable (the sign-in needs no username, so it tells nothing about who has an account) and
 * user verification is required (the passkey alone signs in).
 */
export class PasskeyCeremonies {
  private readonly clock: Clock;

  constructor(
    private readonly challenges: JsonKv<typeof ChallengeRecord>,
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? liveClock;
  }

  async registrationOptions(
    user: { user_id: number; username: string },
    rp: RelyingParty,
    existing: readonly PasskeyRecord[],
    now = this.clock.now(),
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID: rp.id,
      userName: user.username,
      userDisplayName: user.username,
      // The user handle the authenticator gives back at sign-in: it names the account.
      userID: new TextEncoder().encode(String(user.user_id)),
      timeout: CEREMONY_TTL_MS,
      attestationType: 'none',
      excludeCredentials: existing.filter((p) => p.rp_id === rp.id).map((p) => ({ id: p.id, transports: p.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    await this.remember(options.challenge, { purpose: 'register', user_id: user.user_id }, rp, now);
    return options;
  }

  /** Checks a registration answer for the user; the passkey to store. */
  async verifyRegistration(
    userId: number,
    response: RegistrationResponseJSON,
    rp: RelyingParty,
    name: string,
    now = this.clock.now(),
  ): Promise<PasskeyRecord> {
    const challenge = await this.spend(response.response.clientDataJSON, 'register', userId, rp, now);
    const result = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
    }).catch(rejected);
    if (!result.verified) throw new PasskeyRejectedError('the passkey registration did not verify: start again from the options');
    const { credential } = result.registrationInfo;
    return {
      id: credential.id,
      public_key: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      ...(credential.transports ? { transports: credential.transports } : {}),
      rp_id: rp.id,
      name,
      created_at: now,
    };
  }

  async signInOptions(rp: RelyingParty, now = this.clock.now()): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: 'required', timeout: CEREMONY_TTL_MS });
    await this.remember(options.challenge, { purpose: 'sign_in', user_id: null }, rp, now);
    return options;
  }

  /**
   * Checks a sign-in answer against the passkeys of the account its user handle names
   * (`passkeysOf`); the account and the passkey's new signature counter. Any mismatch is the
   * same refusal.
   */
  async verifySignIn(
    response: AuthenticationResponseJSON,
    rp: RelyingParty,
    passkeysOf: (userId: number) => Promise<readonly PasskeyRecord[]>,
    now = this.clock.now(),
  ): Promise<{ userId: number; passkeyId: string; counter: number }> {
    const challenge = await this.spend(response.response.clientDataJSON, 'sign_in', null, rp, now);
    const userId = Number(Buffer.from(response.response.userHandle ?? '', 'base64url').toString('utf8'));
    const passkey =
      Number.isSafeInteger(userId) && userId > 0
        ? (await passkeysOf(userId)).find((p) => p.id === response.id && p.rp_id === rp.id)
        : undefined;
    if (!passkey)
      throw new PasskeyRejectedError('this passkey is not registered here: sign in another way, or claim your account with it first');
    const result = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: passkey.id,
        publicKey: Buffer.from(passkey.public_key, 'base64url'),
        counter: passkey.counter,
        transports: passkey.transports,
      },
      requireUserVerification: true,
    }).catch(rejected);
    if (!result.verified) throw new PasskeyRejectedError('the passkey signature did not verify: try again');
    return { userId, passkeyId: passkey.id, counter: result.authenticationInfo.newCounter };
  }

  private async remember(
    challenge: string,
    who: Pick<ChallengeRecord, 'purpose' | 'user_id'>,
    rp: RelyingParty,
    now: number,
  ): Promise<void> {
    await this.challenges.put(challenge, { ...who, rp_id: rp.id, origin: rp.origin, expires_at: now + CEREMONY_TTL_MS, used: false });
  }

  /** Marks the challenge named in the client data answered (compare-and-set: once); returns it. */
  private async spend(
    clientDataJSON: string,
    purpose: ChallengeRecord['purpose'],
    userId: number | null,
    rp: RelyingParty,
    now: number,
  ): Promise<string> {
    let challenge = '';
    try {
      challenge = String(JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')).challenge ?? '');
    } catch {
      /* not JSON: refused below */
    }
    const refused = new PasskeyRejectedError(
      'the passkey answer is to no open challenge here (expired after 5 minutes, used, or from another site): start again',
    );
    if (!CHALLENGE.test(challenge)) throw refused;
    await this.challenges.mutate(challenge, (current) => {
      const fits =
        current &&
        !current.used &&
        current.expires_at > now &&
        current.purpose === purpose &&
        current.user_id === userId &&
        current.rp_id === rp.id &&
        current.origin === rp.origin;
      if (!fits) throw refused;
      return { ...current, used: true };
    });
    return challenge;
  }
}

/** The library's verification errors name the mismatch; they are the client's problem (400), not ours. */
function rejected(err: unknown): never {
  throw new PasskeyRejectedError(`the passkey answer was refused: ${err instanceof Error ? err.message : String(err)}`);
}
