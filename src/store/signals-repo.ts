import type { ClickHouseClient } from '@clickhouse/client';
import { selectRows } from './clickhouse.ts';
import { insertRowBinary } from './bulk-io.ts';
import { InsertBatcher } from './insert-batcher.ts';
import { RowBinaryWriter } from './row-binary.ts';
import type { SignalEvent } from '../../schemas/live.ts';

/** The `signals` columns, in the order rows are encoded. */
const STRUCTURE =
  'deployment_id String, id String, model String, symbol String, timeframe String, action String, side String, ' +
  'price Float64, stop_loss Nullable(Float64), take_profit Nullable(Float64), reason String, p_up Nullable(Float64), ' +
  'pnl Nullable(Float64), bar_time DateTime64(3), created_at DateTime64(3)';

/** A signal's row: the event's columns in RowBinary (about 200 bytes). */
function encode(rows: readonly SignalEvent[]): Buffer {
  const w = new RowBinaryWriter(rows.length * 256 + 64);
  for (const e of rows) {
    w.string(e.deployment_id).string(e.id).string(e.model).string(e.symbol).string(e.timeframe);
    w.string(e.action).string(e.side).float64(e.price).nullableFloat64(e.stop_loss).nullableFloat64(e.take_profit);
    // DateTime64(3) columns take epoch milliseconds.
    w.string(e.reason).nullableFloat64(e.p_up).nullableFloat64(e.pnl).int64(Date.parse(e.bar_time)).int64(Date.parse(e.created_at));
  }
  return w.bytes();
}

/**
 * Rows gathered into one insert: a bar's signals (thousands of deployments) arrive over a second
 * or two, and each insert is a part for ClickHouse to write and merge, so an insert's fixed cost
 * is what a signal costs the store. Measured on chdb, 10,000 rows in inserts of 500: 28 µs a row
 * as JSON, 24 as RowBinary; in inserts of 5,000: 5 µs as RowBinary.
 */
const SIGNAL_INSERT = { maxRows: 10_000, maxDelayMs: 1_000 } as const;

/** The history of live signals in ClickHouse (the SIGNALS stream keeps 30 days; this keeps all). */
export class SignalsRepo {
  private readonly batcher: InsertBatcher<SignalEvent>;
  readonly rowsPerInsert = SIGNAL_INSERT.maxRows;

  constructor(private readonly client: ClickHouseClient) {
    this.batcher = new InsertBatcher<SignalEvent>(client, 'signals', {
      ...SIGNAL_INSERT,
      write: (rows) => insertRowBinary(client, 'signals', STRUCTURE, encode(rows)),
    });
  }

  insert(events: readonly SignalEvent[]): Promise<void> {
    return this.batcher.insert([...events]);
  }

  /** A deployment's signals, oldest first. */
  byDeployment(
    deploymentId: string,
    limit = 1000,
  ): Promise<Array<{ id: string; action: string; side: string; price: number; bar_time: number }>> {
    return selectRows(
      this.client,
      `SELECT id, action, side, price, toUnixTimestamp64Milli(bar_time) AS bar_time
         FROM signals FINAL WHERE deployment_id = {dep:String}
        ORDER BY bar_time, id LIMIT {limit:UInt32}`,
      { dep: deploymentId, limit },
    );
  }
}
