import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { PasskeyRejectedError, SignInFailedError } from '../errors.ts';
import type { UserRecord } from '../../schemas/account-records.ts';
import type { AccountDirectory } from './directory.ts';
import { Credentials } from './credentials.ts';
import type { PasskeyCeremonies, RelyingParty } from './passkeys.ts';
import { verifyPassword } from './passwords.ts';
import type { SignInThrottle } from './sign-in-throttle.ts';

const WRONG_PASSWORD =
  'the username and password do not match an account that signs in with a password: check both, or sign in with a passkey or a recovery code';
const WRONG_CODE = 'the username and recovery code do not match an unused recovery code: check both (each code works once)';

/**
 * Signing in to a claimed account: by password, by recovery code, by passkey. Whatever does not
 * match — no such user, a trial account, no password, a wrong one — is the same 401 after the same
 * work (an Argon2 verify against a dummy hash, a credentials read of no account), so neither the
 * message nor the time tells whether a username exists. Each attempt is counted by the throttle
 * before anything is checked.
 */
export class SignIn {
  constructor(
    private readonly directory: Pick<AccountDirectory, 'userIdOf' | 'get'>,
    private readonly credentials: Credentials,
    private readonly throttle: SignInThrottle,
    private readonly ceremonies: PasskeyCeremonies,
  ) {}

  async withPassword(username: string, password: string, ip: string): Promise<UserRecord> {
    await this.throttle.attempt(ip, username);
    const user = await this.userNamed(username);
    const { password_hash } = await this.credentials.read(user?.user_id ?? 0);
    const ok = await verifyPassword(user ? password_hash : null, password);
    if (!ok || !user) throw new SignInFailedError(WRONG_PASSWORD);
    await this.throttle.succeeded(ip, username);
    return user;
  }

  /** Spends one recovery code; the account and how many unused codes it has left. */
  async withRecoveryCode(username: string, code: string, ip: string): Promise<{ user: UserRecord; left: number }> {
    await this.throttle.attempt(ip, username);
    const user = await this.userNamed(username);
    const left = await this.credentials.useRecoveryCode(user?.user_id ?? 0, code);
    if (left === null || !user) throw new SignInFailedError(WRONG_CODE);
    await this.throttle.succeeded(ip, username);
    return { user, left };
  }

  /** Options for a passkey sign-in (any passkey of the site: the passkey names its account). */
  passkeyOptions(rp: RelyingParty) {
    return this.ceremonies.signInOptions(rp);
  }

  async withPasskey(response: AuthenticationResponseJSON, rp: RelyingParty, ip: string): Promise<UserRecord> {
    await this.throttle.attempt(ip, null);
    const passkeysOf = async (userId: number) => (this.directory.get(userId) ? (await this.credentials.read(userId)).passkeys : []);
    const { userId, passkeyId, counter } = await this.ceremonies.verifySignIn(response, rp, passkeysOf).catch((err: unknown) => {
      throw err instanceof PasskeyRejectedError ? new SignInFailedError(err.message) : err;
    });
    const user = this.directory.get(userId);
    if (!user) throw new SignInFailedError('this passkey is not registered here: sign in another way');
    await this.credentials.passkeyUsed(userId, passkeyId, counter);
    await this.throttle.succeeded(ip, null);
    return user;
  }

  private async userNamed(username: string): Promise<UserRecord | null> {
    const userId = await this.directory.userIdOf(username);
    return userId === null ? null : this.directory.get(userId);
  }
}
