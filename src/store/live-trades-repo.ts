import type { ClickHouseClient } from '@clickhouse/client';
import { selectRows } from './clickhouse.ts';
import { InsertBatcher } from './insert-batcher.ts';
import { LiveTrade } from '../../schemas/tracker.ts';

const COLUMNS = `community_id, seq, side, toUnixTimestamp64Milli(entry_ts) AS entry_ts, toUnixTimestamp64Milli(exit_ts) AS exit_ts,
  entry_price, exit_price, lots, units, reason, pips, gross_pnl, commission, swap, pnl, bars_held, nights, notional`;

type Row = {
  community_id: number;
  seq: number;
  side: number;
  entry_ts: number;
  exit_ts: number;
  entry_price: number;
  exit_price: number;
  lots: number;
  units: number;
  reason: string;
  pips: number;
  gross_pnl: number;
  commission: number;
  swap: number;
  pnl: number;
  bars_held: number;
  nights: number;
  notional: number;
};

const toRow = (t: LiveTrade): Row => ({
  community_id: t.community_id,
  seq: t.seq,
  side: t.side,
  // DateTime64(3) columns take epoch milliseconds.
  entry_ts: t.entryTs,
  exit_ts: t.exitTs,
  entry_price: t.entryPrice,
  exit_price: t.exitPrice,
  lots: t.lots,
  units: t.units,
  reason: t.reason,
  pips: t.pips,
  gross_pnl: t.grossPnl,
  commission: t.commission,
  swap: t.swap,
  pnl: t.pnl,
  bars_held: t.barsHeld,
  nights: t.nights,
  notional: t.notional,
});

const fromRow = (r: Row): LiveTrade =>
  LiveTrade.parse({
    community_id: r.community_id,
    seq: r.seq,
    side: r.side,
    entryTs: r.entry_ts,
    exitTs: r.exit_ts,
    entryPrice: r.entry_price,
    exitPrice: r.exit_price,
    lots: r.lots,
    units: r.units,
    reason: r.reason,
    pips: r.pips,
    grossPnl: r.gross_pnl,
    commission: r.commission,
    swap: r.swap,
    pnl: r.pnl,
    barsHeld: r.bars_held,
    nights: r.nights,
    notional: r.notional,
  });

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
      `SELECT ${COLUMNS} FROM community_live_trades FINAL WHERE community_id = {id:UInt64} ORDER BY seq`,
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
