import type { Bus } from '../bus/index.ts';
import type { Config } from '../config.ts';
import { ShutdownStack } from '../lifecycle/index.ts';
import type { Logger } from '../log.ts';
import type { BarCache, MarketData } from '../market/index.ts';
import type { StrategyRuntime } from '../sandbox/index.ts';
import type { ClickHouseClient } from '../store/index.ts';
import type { Domain } from './domain.ts';

/**
 * What a role's build starts on: the process's NATS, its shutdown stack, and the parts every role
 * in the process shares, each made once on first use (its stop pushed then, so it stops after
 * every role that used it). `serve` and a role process differ only in how these are made.
 */
export interface RoleContext {
  config: Config;
  log: Logger;
  bus: Bus;
  stack: ShutdownStack;
  /** `serve`'s chdb, the ClickHouse server at CLICKHOUSE_URL, or the store owner's over NATS. */
  store(): Promise<ClickHouseClient>;
  /** True when trades may be written to the store directly (chdb here, or a server): the tracker runs only then. */
  storeIsLocal: boolean;
  /** The stores and the read cache over `store()`. */
  market(): Promise<MarketData>;
  /** Recent bars for scoring: the market cache where the store is local, else read from the store owner's bar pages. */
  bars(): Promise<BarCache>;
  /** The strategy runtime (and the model scorers beside it): one per process. */
  runtime(): Promise<StrategyRuntime>;
  /** Accounts, activity, generation, training, deployments, optimisation: what the edge and the trainer work on. */
  domain(): Promise<Domain>;
}

/**
 * A role once built: its counters as Prometheus samples (name → value; `/_metrics` of the process
 * is every role's together) and its stop (its own parts, latest first; the shared ones stop with
 * the process).
 */
export interface RoleParts {
  stats(): Record<string, number>;
  stop(): Promise<void>;
}

/** Makes `make`'s value once, on first call; a failed make is tried again on the next call. */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | null = null;
  return () =>
    (made ??= make().catch((err: unknown) => {
      made = null;
      throw err;
    }));
}

/**
 * Builds a role's own parts on a stack of their own: its `stop` unwinds them (latest first), and
 * a build that fails unwinds what it had started before the error goes on. The shared parts a
 * build asks the context for are pushed on the process's stack as they are made, before the
 * role's stop, so they outlive every role that uses them.
 */
export async function ownParts<T extends { stats(): Record<string, number> }>(
  ctx: Pick<RoleContext, 'log' | 'config'>,
  build: (own: ShutdownStack) => Promise<T>,
): Promise<T & RoleParts> {
  const own = new ShutdownStack(ctx.log, ctx.config.SHUTDOWN_STEP_MS);
  try {
    const parts = await build(own);
    return Object.assign(parts, { stop: () => own.unwind() });
  } catch (err) {
    await own.unwind();
    throw err;
  }
}
