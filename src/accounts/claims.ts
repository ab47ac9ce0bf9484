import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { BadRequestError, ConflictError, SignInFailedError } from '../errors.ts';
import type { PasskeyRecord, UserRecord } from '../../schemas/account-records.ts';
import type { AccountDirectory } from './directory.ts';
import { Credentials } from './credentials.ts';
import type { CreditLedger } from './credits.ts';
import type { PasskeyCeremonies, RelyingParty } from './passkeys.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import type { SignInThrottle } from './sign-in-throttle.ts';

export interface CredentialChange {
  /** This call turned the trial account into a claimed one. */
  claimed: boolean;
  /** The recovery codes, in clear this once: only when this call claimed the account. */
  recoveryCodes: string[] | null;
}

/**
 * Attaching credentials to an account. The first passkey or password claims a trial account: it
 * stops being `is_trial`, gets its recovery codes, and its balance is topped up to the monthly
 * allowance of a claimed account at once (raised to it, never beyond: see CreditLedger — claiming
 * many trials gets each one allowance a month, nothing more). The username, the key, the plan,
 * the models and deployments stay as they are.
 */
export class Claims {
  constructor(
    private readonly directory: Pick<AccountDirectory, 'markClaimed' | 'endAllSessions'>,
    private readonly credentials: Credentials,
    private readonly ceremonies: PasskeyCeremonies,
    private readonly throttle: SignInThrottle,
    private readonly ledger: Pick<CreditLedger, 'topUp'>,
  ) {}

  async passkeyOptions(user: UserRecord, rp: RelyingParty): Promise<PublicKeyCredentialCreationOptionsJSON> {
    return this.ceremonies.registrationOptions(user, rp, (await this.credentials.read(user.user_id)).passkeys);
  }

  async addPasskey(
    user: UserRecord,
    response: RegistrationResponseJSON,
    rp: RelyingParty,
    name: string,
  ): Promise<CredentialChange & { passkey: PasskeyRecord }> {
    const passkey = await this.ceremonies.verifyRegistration(user.user_id, response, rp, name);
    await this.credentials.addPasskey(user.user_id, passkey);
    return { ...(await this.claimIfTrial(user.user_id)), passkey };
  }

  /**
   * Sets the password, or changes it (then `current` must match, checked under the sign-in
   * throttle of the username, and every session of the account ends: the caller starts a new one).
   */
  async setPassword(
    user: UserRecord,
    password: string,
    current: string | undefined,
    ip: string,
  ): Promise<CredentialChange & { changed: boolean }> {
    const { password_hash } = await this.credentials.read(user.user_id);
    if (password_hash !== undefined) {
      if (current === undefined) throw new BadRequestError('this account has a password: send it as current_password to change it');
      await this.throttle.attempt(ip, user.username);
      if (!(await verifyPassword(password_hash, current)))
        throw new SignInFailedError('current_password is not the account’s password: check it');
      await this.throttle.succeeded(ip, user.username);
    }
    const changed = await this.credentials.setPassword(user.user_id, await hashPassword(password));
    if (changed) await this.directory.endAllSessions(user.user_id);
    return { ...(await this.claimIfTrial(user.user_id)), changed };
  }

  /** A new set of recovery codes for a claimed account (the old set stops working). */
  async newRecoveryCodes(user: UserRecord): Promise<string[]> {
    if (user.is_trial) throw new ConflictError('a trial account has no recovery codes: claim it first with a passkey or a password');
    return this.credentials.newRecoveryCodes(user.user_id);
  }

  private async claimIfTrial(userId: number): Promise<CredentialChange> {
    const claimed = await this.directory.markClaimed(userId);
    if (claimed) await this.ledger.topUp(userId);
    return { claimed, recoveryCodes: claimed ? await this.credentials.newRecoveryCodes(userId) : null };
  }
}
