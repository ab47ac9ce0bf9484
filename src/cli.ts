import { ConfigError, loadConfig, type Config } from './config.ts';
import { AppError } from './errors.ts';
import { createLogger, type Logger } from './log.ts';
import { ImportRequest } from '../schemas/market.ts';
import { Plan } from '../schemas/accounts.ts';
import { parseArgs } from 'node:util';

/**
 * Every command, its usage beside it: what it runs, its options, the environment that matters to
 * it. `signalforge <command> --help` prints exactly this and starts nothing — the modules that
 * start things are imported only when a command runs, so asking for help cannot join a cluster.
 */
interface Command {
  /** The arguments after the command's name, as the usage line shows them. */
  synopsis: string;
  /** One line in the list of commands. */
  summary: string;
  /** What it runs, a few lines. */
  about: string;
  /** Options besides -h/--help (each takes a value), with their line of help. */
  options?: Record<string, { value: string; help: string }>;
  /** Whether it takes positional arguments (the command checks them itself). */
  positionals?: boolean;
  /** The environment variables that matter to it, with a short note each (every setting: deploy/docs/configuration.md). */
  env: Record<string, string>;
  run(values: Record<string, string | undefined>, positionals: string[]): Promise<void>;
}

// The environment that matters, in pieces the commands share.
const JOIN_ENV = {
  NATS_URL: "the installation's NATS (a cluster: its URLs, comma-separated); required",
  CLICKHOUSE_URL: 'a ClickHouse server; unset: the data owner (`store` or `serve`) over NATS',
};
const HEALTH_ENV = { HEALTH_PORT: '/_healthz and /_readyz (default 8081; 0 picks a free one)' };
const STOP_ENV = {
  SHUTDOWN_TIMEOUT_MS: 'SIGTERM drains, exiting within this (default 20000)',
  LOG_LEVEL: 'fatal|error|warn|info|debug|trace|silent (default info)',
};
const FEED_ENV = {
  MARKET_FEED: 'synthetic (default: seeded history and a live synthetic feed) or none',
  OANDA_TOKEN: 'runs the OANDA live feed',
  KAFKA_BROKERS: 'runs the Kafka tick source (host:port,…)',
};

const role = (name: keyof typeof import('./roles/index.ts').DISTRIBUTED_ROLES) => async () =>
  runRole((await import('./roles/index.ts')).DISTRIBUTED_ROLES[name]);

const COMMANDS: Record<string, Command> = {
  serve: {
    synopsis: '',
    summary: 'every role in one process, with embedded NATS and ClickHouse',
    about: `Runs the whole service in one process: the HTTP API and web app on HOST:PORT, training,
live models, delivery and the market feed, with its own nats-server and chdb under DATA_DIR
(unless NATS_URL / CLICKHOUSE_URL point elsewhere). SIGTERM or Ctrl-C drains and stops it.`,
    env: {
      PORT: 'HTTP port (default 8080; 0 picks a free one)',
      HOST: 'address to listen on (default 0.0.0.0)',
      DATA_DIR: 'all embedded state (default ~/.local/state/signalforge; /var/lib/signalforge as root)',
      NATS_URL: 'an external NATS instead of the embedded nats-server',
      CLICKHOUSE_URL: 'an external ClickHouse instead of chdb under DATA_DIR',
      ...FEED_ENV,
      ...STOP_ENV,
    },
    run: async () => runRole((await import('./roles/index.ts')).startService),
  },
  edge: {
    synopsis: '',
    summary: 'the HTTP API and web app (put several behind a load balancer)',
    about: `The HTTP API, web app and hosted MCP of the distributed layout (deploy/OPERATIONS.md),
stateless: run several behind a load balancer. Health at /_healthz and /_readyz on PORT.`,
    env: {
      ...JOIN_ENV,
      PORT: 'HTTP port, health included (default 8080)',
      HOST: 'address to listen on (default 0.0.0.0)',
      TRUST_PROXY: 'honour X-Forwarded-For (only behind a proxy you run)',
      RATE_LIMIT_PER_MIN: 'requests per key per minute, over all edges (default 120)',
      ...STOP_ENV,
    },
    run: role('edge'),
  },
  trainer: {
    synopsis: '',
    summary: 'pulls train jobs from the shared queue',
    about: `Takes train jobs from the shared JOBS queue and runs them in the Python sandbox; a dead
trainer's job goes to another after TRAIN_ACK_WAIT_MS.`,
    env: {
      ...JOIN_ENV,
      ...HEALTH_ENV,
      TRAIN_CONCURRENCY: 'jobs this trainer runs at once (default 2)',
      PYTHON: "the strategy runtime's interpreter (default /usr/bin/python3)",
      SANDBOX: 'auto (default: the full sandbox, or refuse to start) or none',
      ...STOP_ENV,
    },
    run: role('trainer'),
  },
  delivery: {
    synopsis: '',
    summary: 'webhook, messenger, Discord, Slack and e-mail delivery; one sender per deployment, by lease',
    about: `Sends signals to webhooks, Telegram, Discord, Slack and e-mail. Deployments are shared out by lease: one sender at
a time per deployment, the cursor moving with the lease.`,
    env: {
      ...JOIN_ENV,
      ...HEALTH_ENV,
      DELIVERY_CONCURRENCY: 'sends in flight at once (default 256)',
      TELEGRAM_BOT_TOKEN: 'runs the Telegram bot (unset: messenger off)',
      WEBHOOK_ALLOW_PRIVATE: 'none (default), loopback or all: webhook targets on private networks',
      PUBLIC_URL: 'base of the model page link in Discord and Slack messages (unset: no link)',
      DISCORD_WEBHOOK_HOSTS: 'hosts a discord channel URL may name (default discord.com, discordapp.com, ptb./canary.)',
      SLACK_WEBHOOK_HOSTS: 'hosts a slack channel URL may name (default hooks.slack.com)',
      SMTP_URL: 'smtp(s)://user:password@host:port the email channel sends through (unset: email unavailable)',
      EMAIL_FROM: 'From: of signal mails (default signalforge <signals@localhost>)',
      SIGNAL_EMAILS_PER_DAY: 'signal mails per account per UTC day (default 200)',
      ...STOP_ENV,
    },
    run: role('delivery'),
  },
  ingest: {
    synopsis: '',
    summary: 'the tick feeds and bar building (one writer per symbol, by lease); records signals',
    about: `Runs the tick feed (one active connector per feed, by lease) publishing to the TICKS stream,
builds bars from it (one writer per symbol, by lease) and records signals.`,
    env: { ...JOIN_ENV, ...HEALTH_ENV, ...FEED_ENV, BAR_GRACE_MS: 'how long a bar waits for late ticks (default 2000)', ...STOP_ENV },
    run: role('ingest'),
  },
  store: {
    synopsis: '',
    summary: 'the data owner without a ClickHouse server: chdb under DATA_DIR, served over NATS',
    about: `Owns the data when there is no ClickHouse server: chdb under DATA_DIR, answering the other
roles' queries, bar pages and tick imports over NATS. Run one.`,
    env: { NATS_URL: JOIN_ENV.NATS_URL, DATA_DIR: 'where chdb keeps its files', ...HEALTH_ENV, ...STOP_ENV },
    run: role('store'),
  },
  actors: {
    synopsis: '',
    summary: 'deployed models, beside a running service (shared by lease between hosts)',
    about: `Runs deployed models beside a running service: deployments are shared out through leases, so
a model runs once and moves to another host when its host dies.`,
    env: {
      ...JOIN_ENV,
      ...HEALTH_ENV,
      STRATEGY_WORKERS: 'sandboxed Python workers (default: one per core, at most 4)',
      SCORER_PROCESSES: 'processes scoring the models (default 2)',
      ...STOP_ENV,
    },
    run: role('actors'),
  },
  'import-ticks': {
    synopsis: '--symbol EURUSD --format <dukascopy|histdata|truefx|csv> FILE...',
    summary: 'stores tick files (plain or .gz) and rebuilds the bars of the span',
    about: `Stores the ticks of FILE... (plain or .gz) and rebuilds the bars of the imported span.
Formats: src/market/import/FORMATS.md. Reaches a running service through DATA_DIR or NATS_URL.`,
    options: {
      symbol: { value: 'SYMBOL', help: 'the pair the files hold, e.g. EURUSD' },
      format: { value: 'FORMAT', help: 'dukascopy, histdata, truefx or csv' },
    },
    positionals: true,
    env: {
      DATA_DIR: "the installation's data directory",
      NATS_URL: 'its NATS, when it is not found through DATA_DIR',
      CLICKHOUSE_URL: 'a ClickHouse server, when the installation uses one',
    },
    run: importTicks,
  },
  admin: {
    synopsis: 'plan <username> <free|pro>',
    summary: 'puts a user on a plan (a running service sees it at once)',
    about: `Puts a user on a plan, atomically; a running service sees it at once. pro raises the
deployment limit and the monthly credits (topped up at once) and gives 20 % of the user's fork
revenue to charity. With no service running, starts NATS on DATA_DIR's store for the change.`,
    positionals: true,
    env: {
      DATA_DIR: "the installation's data directory (its run.json names the NATS)",
      NATS_URL: 'its NATS, when it is not found through DATA_DIR',
      MONTHLY_CREDITS_PRO: 'the pro allowance topped up at the change (default 500000)',
    },
    run: admin,
  },
  mcp: {
    synopsis: '',
    summary: 'an MCP server over stdio for a running service',
    about: `An MCP server over stdin/stdout (the hosted one is at {service}/mcp) for a running service.
stdout carries MCP frames only; logs go to stderr.`,
    env: {
      SIGNALFORGE_URL: 'the service (default http://127.0.0.1:8080)',
      SIGNALFORGE_API_KEY: 'its API key (unset: a trial key is minted on first use)',
      LOG_LEVEL: 'fatal|error|warn|info|debug|trace|silent (default info)',
    },
    // stdout carries MCP frames only: everything else goes to stderr.
    run: async () => (await import('./mcp/index.ts')).runStdio(),
  },
};

const column = (rows: Array<[string, string]>) => {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`).join('\n');
};

const TOP_USAGE = `usage: signalforge <command> [options]

commands:
${column(Object.entries(COMMANDS).map(([name, c]) => [name, c.summary]))}

\`signalforge <command> --help\` says what a command runs, its options and its environment.
The distributed layout (edge, trainer, delivery, ingest, store, actors): deploy/OPERATIONS.md.
`;

function usageOf(name: string): string {
  const c = COMMANDS[name]!;
  const options: Array<[string, string]> = [
    ...Object.entries(c.options ?? {}).map(([o, { value, help }]): [string, string] => [`--${o} ${value}`, help]),
    ['-h, --help', 'print this and exit'],
  ];
  return `usage: signalforge ${name}${c.synopsis ? ` ${c.synopsis}` : ''}

${c.about}

options:
${column(options)}

environment:
${column(Object.entries(c.env))}
`;
}

/** A refusal of the command line: exit 2, what was wrong (one line, naming it), then the usage, on stderr. */
function refuse(problem: string, usage: string, command?: string): void {
  process.stderr.write(`signalforge${command ? ` ${command}` : ''}: ${problem}\n\n${usage}`);
  process.exitCode = 2;
}

/** `-h`/`--help` anywhere before a `--` asks for help, whatever else is on the line. */
const asksHelp = (args: string[]) => {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === '-h' || a === '--help');
};

async function main(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  if (name === undefined) return refuse('a command is needed', TOP_USAGE);
  if (name === '-h' || name === '--help') return void process.stdout.write(TOP_USAGE);
  if (name === 'help') {
    const [about] = args;
    if (about === undefined) return void process.stdout.write(TOP_USAGE);
    if (!Object.hasOwn(COMMANDS, about)) return refuse(`unknown command "${about}"`, TOP_USAGE);
    return void process.stdout.write(usageOf(about));
  }
  if (name.startsWith('-')) return refuse(`unknown option ${name} (options come after the command)`, TOP_USAGE);
  if (!Object.hasOwn(COMMANDS, name)) return refuse(`unknown command "${name}"`, TOP_USAGE);
  const command = COMMANDS[name]!;
  if (asksHelp(args)) return void process.stdout.write(usageOf(name));
  let parsed: { values: Record<string, string | undefined>; positionals: string[] };
  try {
    const options = Object.fromEntries(Object.keys(command.options ?? {}).map((o) => [o, { type: 'string' as const }]));
    parsed = parseArgs({ args, options, allowPositionals: command.positionals ?? false, strict: true }) as typeof parsed;
  } catch (err) {
    // node's sentence names the option or argument; its advice on '--' is noise here.
    return refuse((err as Error).message.split('. ')[0]!.replace(/\.$/, ''), usageOf(name), name);
  }
  return command.run(parsed.values, parsed.positionals);
}

async function importTicks(values: Record<string, string | undefined>, files: string[]): Promise<void> {
  const request = ImportRequest.safeParse({ symbol: values.symbol, format: values.format, files });
  if (!request.success) {
    // The files are the positional FILE arguments, not a --files option.
    const name = (path: PropertyKey[]) => (path[0] === 'files' ? 'FILE' : `--${path.join('.') || 'args'}`);
    const problems = request.error.issues.map((i) => `  ${name(i.path)}: ${i.message}`).join('\n');
    return refuse(`bad arguments\n${problems}`, usageOf('import-ticks'), 'import-ticks');
  }
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL);
  const { describeImport, runImport } = await import('./market/index.ts');
  const result = await runImport(request.data, config, log);
  process.stdout.write(`${describeImport(result)}\n`);
}

async function admin(_values: Record<string, string | undefined>, argv: string[]): Promise<void> {
  const [what, username, plan, ...extra] = argv;
  const parsed = Plan.safeParse(plan);
  if (what !== 'plan' || !username || !parsed.success || extra.length > 0) {
    return refuse('expected `admin plan <username> <free|pro>`', usageOf('admin'), 'admin');
  }
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL);
  const { runPlanChange } = await import('./admin.ts');
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
  start: (config: Config, log: Logger) => Promise<{ close(): Promise<void>; failed?: Promise<never> }>,
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

main(process.argv.slice(2)).catch((err: unknown) => {
  // Refusals meant for the user (bad config, a missing or unreadable file) are their message alone.
  if (err instanceof ConfigError || err instanceof AppError) process.stderr.write(`signalforge: ${err.message}\n`);
  else process.stderr.write(`signalforge: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
