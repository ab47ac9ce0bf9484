import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { changePlan, type PlanChange } from './accounts/index.ts';
import { connectBus, openBucket, startEmbeddedNats, type Bus } from './bus/index.ts';
import type { Config } from './config.ts';
import { UnavailableError } from './errors.ts';
import type { Logger } from './log.ts';
import { readRunFile } from './run-file.ts';
import type { Plan } from '../schemas/accounts.ts';
import { Buckets } from '../schemas/messages.ts';

type AdminConfig = Pick<Config, 'DATA_DIR' | 'NATS_URL' | 'NATS_SERVER_BIN' | 'NATS_REPLICAS'>;

/**
 * Runs an operator command against the installation's state (NATS KV). A service running on
 * DATA_DIR (its run.json) or NATS_URL is used as it runs — its processes see the change through
 * their KV watches; with none running, the embedded nats-server is started on DATA_DIR's store
 * for the command and stopped after.
 */
export async function withInstallation<T>(config: AdminConfig, log: Logger, task: (bus: Bus) => Promise<T>): Promise<T> {
  const dataDir = resolve(config.DATA_DIR);
  let natsUrl = readRunFile(dataDir)?.natsUrl ?? config.NATS_URL;
  let stopNats = async () => {};
  if (!natsUrl) {
    const storeDir = join(dataDir, 'nats');
    if (!existsSync(storeDir)) {
      throw new UnavailableError(
        `no signalforge state in DATA_DIR=${dataDir}: point DATA_DIR at the service's data directory, or set NATS_URL`,
      );
    }
    const nats = await startEmbeddedNats({ bin: config.NATS_SERVER_BIN, storeDir, log });
    natsUrl = nats.url;
    stopNats = () => nats.stop();
  }
  try {
    const bus = await connectBus(natsUrl, 'signalforge-admin', log);
    try {
      return await task(bus);
    } finally {
      await bus.close();
    }
  } finally {
    await stopNats();
  }
}

/** `signalforge admin plan <username> <free|pro>`. */
export async function runPlanChange(config: AdminConfig, username: string, plan: Plan, log: Logger): Promise<PlanChange> {
  return withInstallation(config, log, async (bus) => {
    const r = config.NATS_REPLICAS;
    const [users, usernames] = await Promise.all([openBucket(bus, Buckets.users, r), openBucket(bus, Buckets.usernames, r)]);
    return changePlan({ users, usernames }, username, plan);
  });
}
