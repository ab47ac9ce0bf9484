import type { JsonKv } from '../bus/index.ts';
import type { CredentialsRecord, PasskeyRecord } from '../../schemas/account-records.ts';
import { findRecoveryCode, generateRecoveryCode, hashRecoveryCode, RECOVERY_CODE_COUNT } from './recovery-codes.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

const EMPTY: CredentialsRecord = { passkeys: [], recovery_codes: [] };

/** Thrown inside a compare-and-set to write nothing. */
class NoChange extends Error {}

/**
 * How each account signs in: its passkeys, its password (the Argon2id hash only) and its recovery
 * codes (SHA-256 only), one KV entry per account changed only by compare-and-set — so a recovery
 * code is spent once even when two requests race with it.
 */
export class Credentials {
  private readonly clock: Clock;

  constructor(
    private readonly kv: JsonKv<typeof CredentialsRecord>,
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? liveClock;
  }

  /** The account's credentials (none for a trial account). `userId` 0 is no account: read anyway, so unknown users cost a read too. */
  async read(userId: number): Promise<CredentialsRecord> {
    return (await this.kv.get(String(userId)))?.value ?? EMPTY;
  }

  /** Whether the account can sign in by itself (a password or a passkey). */
  static canSignIn(record: CredentialsRecord): boolean {
    return record.password_hash !== undefined || record.passkeys.length > 0;
  }

  static recoveryCodesLeft(record: CredentialsRecord): number {
    return record.recovery_codes.filter((c) => c.used_at === null).length;
  }

  /** Sets the password hash; returns whether one was there before (a change, not a first password). */
  async setPassword(userId: number, passwordHash: string, now = this.clock.now()): Promise<boolean> {
    let had = false;
    await this.change(userId, (current) => {
      had = current.password_hash !== undefined;
      return { ...current, password_hash: passwordHash, password_changed_at: now };
    });
    return had;
  }

  async addPasskey(userId: number, passkey: PasskeyRecord): Promise<void> {
    await this.change(userId, (current) => ({ ...current, passkeys: [...current.passkeys.filter((p) => p.id !== passkey.id), passkey] }));
  }

  /** Notes a sign-in with the passkey: its new signature counter and when. */
  async passkeyUsed(userId: number, id: string, counter: number, now = this.clock.now()): Promise<void> {
    await this.change(userId, (current) => ({
      ...current,
      passkeys: current.passkeys.map((p) => (p.id === id ? { ...p, counter, last_used_at: now } : p)),
    }));
  }

  /** Removes a passkey; false when the account has no passkey of that id. */
  async removePasskey(userId: number, id: string): Promise<boolean> {
    try {
      await this.change(userId, (current) => {
        if (!current.passkeys.some((p) => p.id === id)) throw new NoChange();
        return { ...current, passkeys: current.passkeys.filter((p) => p.id !== id) };
      });
      return true;
    } catch (err) {
      if (err instanceof NoChange) return false;
      throw err;
    }
  }

  /** A new set of recovery codes, returned in clear this once; the previous set stops working. */
  async newRecoveryCodes(userId: number): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, generateRecoveryCode);
    const recovery_codes = codes.map((code) => ({ hash: hashRecoveryCode(code), used_at: null }));
    await this.change(userId, (current) => ({ ...current, recovery_codes }));
    return codes;
  }

  /**
   * Spends a recovery code: the number of unused codes left after it, or null when `code` is none
   * of the account's unused codes. The spend and the check are one compare-and-set.
   */
  async useRecoveryCode(userId: number, code: string, now = this.clock.now()): Promise<number | null> {
    try {
      const { value } = await this.change(userId, (current) => {
        const index = findRecoveryCode(current.recovery_codes, code);
        if (index < 0) throw new NoChange();
        return { ...current, recovery_codes: current.recovery_codes.map((c, i) => (i === index ? { ...c, used_at: now } : c)) };
      });
      return Credentials.recoveryCodesLeft(value);
    } catch (err) {
      if (err instanceof NoChange) return null;
      throw err;
    }
  }

  private change(userId: number, change: (current: CredentialsRecord) => CredentialsRecord) {
    return this.kv.mutate(String(userId), (current) => change(current ?? EMPTY));
  }
}
