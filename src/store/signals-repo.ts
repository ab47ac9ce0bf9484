import type { ClickHouseClient } from '@clickhouse/client';
import { selectRows } from './clickhouse.ts';
import { InsertBatcher } from './insert-batcher.ts';
import type { SignalEvent } from '../../schemas/live.ts';

type SignalRow = Omit<SignalEvent, 'model_name' | 'bar_time' | 'created_at'> & { bar_time: number; created_at: number } & Record<
    string,
    unknown
  >;

/**
 * Rows gathered into one insert: a bar's signals (thousands of deployments) arrive over a few
 * seconds, and each insert is a part for ClickHouse to write and merge. At 5 ms a bar of 10,000
 * signals was ~800 inserts and cost the store 1.6 CPU-seconds (actor-fleet bench).
 */
const SIGNAL_INSERT = { maxRows: 500, maxDelayMs: 200 } as const;

/** The history of live signals in ClickHouse (the SIGNALS stream keeps 30 days; this keeps all). */
export class SignalsRepo {
  private readonly batcher: InsertBatcher<SignalRow>;
  readonly rowsPerInsert = SIGNAL_INSERT.maxRows;

  constructor(private readonly client: ClickHouseClient) {
    this.batcher = new InsertBatcher(client, 'signals', SIGNAL_INSERT);
  }

  insert(events: readonly SignalEvent[]): Promise<void> {
    return this.batcher.insert(
      // DateTime64(3) columns take epoch milliseconds, as usage_events does.
      events.map(({ model_name: _name, bar_time, created_at, ...rest }) => ({
        ...rest,
        bar_time: Date.parse(bar_time),
        created_at: Date.parse(created_at),
      })),
    );
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
