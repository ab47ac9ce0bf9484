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
  // Ticks by (symbol, ts, seq): a re-imported file yields the same keys, so it replaces rather
  // than doubles. Synthetic ticks are kept 7 days (their bars are kept for ever).
  // Live signals of deployed models, by deployment and bar; a re-published signal (same id) replaces itself.
  `CREATE TABLE IF NOT EXISTS signals (
     deployment_id String,
     id String,
     model String,
     symbol LowCardinality(String),
     timeframe LowCardinality(String),
     action LowCardinality(String),
     side LowCardinality(String),
     price Float64,
     stop_loss Nullable(Float64),
     take_profit Nullable(Float64),
     reason LowCardinality(String),
     p_up Nullable(Float64),
     pnl Nullable(Float64),
     bar_time DateTime64(3, 'UTC'),
     created_at DateTime64(3, 'UTC')
   ) ENGINE = ReplacingMergeTree
     ORDER BY (deployment_id, bar_time, id)`,
  `CREATE TABLE IF NOT EXISTS ticks (
     symbol LowCardinality(String),
     ts DateTime64(3, 'UTC'),
     seq UInt32,
     bid Float64,
     ask Float64,
     volume Float64,
     source LowCardinality(String)
   ) ENGINE = ReplacingMergeTree
     PARTITION BY toYYYYMM(ts)
     ORDER BY (symbol, ts, seq)
     TTL toDateTime(ts) + INTERVAL 7 DAY DELETE WHERE source = 'synthetic'`,
  // Bars of every timeframe; a rebuilt bar replaces the old one (the higher version wins).
  `CREATE TABLE IF NOT EXISTS bars (
     symbol LowCardinality(String),
     timeframe LowCardinality(String),
     ts DateTime64(3, 'UTC'),
     open Float64,
     high Float64,
     low Float64,
     close Float64,
     volume Float64,
     ticks UInt32,
     spread Float64,
     source LowCardinality(String),
     version UInt64
   ) ENGINE = ReplacingMergeTree(version)
     PARTITION BY toYYYYMM(ts)
     ORDER BY (symbol, timeframe, ts)`,
  // Live trades of shared community entries since publication (the verified track record), by
  // entry and trade number: a bar replayed after a crash stores the same (community_id, seq) again.
  `CREATE TABLE IF NOT EXISTS community_live_trades (
     community_id UInt64,
     seq UInt32,
     side Int8,
     entry_ts DateTime64(3, 'UTC'),
     exit_ts DateTime64(3, 'UTC'),
     entry_price Float64,
     exit_price Float64,
     lots Float64,
     units Float64,
     reason LowCardinality(String),
     pips Float64,
     gross_pnl Float64,
     commission Float64,
     swap Float64,
     pnl Float64,
     bars_held UInt32,
     nights UInt32,
     notional Float64,
     stop_loss Nullable(Float64),
     take_profit Nullable(Float64)
   ) ENGINE = ReplacingMergeTree
     ORDER BY (community_id, seq)`,
  // Tables made before the levels were kept gain them (null for the trades stored then).
  `ALTER TABLE community_live_trades ADD COLUMN IF NOT EXISTS stop_loss Nullable(Float64)`,
  `ALTER TABLE community_live_trades ADD COLUMN IF NOT EXISTS take_profit Nullable(Float64)`,
  // Fork revenue share, one row per UTC day, parent entry and child entry (the payout sweep):
  // a re-run of a day writes the same keys, so it replaces rather than adds.
  `CREATE TABLE IF NOT EXISTS fork_payouts (
     day Date,
     parent_entry UInt64,
     child_entry UInt64,
     parent_user UInt64,
     child_user UInt64,
     parent_author String,
     child_author String,
     plan LowCardinality(String),
     spend Int64,
     share Int64,
     credited Int64,
     charity Int64,
     settled_at DateTime64(3, 'UTC')
   ) ENGINE = ReplacingMergeTree
     ORDER BY (day, parent_entry, child_entry)`,
];
