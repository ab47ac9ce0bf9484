import { z } from 'zod';

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off', ''])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();

/**
 * The service's whole configuration, read from the environment once at start.
 * Each key is the environment variable of the same name.
 */
export const EnvConfig = z.object({
  PORT: port.default(8080).describe('HTTP port of the edge; 0 picks a free one'),
  HOST: z.string().min(1).default('0.0.0.0').describe('Address the edge listens on'),
  DATA_DIR: z.string().min(1).default('./data').describe('Directory for all embedded state (nats, clickhouse)'),
  NATS_URL: z
    .string()
    .regex(/^(nats|tls|wss?):\/\/\S+$|^[\w.-]+:\d+(,[\w.-]+:\d+)*$/, 'a nats:// URL such as nats://127.0.0.1:4222')
    .optional()
    .describe('External NATS; when unset, serve starts its own nats-server'),
  NATS_REPLICAS: z.coerce.number().int().min(1).max(5).default(1).describe('Replicas of every stream and KV bucket (3 on a cluster)'),
  NATS_SERVER_BIN: z.string().min(1).default('nats-server').describe('nats-server executable for the embedded server'),
  CLICKHOUSE_URL: z.url('an http(s):// URL such as http://default:@127.0.0.1:8123/default').optional()
    .describe('External ClickHouse server; when unset, chdb runs in-process under DATA_DIR/clickhouse'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: bool.default(false).describe('Honour X-Forwarded-For for the client IP (only behind a proxy you run)'),
  TRIAL_CREDITS: z.coerce.number().int().min(0).default(50).describe('Credits granted to a new trial key'),
  TRIAL_MINTS_PER_HOUR: positiveInt.default(5).describe('Trial keys one client IP may mint per rolling hour'),
  RATE_LIMIT_PER_MIN: positiveInt.default(120).describe('Requests per key per rolling minute'),
  SSE_HEARTBEAT_MS: positiveInt.default(15000).describe('Heartbeat interval on SSE streams'),
  BODY_LIMIT_BYTES: positiveInt.default(1024 * 1024).describe('Largest accepted request body'),
  MARKET_FEED: z.enum(['synthetic', 'none']).default('synthetic')
    .describe('synthetic = build seeded history and run a live synthetic feed; none = only imported and live sources'),
  HISTORY_DAYS: z.coerce.number().int().min(1).max(3650).default(365).describe('Days of synthetic history built on first start'),
  SYNTHETIC_SEED: z.string().min(1).default('signalforge').describe('Seed of the synthetic market (same seed, same series)'),
  SYNTHETIC_TICK_DAYS: z.coerce.number().int().min(0).max(30).default(7).describe('Most recent days of raw synthetic ticks kept'),
  BAR_GRACE_MS: z.coerce.number().int().min(0).max(60_000).default(2000)
    .describe('How long after its end a bar waits for late ticks before it closes'),
  KAFKA_BROKERS: z.string().regex(/^[\w.-]+:\d+(,[\w.-]+:\d+)*$/, 'host:port[,host:port…]').optional()
    .describe('Kafka brokers to ingest ticks from (topic KAFKA_TOPIC, key = symbol); unset = no Kafka'),
  KAFKA_TOPIC: z.string().min(1).default('ticks'),
  KAFKA_GROUP: z.string().min(1).default('signalforge-ingest'),
  OANDA_TOKEN: z.string().min(1).optional().describe("OANDA v20 API token: with OANDA_ACCOUNT_ID, ingests the broker's live pricing stream"),
  OANDA_ACCOUNT_ID: z.string().min(1).optional(),
  OANDA_STREAM_URL: z.url().default('https://stream-fxpractice.oanda.com'),
  PYTHON: z.string().min(1).default('/usr/bin/python3').describe('Interpreter of the strategy runtime (Debian python3 with numpy, pandas, sklearn, xgboost, onnx)'),
  STRATEGY_WORKERS: z.coerce.number().int().min(1).max(32).optional().describe('Sandboxed Python workers (default: one per core, at most 4)'),
  TRAIN_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(1).describe('Train jobs one trainer runs at once'),
  TRAIN_ACK_WAIT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000)
    .describe('A job whose trainer stops sending heartbeats for this long is handed to another trainer (or the restarted one)'),
  PLATFORM_DAILY_AI_BUDGET_USD: z.coerce.number().min(0).default(50)
    .describe('Cost guard: AI generation spend per UTC day before the platform falls back to the offline generator'),
});
export type EnvConfig = z.infer<typeof EnvConfig>;
