export { openClickHouse, selectRows, type ClickHouseClient } from './clickhouse.ts';
export { InsertBatcher } from './insert-batcher.ts';
export { UsageRepo, type UsageRow } from './usage-repo.ts';
export { SignalsRepo } from './signals-repo.ts';
export { TicksRepo, type StoredTick } from './ticks-repo.ts';
export { BarsRepo, sourceName, sourceCode, type SeriesColumns } from './bars-repo.ts';
export { insertRowBinary, selectRowBinary } from './bulk-io.ts';
export { RowBinaryWriter } from './row-binary.ts';
