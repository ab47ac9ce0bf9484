import { openBucket, type Bus } from '../bus/index.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { ClickHouseClient } from '../store/index.ts';
import { UsageRepo } from '../store/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { CostGuard } from './cost-guard.ts';
import { CreditLedger } from './credits.ts';
import { DailyCaps } from './daily-caps.ts';
import { AccountDirectory } from './directory.ts';
import { Metering } from './metering.ts';
import { MintLimiter } from './mint-limiter.ts';
import { ClusterRateLimiter } from './cluster-rate-limiter.ts';

export { AccountDirectory, SESSION_MAX_AGE_MS, type NewAccount, type TrialReservation } from './directory.ts';
export { Metering } from './metering.ts';
export { MintLimiter, clientBlock } from './mint-limiter.ts';
export { TokenBuckets } from './token-bucket.ts';
export { SlidingWindowLimiter, type LimitDecision } from './rate-limiter.ts';
export { ClusterRateLimiter } from './cluster-rate-limiter.ts';
export { DAILY_CAPS } from './daily-caps.ts';
export { changePlan, type PlanChange } from './plans.ts';
export { API_KEY_PREFIX, hashSecret, maskKey } from './api-keys.ts';

/** Concurrent SSE connections per key (the contract's Limits table). */
export const SSE_PER_KEY = 1;

export interface Accounts {
  directory: AccountDirectory;
  metering: Metering;
  mintLimiter: MintLimiter;
  requestLimiter: ClusterRateLimiter;
  usage: UsageRepo;
  stop(): Promise<void>;
}

export type AccountsDeps = {
  bus: Bus;
  clickhouse: ClickHouseClient;
  log: Logger;
  config: Pick<Config, 'TRIAL_MINTS_PER_HOUR' | 'RATE_LIMIT_PER_MIN' | 'PLATFORM_DAILY_AI_BUDGET_USD' | 'NATS_REPLICAS'>;
};

/** Opens the account buckets, loads the key mirror and wires the metering parts together. */
export async function buildAccounts({ bus, clickhouse, log, config }: AccountsDeps): Promise<Accounts> {
  const r = config.NATS_REPLICAS;
  const [users, usernames, apiKeys, sessions, credits, counters, caps, mintWindows, costGuard, rateWindows] = await Promise.all([
    openBucket(bus, Buckets.users, r),
    openBucket(bus, Buckets.usernames, r),
    openBucket(bus, Buckets.apiKeys, r),
    openBucket(bus, Buckets.sessions, r),
    openBucket(bus, Buckets.credits, r),
    openBucket(bus, Buckets.counters, r),
    openBucket(bus, Buckets.caps, r),
    openBucket(bus, Buckets.mintWindows, r),
    openBucket(bus, Buckets.costGuard, r),
    openBucket(bus, Buckets.rateWindows, r),
  ]);
  const directory = new AccountDirectory({ users, usernames, apiKeys, sessions, counters }, log);
  await directory.start();
  const usage = new UsageRepo(clickhouse);
  // Counted in KV: the limit holds over every edge of the installation.
  const requestLimiter = new ClusterRateLimiter(rateWindows, config.RATE_LIMIT_PER_MIN, 60_000, log);
  const metering = new Metering(
    new CreditLedger(credits, usage),
    new DailyCaps(caps),
    new CostGuard(costGuard, config.PLATFORM_DAILY_AI_BUDGET_USD),
    usage,
    { ratePerMinute: config.RATE_LIMIT_PER_MIN, concurrentSse: SSE_PER_KEY },
  );
  return {
    directory,
    metering,
    mintLimiter: new MintLimiter(mintWindows, config.TRIAL_MINTS_PER_HOUR),
    requestLimiter,
    usage,
    async stop() {
      directory.stop();
      requestLimiter.stop();
      await usage.flush();
    },
  };
}
