import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { connectBus, startEmbeddedNats, type Bus } from '../bus/index.ts';
import type { Config } from '../config.ts';
import { ShutdownStack } from '../lifecycle/index.ts';
import { createLogger, type Logger } from '../log.ts';
import { writeRunFile } from '../run-file.ts';
import type { ClickHouseClient } from '../store/index.ts';
import { buildActors, type ActorsParts } from './actors.ts';
import type { RoleParts } from './context.ts';
import { buildDelivery, type DeliveryParts } from './delivery.ts';
import type { Domain } from './domain.ts';
import { buildEdge, type EdgeParts } from './edge.ts';
import { buildIngest, type IngestParts } from './ingest.ts';
import { baseChecks, closeBus, ownStore, processContext, pythonCheck } from './kit.ts';
import { buildStore } from './store.ts';
import { buildTrainer, type TrainerParts } from './trainer.ts';

/** `serve`: every role, built as its own command builds it, in one process on one bus and one store. */
export interface Service {
  /** Base URL the edge listens on. */
  url: string;
  bus: Bus;
  clickhouse: ClickHouseClient;
  /** What the edge and the trainer work on (accounts, training, deployments, …). */
  domain: Domain;
  store: RoleParts;
  ingest: IngestParts;
  actors: ActorsParts;
  delivery: DeliveryParts;
  trainer: TrainerParts;
  edge: EdgeParts;
  /** Every role's counters (what `/_metrics` shows). */
  stats(): Record<string, number>;
  log: Logger;
  /** Settles (rejects) only if a dependency died for good (the embedded NATS did not come back): the role must exit non-zero. */
  failed: Promise<never>;
  /** Drains requests, then stops every part in reverse order of start, each step under a deadline. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * The composition root of `serve`: the infrastructure (an embedded nats-server and chdb under
 * DATA_DIR, unless NATS_URL / CLICKHOUSE_URL point elsewhere), then the roles — store, ingest,
 * actors, delivery, trainer, edge — each built by the same function as its own command, on the
 * one bus and the one store.
 */
export async function startService(config: Config, log: Logger = createLogger(config.LOG_LEVEL)): Promise<Service> {
  const dataDir = resolve(config.DATA_DIR);
  if (dataDir !== resolve('data') && existsSync(resolve('data', 'nats'))) {
    // Earlier versions kept state in ./data; it is not read from there any more (issue 33).
    log.warn(
      { dataDir, found: resolve('data') },
      'state of an earlier version found in ./data: move it to DATA_DIR (or set DATA_DIR=./data knowingly) to keep it',
    );
  }
  const stack = new ShutdownStack(log, config.SHUTDOWN_STEP_MS);
  const unwind = () => stack.unwind();
  let fail!: (err: Error) => void;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => undefined);
  try {
    let natsUrl = config.NATS_URL;
    let natsRunning = () => true;
    if (!natsUrl) {
      // Pushed first, so stopped last: every other part still talks to NATS while it stops.
      const nats = await startEmbeddedNats({
        bin: config.NATS_SERVER_BIN,
        storeDir: join(dataDir, 'nats'),
        log,
        restartBoundMs: config.NATS_RESTART_BOUND_MS,
        onFatal: fail,
      });
      stack.push(() => nats.stop());
      natsUrl = nats.url;
      natsRunning = () => nats.running();
    }
    // Lets other commands on this machine (import-ticks) find the running service's NATS.
    stack.push(writeRunFile(dataDir, { pid: process.pid, natsUrl }));
    const bus = await connectBus(natsUrl, 'signalforge', log);
    stack.push(closeBus(bus, config));

    const ctx = processContext({ config, log, bus, stack }, { open: ownStore(config, log), local: true, barsFromMarket: true });
    const clickhouse = await ctx.store();
    const started: RoleParts[] = [];
    const role = async <P extends RoleParts>(parts: Promise<P>): Promise<P> => {
      const built = await parts;
      stack.push(() => built.stop());
      started.push(built);
      return built;
    };
    const stats = () => Object.assign({}, ...started.map((p) => p.stats())) as Record<string, number>;

    const store = await role(buildStore(ctx));
    const ingest = await role(buildIngest(ctx));
    const actors = await role(buildActors(ctx));
    const delivery = await role(buildDelivery(ctx));
    const trainer = await role(buildTrainer(ctx));
    const domain = await ctx.domain();
    const checks = baseChecks(bus, clickhouse);
    const edge = await role(
      buildEdge(ctx, {
        metrics: stats,
        checks: {
          ...checks,
          nats: async () => {
            if (!natsRunning()) throw new Error('the embedded nats-server is down (being restarted)');
            await checks.nats!();
          },
          python: pythonCheck(domain.runtime),
        },
      }),
    );
    log.info(
      { url: edge.url, dataDir, nats: config.NATS_URL ? 'external' : 'embedded', clickhouse: config.CLICKHOUSE_URL ? 'server' : 'chdb' },
      'signalforge serving',
    );

    let closing: Promise<void> | null = null;
    return {
      url: edge.url,
      bus,
      clickhouse,
      domain,
      store,
      ingest,
      actors,
      delivery,
      trainer,
      edge,
      stats,
      log,
      failed,
      close: () => (closing ??= unwind()),
    };
  } catch (err) {
    await unwind();
    throw err;
  }
}
