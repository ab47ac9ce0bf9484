import { openBucket, type Bus } from '../bus/index.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { ClickHouseClient } from '../store/index.ts';
import { UsageRepo } from '../store/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { USAGE_CURSOR_KEY, type UserRecord } from '../../schemas/account-records.ts';
import { CostGuard } from './cost-guard.ts';
import { CreditLedger } from './credits.ts';
import { DailyCaps } from './daily-caps.ts';
import { AccountDirectory } from './directory.ts';
import { Metering } from './metering.ts';
import { MintLimiter } from './mint-limiter.ts';
import { Credentials } from './credentials.ts';
import { PasskeyCeremonies } from './passkeys.ts';
import { SignInThrottle } from './sign-in-throttle.ts';
import { SignIn } from './sign-in.ts';
import { Claims } from './claims.ts';
import { monthlyAllowance, type AllowanceConfig } from './monthly-allowance.ts';
import { ClusterRateLimiter } from './cluster-rate-limiter.ts';
import { UsageHistory } from './usage-history.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

export { AccountDirectory, type NewAccount, type TrialReservation } from './directory.ts';
export { SESSION_MAX_AGE_MS, Sessions, type SessionInfo } from './sessions.ts';
export { deviceLabel } from './user-agent.ts';
export { mintTrial, type TrialMintRequest } from './trial.ts';
export { Metering } from './metering.ts';
export { UsageHistory } from './usage-history.ts';
export { MintLimiter, clientBlock } from './mint-limiter.ts';
export { TokenBuckets } from './token-bucket.ts';
export { limitRefusal, SlidingWindowLimiter, type LimitDecision } from './rate-limiter.ts';
export { ClusterRateLimiter } from './cluster-rate-limiter.ts';
export { DAILY_CAPS } from './daily-caps.ts';
export { changePlan, type PlanChange } from './plans.ts';
export { API_KEY_PREFIX, hashSecret, maskKey } from './api-keys.ts';
export { Credentials } from './credentials.ts';
export { SignIn } from './sign-in.ts';
export { Claims, type CredentialChange } from './claims.ts';
export { ARGON2_OPTIONS } from './passwords.ts';
export { RECOVERY_CODE_COUNT } from './recovery-codes.ts';
export { SIGN_IN_LIMITS } from './sign-in-throttle.ts';
export { CEREMONY_TTL_MS, type RelyingParty } from './passkeys.ts';
export { EmailAddresses, CONFIRM_TTL_MS, CONFIRM_MAILS_PER_DAY } from './email-addresses.ts';

/** Concurrent SSE connections per key (the contract's Limits table). */
export const SSE_PER_KEY = 1;

export interface Accounts {
  directory: AccountDirectory;
  metering: Metering;
  mintLimiter: MintLimiter;
  requestLimiter: ClusterRateLimiter;
  /** The usage history, the changes not yet stored by the usage recorder included. */
  usage: UsageHistory;
  /** Passkeys, password and recovery codes of claimed accounts. */
  credentials: Credentials;
  signIn: SignIn;
  claims: Claims;
  stop(): Promise<void>;
}

export type AccountsDeps = {
  bus: Bus;
  clickhouse: ClickHouseClient;
  log: Logger;
  config: Pick<Config, 'TRIAL_MINTS_PER_HOUR' | 'RATE_LIMIT_PER_MIN' | 'PLATFORM_DAILY_AI_BUDGET_USD' | 'NATS_REPLICAS'> & AllowanceConfig;
  /** The time every account part reads (liveClock unless a test sets it). */
  clock?: Clock;
};

/** Opens the account buckets, loads the key mirror and wires the metering parts together. */
export async function buildAccounts({ bus, clickhouse, log, config, clock = liveClock }: AccountsDeps): Promise<Accounts> {
  const r = config.NATS_REPLICAS;
  const timed = { clock };
  const [
    users,
    usernames,
    apiKeys,
    sessions,
    credits,
    counters,
    caps,
    mintWindows,
    costGuard,
    credentialsKv,
    challenges,
    attempts,
    rateWindows,
    usageCursor,
  ] = await Promise.all([
    openBucket(bus, Buckets.users, r),
    openBucket(bus, Buckets.usernames, r),
    openBucket(bus, Buckets.apiKeys, r),
    openBucket(bus, Buckets.sessions, r),
    openBucket(bus, Buckets.credits, r),
    openBucket(bus, Buckets.counters, r),
    openBucket(bus, Buckets.caps, r),
    openBucket(bus, Buckets.mintWindows, r),
    openBucket(bus, Buckets.costGuard, r),
    openBucket(bus, Buckets.credentials, r),
    openBucket(bus, Buckets.challenges, r),
    openBucket(bus, Buckets.signInAttempts, r),
    openBucket(bus, Buckets.rateWindows, r),
    openBucket(bus, Buckets.usageCursor, r),
  ]);
  const usage = new UsageHistory(credits, new UsageRepo(clickhouse));
  // How far the usage recorder (whichever process runs it) has stored: the ledger drops the changes
  // an entry carries once they are known stored. Followed by a watch, so a charge reads nothing more.
  let recorded = 0;
  const recorderCursor = await usageCursor.watchKey(USAGE_CURSOR_KEY, (value) => (recorded = Math.max(recorded, value?.seq ?? 0)));
  const ledger = new CreditLedger(credits, {
    allowanceOf: (userId) => monthlyAllowance(directory.get(userId), config),
    recordedThrough: () => recorded,
    clock,
  });
  // A plan changed elsewhere counts at once: every process tries, the ledger's compare-and-set lets one top up.
  const topUpOnPlanChange = (user: UserRecord) =>
    void ledger
      .topUp(user.user_id)
      .catch((err: unknown) =>
        log.warn({ err, user_id: user.user_id }, 'allowance top-up after a plan change failed; the next credit operation retries it'),
      );
  const directory = new AccountDirectory({ users, usernames, apiKeys, sessions, counters }, log, topUpOnPlanChange, timed);
  await directory.start();
  const credentials = new Credentials(credentialsKv, timed);
  const ceremonies = new PasskeyCeremonies(challenges, timed);
  const throttle = new SignInThrottle(attempts, undefined, timed);
  // Counted in KV: the limit holds over every edge of the installation.
  const requestLimiter = new ClusterRateLimiter(rateWindows, config.RATE_LIMIT_PER_MIN, 60_000, log, timed);
  const metering = new Metering(
    ledger,
    new DailyCaps(caps, timed),
    new CostGuard(costGuard, config.PLATFORM_DAILY_AI_BUDGET_USD, timed),
    usage,
    { ratePerMinute: config.RATE_LIMIT_PER_MIN, concurrentSse: SSE_PER_KEY },
    timed,
  );
  return {
    directory,
    metering,
    mintLimiter: new MintLimiter(mintWindows, config.TRIAL_MINTS_PER_HOUR, timed),
    requestLimiter,
    usage,
    credentials,
    signIn: new SignIn(directory, credentials, throttle, ceremonies),
    claims: new Claims(directory, credentials, ceremonies, throttle, ledger),
    async stop() {
      directory.stop();
      requestLimiter.stop();
      recorderCursor.stop();
    },
  };
}
