/**
 * Starting `signalforge <role>` processes for benchmarks of the distributed layout (chaos-cluster,
 * actor-fleet): each one killed when the benchmark ends, its "running" line awaited; and polling
 * until a condition holds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectBus, type Bus } from '../../../src/bus/index.ts';
import { createLogger } from '../../../src/log.ts';
import { startNatsCluster } from '../../helpers/nats-cluster.ts';
import { startRole, type RoleProcess } from '../../helpers/role-process.ts';
import { startWebhookReceiver } from '../../helpers/webhook-receiver.ts';
import type { BenchContext } from './types.ts';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` every 100 ms until it holds; returns how long it took (ms). */
export async function timeUntil(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<number> {
  const started = performance.now();
  while (
    !(await Promise.resolve()
      .then(probe)
      .catch(() => false))
  ) {
    if (performance.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
  return Math.round(performance.now() - started);
}

export interface StartedRole {
  process: RoleProcess;
  /** The parsed "signalforge <role> running" line. */
  info: Record<string, any>;
}

/**
 * A starter of role processes on one NATS with a shared environment (`common`, overridden per
 * call): each is SIGKILLed when the benchmark ends. `nodeArgs` per role (e.g. `--cpu-prof`).
 */
export function roleStarter(ctx: BenchContext, natsUrl: string, common: Record<string, string>) {
  const processes: RoleProcess[] = [];
  const start = async (role: string, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<StartedRole> => {
    const p = startRole(role, natsUrl, { ...common, ...env }, nodeArgs);
    processes.push(p);
    ctx.defer(() => void p.child.kill('SIGKILL'));
    return { process: p, info: await p.running(180_000) };
  };
  const kill = async (p: RoleProcess, signal: NodeJS.Signals = 'SIGKILL') => {
    p.child.kill(signal);
    await p.exited;
  };
  return { start, kill, processes };
}

/** The environment every role of a benchmark's layout shares (each benchmark adds its own). */
export const BENCH_ROLE_ENV: Record<string, string> = {
  HEALTH_PORT: '0',
  // info: the "running" line a role logs once started is what the bench waits for.
  LOG_LEVEL: 'info',
  STRATEGY_WORKERS: '1',
  TRAIN_CONCURRENCY: '1',
  TRIAL_CREDITS: '5000',
  RATE_LIMIT_PER_MIN: '1000000',
  WEBHOOK_ALLOW_PRIVATE: 'loopback',
  BAR_GRACE_MS: '1000',
  ...(process.env.SANDBOX ? { SANDBOX: process.env.SANDBOX } : {}),
};

/**
 * What a benchmark of the distributed layout runs on: a temporary directory, a nats-server
 * (`nodes` > 1: a cluster), the bench's own NATS connection and a local webhook receiver, each
 * removed or stopped when the benchmark ends.
 */
export async function startLayout(ctx: BenchContext, name: string, nodes: number) {
  const log = createLogger('warn', { write: (line: string) => void ctx.log(line.trim()) });
  const dir = mkdtempSync(join(tmpdir(), `sf-bench-${name}-`));
  ctx.defer(() => rmSync(dir, { recursive: true, force: true }));
  const cluster = await startNatsCluster(nodes);
  ctx.defer(() => cluster.stop());
  const bus: Bus = await connectBus(cluster.url, `bench-${name}`, log);
  ctx.defer(() => bus.nc.close());
  const receiver = await startWebhookReceiver();
  ctx.defer(() => receiver.stop());
  return { log, dir, cluster, bus, receiver };
}
