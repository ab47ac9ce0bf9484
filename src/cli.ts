import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './log.ts';
import { startService } from './main.ts';

const USAGE = `usage: signalforge <command>

commands:
  serve    run every role in one process with embedded NATS and ClickHouse (PORT, DATA_DIR, …)
`;

async function serve(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL);
  const service = await startService(config, log);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: draining requests');
    service.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

async function main(argv: string[]): Promise<void> {
  const [command] = argv;
  switch (command) {
    case 'serve':
      return serve();
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(USAGE);
      return;
    default:
      process.stderr.write(`unknown command "${command}"\n\n${USAGE}`);
      process.exitCode = 2;
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) process.stderr.write(`signalforge: ${err.message}\n`);
  else process.stderr.write(`signalforge: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
