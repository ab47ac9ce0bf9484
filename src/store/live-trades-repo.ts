import type { ClickHouseClient } from '@clickhouse/client';
import { selectRows } from './clickhouse.ts';
import { InsertBatcher } from './insert-batcher.ts';
import { LiveTrade } from '../../schemas/tracker.ts';

/** Each column of `community_live_trades` and the LiveTrade field it holds. */
const COLUMNS = {
  community_id: 'community_id',
  seq: 'seq',
  side: 'side',
  entry_ts: 'entryTs',
  exit_ts: 'exitTs',
  entry_price: 'entryPrice',
  exit_price: 'exitPrice',
  lots: 'lots',
  units: 'units',
  reason: 'reason',
  pips: 'pips',
  gross_pnl: 'grossPnl',
  commission: 'commission',
  swap: 'swap',
  pnl: 'pnl',
  bars_held: 'barsHeld',
  nights: 'nights',
  notional: 'notional',
  stop_loss: 'stopLoss',
  take_profit: 'takeProfit',
} as const satisfies Record<string, keyof LiveTrade>;

type Row = Record<keyof typeof COLUMNS, unknown>;
const MAPPING = Object.entries(COLUMNS) as Array<[keyof typeof COLUMNS, keyof LiveTrade]>;

// DateTime64(3) columns take and give epoch milliseconds.
const SELECT = MAPPING.map(([column]) => (column.endsWith('_ts') ? `toUnixTimestamp64Milli(${column}) AS ${column}` : column)).join(', ');
const toRow = (t: LiveTrade): Row => Object.fromEntries(MAPPING.map(([column, field]) => [column, t[field]])) as Row;
const fromRow = (r: Row): LiveTrade => LiveTrade.parse(Object.fromEntries(MAPPING.map(([column, field]) => [field, r[column]])));

/**
 * The live trades of tracked community entries (`community_live_trades`): what a track record is
 * computed from and audited against. Keyed by (community_id, seq), so storing a trade again (a bar
 * replayed after a crash) replaces it; reads are FINAL.
 */
export class LiveTradesRepo {
  private readonly batcher: InsertBatcher<Row>;

  constructor(private readonly client: ClickHouseClient) {
    this.batcher = new InsertBatcher(client, 'community_live_trades');
  }

  /** Stores trades (those of many entries written at once go into one INSERT). */
  insert(trades: readonly LiveTrade[]): Promise<void> {
    return trades.length ? this.batcher.insert(trades.map(toRow)) : Promise.resolve();
  }

  /** An entry's trades in exit order. */
  async ofEntry(communityId: number): Promise<LiveTrade[]> {
    const rows = await selectRows<Row>(
      this.client,
      `SELECT ${SELECT} FROM community_live_trades FINAL WHERE community_id = {id:UInt64} ORDER BY seq`,
      { id: communityId },
    );
    return rows.map(fromRow);
  }

  /** Net P&L of each entry's trades in exit order, for entries resuming (one query for many). */
  async pnls(communityIds: readonly number[]): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>(communityIds.map((id) => [id, []]));
    if (!communityIds.length) return out;
    const rows = await selectRows<{ community_id: number; pnl: number }>(
      this.client,
      `SELECT community_id, pnl FROM community_live_trades FINAL WHERE community_id IN {ids:Array(UInt64)} ORDER BY community_id, seq`,
      { ids: communityIds },
    );
    for (const r of rows) out.get(r.community_id)?.push(r.pnl);
    return out;
  }
}
