import type { AccountDirectory, NewAccount } from './directory.ts';
import type { Metering } from './metering.ts';
import type { MintLimiter } from './mint-limiter.ts';

export interface TrialMintParts {
  directory: Pick<AccountDirectory, 'reserveTrial' | 'createTrial'>;
  mintLimiter: Pick<MintLimiter, 'take'>;
  metering: Pick<Metering, 'grant'>;
}

export interface TrialMintRequest {
  /** The client address the per-IP mint limit counts. */
  ip: string;
  /** The handle asked for; an auto handle when left out. */
  username?: string | undefined;
  /** The browser's label for the session the account starts with. */
  device?: string | undefined;
  /** The credits the new account starts with (TRIAL_CREDITS). */
  credits: number;
}

/**
 * Mints a trial account, for the REST route and for a hosted MCP session alike. The handle comes
 * first (a taken name is refused before a mint slot is spent), then the slot; a refused mint gives
 * the handle back, so no name stays held by an account that never existed.
 */
export async function mintTrial(parts: TrialMintParts, request: TrialMintRequest): Promise<NewAccount & { credits: number }> {
  const reservation = await parts.directory.reserveTrial(request.username);
  try {
    await parts.mintLimiter.take(request.ip);
  } catch (err) {
    await reservation.release();
    throw err;
  }
  const account = await parts.directory.createTrial(reservation, request.device);
  const credits = await parts.metering.grant(account.user.user_id, request.credits, 'signup');
  return { ...account, credits };
}
