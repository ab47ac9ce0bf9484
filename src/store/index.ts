export { openClickHouse, selectRows, type ClickHouseClient } from './clickhouse.ts';
export { InsertBatcher } from './insert-batcher.ts';
export { UsageRepo, type UsageRow } from './usage-repo.ts';
