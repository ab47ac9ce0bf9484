import { join, resolve } from 'node:path';
import { buildAccounts, type Accounts } from './accounts/index.ts';
import { connectBus, startEmbeddedNats, type Bus } from './bus/index.ts';
import { buildActivity, type Activity } from './community/index.ts';
import type { Config } from './config.ts';
import { buildApp, type App } from './edge/index.ts';
import { createLogger, type Logger } from './log.ts';
import { openClickHouse, type ClickHouseClient } from './store/index.ts';

export interface Service {
  /** Base URL the edge listens on. */
  url: string;
  app: App;
  bus: Bus;
  clickhouse: ClickHouseClient;
  accounts: Accounts;
  activity: Activity;
  log: Logger;
  /** Drains requests, then stops every part in reverse order of start. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * The composition root of `serve`: infrastructure (embedded unless NATS_URL / CLICKHOUSE_URL
 * point elsewhere), then the domain parts, then the HTTP edge.
 */
export async function startService(config: Config, log: Logger = createLogger(config.LOG_LEVEL)): Promise<Service> {
  const dataDir = resolve(config.DATA_DIR);
  const stack: Array<() => Promise<void> | void> = [];
  const unwind = async () => {
    for (const step of stack.splice(0).reverse()) {
      try {
        await step();
      } catch (err) {
        log.error({ err }, 'error while shutting down');
      }
    }
  };
  try {
    let natsUrl = config.NATS_URL;
    if (!natsUrl) {
      const nats = await startEmbeddedNats({ bin: config.NATS_SERVER_BIN, storeDir: join(dataDir, 'nats'), log });
      stack.push(() => nats.stop());
      natsUrl = nats.url;
    }
    const bus = await connectBus(natsUrl, 'signalforge', log);
    stack.push(() => bus.close());

    const clickhouse = await openClickHouse({ url: config.CLICKHOUSE_URL, path: join(dataDir, 'clickhouse'), log });
    stack.push(() => clickhouse.close());

    const accounts = await buildAccounts({ bus, clickhouse, log, config });
    stack.push(() => accounts.stop());
    const activity = await buildActivity({ bus, log, replicas: config.NATS_REPLICAS });
    stack.push(() => activity.stop());

    const app = await buildApp({ config, log, accounts, activity });
    stack.push(() => app.close());
    await app.listen({ port: config.PORT, host: config.HOST });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
    const url = `http://${host}:${port}`;
    log.info({ url, dataDir, nats: config.NATS_URL ? 'external' : 'embedded', clickhouse: config.CLICKHOUSE_URL ? 'server' : 'chdb' }, 'signalforge serving');

    let closing: Promise<void> | null = null;
    return {
      url,
      app,
      bus,
      clickhouse,
      accounts,
      activity,
      log,
      close: () => (closing ??= unwind()),
    };
  } catch (err) {
    await unwind();
    throw err;
  }
}
