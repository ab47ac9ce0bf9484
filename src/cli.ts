import { ConfigError, loadConfig } from './config.ts';
import { AppError } from './errors.ts';
import { createLogger } from './log.ts';
import { startActors, startService } from './main.ts';
import { DISTRIBUTED_ROLES } from './roles/index.ts';
import { describeImport, runImport } from './market/index.ts';
import { ImportRequest } from '../schemas/market.ts';
import { Plan } from '../schemas/accounts.ts';
import { runPlanChange } from './admin.ts';
import { parseArgs } from 'node:util';

const USAGE = `usage: signalforge <command>

commands:
  serve          run every role in one process with embedded NATS and ClickHouse (PORT, DATA_DIR, …)
  import-ticks   --symbol EURUSD --format <dukascopy|histdata|truefx|csv> FILE...   (plain or .gz)
                 stores the ticks and rebuilds the bars of the imported span; formats: src/market/import/FORMATS.md
  actors         run deployed models beside a running service (NATS_URL = its NATS): deployments are shared
                 through leases, so a model runs once and moves to another host when its host dies

  the distributed layout (README "Scaling out"): each joins NATS_URL (a cluster: URLs comma-separated),
  reads and writes CLICKHOUSE_URL or, without it, the store of \`store\` (or \`serve\`) over NATS;
  health on HEALTH_PORT (edge: PORT) at /_healthz and /_readyz; SIGTERM drains. Run as many of each as needed:
  edge           the HTTP API and web app (put several behind a load balancer)
  trainer        pulls train jobs from the shared queue
  delivery       webhook and messenger delivery; deployments shared by lease, one sender per deployment
  ingest         bar building from the TICKS stream, one writer per symbol by lease; records signals
  store          the data owner without a ClickHouse server: chdb under DATA_DIR, served over NATS
  admin plan <username> <free|pro>
                 puts a user on a plan (atomically; a running service sees it at once): pro raises the
                 deployment limit and the monthly credits (MONTHLY_CREDITS_PRO, topped up at once)
                 and gives 20 % of the user's fork revenue to charity. Reaches the service
                 on DATA_DIR (its run.json) or NATS_URL; with none running, starts NATS on DATA_DIR's store
  mcp            an MCP server over stdio (the hosted one is at {service}/mcp) for a running service:
                 SIGNALFORGE_URL (default http://127.0.0.1:8080), SIGNALFORGE_API_KEY (optional: else a trial key)
`;

async function importTicks(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return;
  }
  let args: ReturnType<typeof parseImportArgs>;
  try {
    args = parseImportArgs(argv);
  } catch (err) {
    // An unknown option or one without its value: the parser's own sentence, then the usage.
    process.stderr.write(`signalforge import-ticks: ${(err as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const { values, positionals } = args;
  const request = ImportRequest.safeParse({ symbol: values.symbol, format: values.format, files: positionals });
  if (!request.success) {
    // The files are the positional FILE arguments, not a --files option.
    const name = (path: PropertyKey[]) => (path[0] === 'files' ? 'FILE' : `--${path.join('.') || 'args'}`);
    const problems = request.error.issues.map((i) => `  ${name(i.path)}: ${i.message}`).join('\n');
    process.stderr.write(`signalforge import-ticks: bad arguments\n${problems}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL);
  const result = await runImport(request.data, config, log);
  process.stdout.write(`${describeImport(result)}\n`);
}

function parseImportArgs(argv: string[]) {
  return parseArgs({ args: argv, options: { symbol: { type: 'string' }, format: { type: 'string' } }, allowPositionals: true });
}

async function admin(argv: string[]): Promise<void> {
  const [what, username, plan, ...extra] = argv;
  const parsed = Plan.safeParse(plan);
  if (what !== 'plan' || !username || !parsed.success || extra.length > 0) {
    process.stderr.write(`signalforge admin: expected \`admin plan <username> <free|pro>\`\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL);
  const change = await runPlanChange(config, username, parsed.data, log);
  const moved = change.previous === change.plan ? `already ${change.plan}` : `${change.previous} → ${change.plan}`;
  process.stdout.write(`${change.username} (user ${change.user_id}): plan ${moved}\n`);
}

/**
 * Runs a long-lived role until SIGINT/SIGTERM, then closes it and exits: 0 when the stop was
 * clean, 1 when it was not clean within SHUTDOWN_TIMEOUT_MS (the exit hooks still stop the
 * embedded nats-server) or when a dependency died for good (`failed`).
 */
async function runRole(
  start: (config: ReturnType<typeof loadConfig>, log: ReturnType<typeof createLogger>) => Promise<{ close(): Promise<void>; failed?: Promise<never> }>,
): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL);
  // A background task rejected with nobody awaiting it (a client library's timer during a NATS
  // outage, say): logged loudly, not a crash — every part recovers by itself, and an exit here
  // would turn a two-second outage into a restart.
  process.on('unhandledRejection', (err) => log.error({ err }, 'a background task failed (unhandled rejection); the service goes on'));
  let running: { close(): Promise<void> } | null = null;
  let stopping = false;
  const stop = (reason: Record<string, unknown>, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    if (!running) {
      // Still starting: nothing to drain yet. Exiting runs the exit hooks that stop the child
      // nats-server; a half-built synthetic history is rebuilt on the next start.
      log.warn(reason, 'stopped while starting');
      process.exit(1);
    }
    log.info({ ...reason, timeout_ms: config.SHUTDOWN_TIMEOUT_MS }, 'shutting down: draining requests');
    const hardStop = setTimeout(() => {
      log.error({ timeout_ms: config.SHUTDOWN_TIMEOUT_MS }, 'shutdown did not finish within SHUTDOWN_TIMEOUT_MS: exiting now');
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    hardStop.unref();
    running.close().then(
      () => process.exit(exitCode),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop({ signal: 'SIGINT' }, 0));
  process.on('SIGTERM', () => stop({ signal: 'SIGTERM' }, 0));
  const role = await start(config, log);
  running = role;
  role.failed?.catch((err: Error) => {
    log.fatal({ err: err.message }, 'a dependency is gone for good: stopping with exit code 1');
    stop({ reason: err.message }, 1);
  });
}

async function main(argv: string[]): Promise<void> {
  const [command] = argv;
  switch (command) {
    case 'serve':
      return runRole(startService);
    case 'actors':
      return runRole(startActors);
    case 'edge':
    case 'trainer':
    case 'delivery':
    case 'ingest':
    case 'store':
      return runRole(DISTRIBUTED_ROLES[command]);
    case 'import-ticks':
      return importTicks(argv.slice(1));
    case 'admin':
      return admin(argv.slice(1));
    case 'mcp':
      // stdout carries MCP frames only: everything else goes to stderr.
      return (await import('./mcp/index.ts')).runStdio();
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
  // Refusals meant for the user (bad config, a missing or unreadable file) are their message alone.
  if (err instanceof ConfigError || err instanceof AppError) process.stderr.write(`signalforge: ${err.message}\n`);
  else process.stderr.write(`signalforge: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
