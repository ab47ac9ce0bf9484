/**
 * The append-only history tables. Each statement is idempotent; they run in order on every start.
 * Atomic state (balances, keys, jobs) lives in NATS KV instead; see schemas/messages.ts.
 */
export const MIGRATIONS: readonly string[] = [
  // One row per credit balance change. `seq` is the KV revision of that change: unique, ordered,
  // so a retried insert replaces rather than doubles, and pages never skip or repeat a row.
  `CREATE TABLE IF NOT EXISTS usage_events (
     seq UInt64,
     user_id UInt64,
     ts DateTime64(3, 'UTC'),
     delta Int64,
     balance_after Int64,
     reason LowCardinality(String),
     ref String
   ) ENGINE = ReplacingMergeTree
     ORDER BY (user_id, seq)`,
];
