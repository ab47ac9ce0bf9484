import { z } from 'zod';

const bool = z.enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off', '']).transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();

/**
 * Where embedded state lives when DATA_DIR is unset: outside any working tree (a checkout's
 * ./data sat where a relative path from the service's process reached the stored strategies),
 * in the system's state directory as root, else the user's XDG state directory.
 */
export function defaultDataDir(env: Record<string, string | undefined>, uid = process.getuid?.()): string {
  if (uid === 0) return '/var/lib/signalforge';
  const state = env.XDG_STATE_HOME || `${env.HOME || '/tmp'}/.local/state`;
  return `${state}/signalforge`;
}

/**
 * The service's whole configuration, read from the environment once at start.
 * Each key is the environment variable of the same name.
 */
export const EnvConfig = z
  .object({
    PORT: port.default(8080).describe('HTTP port of the edge; 0 picks a free one'),
    HOST: z.string().min(1).default('0.0.0.0').describe('Address the edge listens on'),
    HEALTH_PORT: port
      .default(8081)
      .describe(
        'Roles without the HTTP edge (trainer, actors, delivery, ingest, store): port of their GET /_healthz and /_readyz; 0 picks a free one',
      ),
    DATA_DIR: z
      .string()
      .min(1)
      .default(() => defaultDataDir(process.env))
      .describe(
        'Directory for all embedded state (nats, clickhouse). Default: /var/lib/signalforge as root, else $XDG_STATE_HOME/signalforge (~/.local/state/signalforge) — never inside the working directory, where a relative path could reach it',
      ),
    NATS_URL: z
      .string()
      .regex(/^(nats|tls|wss?):\/\/\S+$|^[\w.-]+:\d+(,[\w.-]+:\d+)*$/, 'a nats:// URL such as nats://127.0.0.1:4222')
      .optional()
      .describe('External NATS; when unset, serve starts its own nats-server'),
    NATS_REPLICAS: z.coerce.number().int().min(1).max(5).default(1).describe('Replicas of every stream and KV bucket (3 on a cluster)'),
    NATS_SERVER_BIN: z.string().min(1).default('nats-server').describe('nats-server executable for the embedded server'),
    NATS_RESTART_BOUND_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .max(600_000)
      .default(30_000)
      .describe('A dead embedded nats-server is restarted on the same store; if it is not back within this, the service exits non-zero'),
    SHUTDOWN_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .max(600_000)
      .default(20_000)
      .describe('SIGTERM/SIGINT: the process exits within this in every state (exit code 1 when the stop was not clean by then)'),
    SHUTDOWN_STEP_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(600_000)
      .default(4_000)
      .describe('What one shutdown step (HTTP drain, trainer, actors, store, …) may take before the next step goes regardless'),
    CLICKHOUSE_URL: z
      .url('an http(s):// URL such as http://default:@127.0.0.1:8123/default')
      .optional()
      .describe('External ClickHouse server; when unset, chdb runs in-process under DATA_DIR/clickhouse'),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .describe('pino level; logs are JSON lines on stdout'),
    TRUST_PROXY: bool.default(false).describe('Honour X-Forwarded-For for the client IP (only behind a proxy you run)'),
    TRIAL_CREDITS: z.coerce
      .number()
      .int()
      .min(0)
      .default(50)
      .describe('Credits granted to a new trial key (the contract states both 50 and 10,000; we chose 50)'),
    MONTHLY_CREDITS_FREE: z.coerce
      .number()
      .int()
      .min(0)
      .max(1_000_000_000)
      .default(20_000)
      .describe(
        'Monthly allowance of a claimed (non-trial) free account: its balance is topped up to this at the claim and in each new UTC month (0 = none)',
      ),
    MONTHLY_CREDITS_PRO: z.coerce
      .number()
      .int()
      .min(0)
      .max(1_000_000_000)
      .default(500_000)
      .describe(
        'Monthly allowance of a pro account, trial or not: topped up to this at the plan change and in each new UTC month (0 = none)',
      ),
    TRIAL_MINTS_PER_HOUR: positiveInt.default(5).describe('Trial keys one client IP may mint per rolling hour'),
    RATE_LIMIT_PER_MIN: positiveInt.default(120).describe('Requests per key per rolling minute'),
    SSE_HEARTBEAT_MS: positiveInt.default(15000).describe('Heartbeat interval on SSE streams'),
    BODY_LIMIT_BYTES: positiveInt.default(1024 * 1024).describe('Largest accepted request body'),
    // ---- the HTTP edge against slow and hostile clients (src/edge) ----
    HTTP_HEADERS_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(600_000)
      .default(10_000)
      .describe(
        'The request line and headers must arrive within this (408 after it; checked every ~¼ of the shorter timeout, at most 1 s)',
      ),
    HTTP_REQUEST_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(3_600_000)
      .default(30_000)
      .describe('The whole request, body included, must arrive within this (408 after it): a client sending 1 byte / 10 s is cut off'),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(600_000)
      .default(72_000)
      .describe('An idle keep-alive connection is closed after this (above the idle timeout of a proxy in front)'),
    HTTP_MAX_CONNECTIONS: z.coerce
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .default(4096)
      .describe('Open connections at most, all clients together; one more is answered 503 (SF_UNAVAILABLE, Retry-After: 1) and closed'),
    HTTP_MAX_HEADER_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(1_048_576)
      .default(16_384)
      .describe('Request line and headers at most (431 above)'),
    ANON_RATE_PER_MIN: z.coerce
      .number()
      .int()
      .min(0)
      .max(1_000_000)
      .default(600)
      .describe(
        'Requests without a valid key per client address (IPv4, or IPv6 /64) per minute, refilled continuously (an in-memory token bucket per edge process); past it 429 SF_RATE_LIMITED with Retry-After; /_healthz and /_metrics are exempt; 0 = no limit',
      ),
    ANON_RATE_BURST: positiveInt
      .max(1_000_000)
      .default(120)
      .describe('Requests without a key one address may send at once before ANON_RATE_PER_MIN paces it'),
    SSE_PER_ANONYMOUS_ADDRESS: positiveInt.max(1000).default(3).describe('Concurrent activity streams per client address without a key'),
    SSE_ANONYMOUS_TOTAL: positiveInt
      .max(1_000_000)
      .default(256)
      .describe('Concurrent activity streams without a key, all addresses together (429 SF_STREAM_LIMIT above either bound)'),
    // ---- the WebSocket stream GET /api/v1/predict (src/edge/ws) ----
    WS_PER_KEY: positiveInt.max(1_000_000).default(10).describe('Concurrent WebSocket connections per key (4429 above)'),
    WS_PER_ADDRESS: positiveInt
      .max(1_000_000)
      .default(50)
      .describe('Concurrent WebSocket connections per client address (IPv4, IPv6 /64; 4429 above)'),
    WS_SUBSCRIPTIONS: positiveInt.max(1000).default(20).describe('Subscriptions per WebSocket connection'),
    WS_MESSAGE_BYTES: positiveInt.max(1_048_576).default(16_384).describe('Largest frame a WebSocket client may send (close 1009 above)'),
    WS_SEND_BUFFER_BYTES: positiveInt
      .default(1_048_576)
      .describe('Unsent bytes held per WebSocket client before `lagging`; close 4413 at twice this'),
    WS_TICKS_PER_SECOND: positiveInt.max(1000).default(10).describe('Tick frames per second per ticks subscription at most (conflated)'),
    WS_PING_MS: positiveInt.default(20_000).describe('Ping interval; a client that has not answered the previous ping is closed (4408)'),
    WS_IDLE_MS: positiveInt
      .default(300_000)
      .describe('A connection with no subscription that sends nothing for this long is closed (4408)'),
    WS_AUTH_TIMEOUT_MS: positiveInt
      .default(5_000)
      .describe('Time for the `auth` message when the upgrade carried no key or session (4401 after)'),
    SESSION_ALLOWED_ORIGINS: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.url({ protocol: /^https?$/ }).transform((u) => new URL(u).origin)))
      .default([])
      .describe(
        'Origins (comma-separated) besides the service itself and PUBLIC_URL whose pages may send cookie-authenticated state changes',
      ),
    MARKET_FEED: z
      .enum(['synthetic', 'none'])
      .default('synthetic')
      .describe('synthetic = build seeded history and run a live synthetic feed; none = only imported and live sources'),
    HISTORY_DAYS: z.coerce.number().int().min(1).max(3650).default(365).describe('Days of synthetic history built on first start'),
    SYNTHETIC_SEED: z.string().min(1).default('signalforge').describe('Seed of the synthetic market (same seed, same series)'),
    SYNTHETIC_TICK_DAYS: z.coerce.number().int().min(0).max(30).default(7).describe('Most recent days of raw synthetic ticks kept'),
    BAR_GRACE_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(60_000)
      .default(2000)
      .describe('How long after its end a bar waits for late ticks before it closes'),
    KAFKA_BROKERS: z
      .string()
      .regex(/^[\w.-]+:\d+(,[\w.-]+:\d+)*$/, 'host:port[,host:port…]')
      .optional()
      .describe('Kafka brokers to ingest ticks from (topic KAFKA_TOPIC, key = symbol); unset = no Kafka'),
    KAFKA_TOPIC: z.string().min(1).default('ticks').describe('Kafka topic of the tick source'),
    KAFKA_GROUP: z
      .string()
      .min(1)
      .default('signalforge-ingest')
      .describe('Kafka consumer group of the tick source (copies of ingest share its partitions)'),
    OANDA_TOKEN: z
      .string()
      .min(1)
      .optional()
      .describe("OANDA v20 API token: with OANDA_ACCOUNT_ID, ingests the broker's live pricing stream"),
    OANDA_ACCOUNT_ID: z.string().min(1).optional().describe('OANDA account whose pricing stream is read (with OANDA_TOKEN)'),
    OANDA_STREAM_URL: z
      .url()
      .default('https://stream-fxpractice.oanda.com')
      .describe('OANDA pricing stream server (the fxpractice one by default)'),
    PYTHON: z
      .string()
      .min(1)
      .default('/usr/bin/python3')
      .describe(
        'Interpreter of the strategy runtime (Debian python3 with numpy, pandas, sklearn, xgboost, onnx, seccomp; it must live under /usr, the only tree the sandbox shows)',
      ),
    SANDBOX: z
      .enum(['auto', 'none'])
      .default('auto')
      .describe(
        'Strategy code sandbox: `auto` builds the full sandbox (user namespace, bubblewrap, a uid per job, seccomp) and refuses to start where it cannot; `none` runs strategy code without it (development machines only: never with untrusted users)',
      ),
    STRATEGY_WORKERS: z.coerce
      .number()
      .int()
      .min(1)
      .max(32)
      .optional()
      .describe('Sandboxed Python workers (default: one per core, at most 4)'),
    SCORER_PROCESSES: z.coerce
      .number()
      .int()
      .min(1)
      .max(32)
      .default(2)
      .describe("Processes that score trained models (ONNX) outside the service process, each one user's batch at a time"),
    SCORER_MEMORY_MB: z.coerce
      .number()
      .int()
      .min(256)
      .max(65_536)
      .default(1024)
      .describe(
        'Memory bound of each scoring process (RLIMIT_DATA: JS heap and native allocations; Node and onnxruntime with a model use ~110 MB); a model that needs more fails alone',
      ),
    SCORER_RUN_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(600_000)
      .default(10_000)
      .describe(
        'Deadline of one scoring run, plus 0.05 ms per row scored: past it the scoring process is killed and replaced, and the run fails',
      ),
    SCORER_LOAD_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(600_000)
      .default(10_000)
      .describe('Deadline of loading one model into a scoring process'),
    DEPLOY_LIMIT_FREE: z.coerce
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(1)
      .describe('Models a free-plan user may have deployed at once; deploying one more swaps out the oldest'),
    DEPLOY_LIMIT_PRO: z.coerce.number().int().min(1).max(100_000).default(10).describe('The same for the pro plan'),
    ACTOR_WARM_SESSIONS: z.coerce
      .number()
      .int()
      .min(0)
      .max(256)
      .default(8)
      .describe(
        'Deployed strategies kept warm in their own sandboxed process (~140 MB each, ~8 ms per bar); the rest compute features with pool jobs, a fresh fork per bar (~20 ms per bar; ~150 ms on a VM whose page faults are dear, where a fork copies what it touches): size it to the programs a host holds',
      ),
    TRACKER_WARM_SESSIONS: z.coerce
      .number()
      .int()
      .min(0)
      .max(256)
      .default(8)
      .describe(
        'Shared community strategies the live tracker keeps warm in their own sandboxed process (~140 MB each); entries with identical code share one, the rest compute features with pool jobs',
      ),
    TRACKER_POOL_JOBS_PER_BAR: z.coerce
      .number()
      .int()
      .min(0)
      .max(10_000)
      .default(16)
      .describe(
        'Pool jobs (~20 ms of CPU each) a bar close may start for shared strategies without a warm session, about: beyond it they take turns, each catching up its bars every few bars (the same trades; its record a few bars behind). 0 = every one on every bar',
      ),
    ONE_SHOT_FEE: z.coerce
      .number()
      .int()
      .min(0)
      .max(1000)
      .default(9)
      .describe('Credits of a one_shot on top of its generation (train + deploy); refunded when it fails before the deploy'),
    PUBLIC_URL: z
      .url()
      .optional()
      .describe('Base URL clients reach the service at (one_shot live_url); default: the address it listens on'),
    TRAIN_CONCURRENCY: z.coerce
      .number()
      .int()
      .min(1)
      .max(16)
      .default(2)
      .describe(
        'Train jobs one trainer runs at once, at most one per user (keep STRATEGY_WORKERS above it: /predict and live features share the pool)',
      ),
    TRAIN_ACK_WAIT_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .max(600_000)
      .default(30_000)
      .describe('A job whose trainer stops sending heartbeats for this long is handed to another trainer (or the restarted one)'),
    PLATFORM_DAILY_AI_BUDGET_USD: z.coerce
      .number()
      .min(0)
      .default(50)
      .describe('Cost guard: AI generation spend per UTC day before the platform falls back to the offline generator'),
    // ---- strategy generation (src/generation, src/generation/claude): Claude when a key is set, else offline ----
    ANTHROPIC_API_KEY: z
      .string()
      .min(1)
      .optional()
      .describe('Enables Claude generation (ai_model sonnet/opus/haiku/sonnet-haiku); unset = the offline generator writes all code'),
    ANTHROPIC_BASE_URL: z.url().optional().describe('Anthropic API base URL (default https://api.anthropic.com)'),
    ANTHROPIC_MODEL_SONNET: z
      .string()
      .min(1)
      .default('claude-sonnet-5-5')
      .describe('Model id for ai_model sonnet (and the repairs of sonnet-haiku)'),
    ANTHROPIC_MODEL_OPUS: z.string().min(1).default('claude-opus-5-5').describe('Model id for ai_model opus'),
    ANTHROPIC_MODEL_HAIKU: z
      .string()
      .min(1)
      .default('claude-haiku-5-5')
      .describe('Model id for ai_model haiku (and the drafts of sonnet-haiku)'),
    ANTHROPIC_MAX_RETRIES: z.coerce
      .number()
      .int()
      .min(0)
      .max(10)
      .default(2)
      .describe('SDK retries (with backoff) on connection errors, 408/409/429/5xx and 529 overloaded'),
    ANTHROPIC_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(120_000).describe('Timeout of one Claude request'),
    GENERATE_REPAIR_TRIES: z.coerce
      .number()
      .int()
      .min(0)
      .max(5)
      .default(2)
      .describe('Repair rounds when Claude code fails the checks, before the offline generator answers'),
    GENERATE_COST_OFFLINE: z.coerce.number().int().min(0).default(1).describe('Credits per generation written by the offline generator'),
    GENERATE_COST_TEMPLATE: z.coerce
      .number()
      .int()
      .min(0)
      .default(1)
      .describe('Credits per /generate/from-template written by the offline generator'),
    GENERATE_COST_HAIKU: z.coerce.number().int().min(0).default(5).describe('Credits per generation Claude writes with ai_model haiku'),
    GENERATE_COST_SONNET_HAIKU: z.coerce
      .number()
      .int()
      .min(0)
      .default(7)
      .describe('Credits per generation Claude writes with ai_model sonnet-haiku'),
    GENERATE_COST_SONNET: z.coerce.number().int().min(0).default(10).describe('Credits per generation Claude writes with ai_model sonnet'),
    GENERATE_COST_OPUS: z.coerce.number().int().min(0).default(20).describe('Credits per generation Claude writes with ai_model opus'),
    // ---- signal delivery (actors/delivery) ----
    WEBHOOK_ALLOW_PRIVATE: z
      .enum(['none', 'loopback', 'all'])
      .default('none')
      .describe(
        'Webhook targets on private networks: none = refuse private, loopback, link-local, CGNAT, multicast and ULA addresses; loopback = also allow 127.0.0.0/8 and ::1 (tests); all = allow every address',
      ),
    WEBHOOK_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(120_000)
      .default(10_000)
      .describe('One webhook attempt (connect, send, answer) must finish within this'),
    WEBHOOK_RETRY_BASE_MS: z.coerce
      .number()
      .int()
      .min(1)
      .max(3_600_000)
      .default(5_000)
      .describe('First retry delay; each further retry doubles it (±20% jitter), up to WEBHOOK_RETRY_MAX_MS'),
    WEBHOOK_RETRY_MAX_MS: z.coerce.number().int().min(1).max(86_400_000).default(7_200_000).describe('Longest delay between two retries'),
    WEBHOOK_RETRY_WINDOW_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(30 * 86_400_000)
      .default(25 * 3_600_000)
      .describe('How long a failing signal is retried (from its first attempt) before it becomes a dead letter; applies to messenger too'),
    DISCORD_WEBHOOK_HOSTS: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((s) => s.trim().toLowerCase())
          .filter(Boolean),
      )
      .default(['discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com', 'ptb.discordapp.com', 'canary.discordapp.com'])
      .describe(
        "Hosts a discord channel URL may name (comma-separated; a bare host means https on its default port, an origin such as http://127.0.0.1:9000 is matched exactly: tests' stand-ins); the path must be /api/webhooks/<id>/<token>",
      ),
    SLACK_WEBHOOK_HOSTS: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((s) => s.trim().toLowerCase())
          .filter(Boolean),
      )
      .default(['hooks.slack.com'])
      .describe('Hosts a slack channel URL may name (as DISCORD_WEBHOOK_HOSTS); the path must be /services/…'),
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\/\S+$/, 'an smtp:// or smtps:// URL such as smtps://user:password@smtp.example.com:465')
      .optional()
      .describe(
        'SMTP server the email channel sends through (smtp://… with STARTTLS when offered, smtps://… for TLS from the start; user and password in the URL are never logged); unset = the email channel is unavailable',
      ),
    EMAIL_FROM: z
      .string()
      .min(3)
      .max(300)
      .default('signalforge <signals@localhost>')
      .describe('From: of signal and confirmation mails (an address your SMTP server may send as, ideally DKIM-signed for it)'),
    SIGNAL_EMAILS_PER_DAY: z.coerce
      .number()
      .int()
      .min(0)
      .max(1_000_000)
      .default(200)
      .describe(
        'Signal e-mails one account is sent per UTC day; the signals beyond are not mailed and show in the delivery log as capped dead letters',
      ),
    DELIVERY_CONCURRENCY: z.coerce
      .number()
      .int()
      .min(1)
      .max(10_000)
      .default(256)
      .describe('Webhook and messenger sends in flight at once, all deployments together'),
    TELEGRAM_BOT_TOKEN: z
      .string()
      .regex(/^\d+:[\w-]+$/, 'a Telegram bot token such as 123456:ABC-DEF…')
      .optional()
      .describe('Runs the messenger (Telegram) bot: pairing with /start <code> and signal messages; unset = messenger off'),
    TELEGRAM_API_ROOT: z
      .url()
      .default('https://api.telegram.org')
      .describe('Bot API server (a local Bot API server, or a stand-in in tests)'),
    TELEGRAM_MODE: z
      .enum(['polling', 'webhook'])
      .default('polling')
      .describe(
        "polling = long polling getUpdates; webhook = Telegram POSTs updates to TELEGRAM_WEBHOOK_URL (this edge's /api/v1/messenger/telegram-webhook)",
      ),
    TELEGRAM_WEBHOOK_URL: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe('Public URL of POST /api/v1/messenger/telegram-webhook on this service, registered with setWebhook in webhook mode'),
    TELEGRAM_CHAT_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(60_000)
      .default(1_000)
      .describe('Least time between two messages to one chat'),
    TELEGRAM_GLOBAL_PER_SEC: z.coerce
      .number()
      .int()
      .min(1)
      .max(1_000)
      .default(30)
      .describe('Messages per second the bot sends over all chats'),
  })
  .refine((c) => c.HTTP_HEADERS_TIMEOUT_MS <= c.HTTP_REQUEST_TIMEOUT_MS, {
    path: ['HTTP_HEADERS_TIMEOUT_MS'],
    message: 'must not exceed HTTP_REQUEST_TIMEOUT_MS (the headers are part of the request)',
  });
export type EnvConfig = z.infer<typeof EnvConfig>;
