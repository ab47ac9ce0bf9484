import type { ClickHouseClient } from '@clickhouse/client';
import type { Symbol } from '../../schemas/common.ts';
import type { DataSource, Tick } from '../../schemas/market.ts';
import { insertRowBinary, selectRowBinary } from './bulk-io.ts';
import { RowBinaryWriter } from './row-binary.ts';
import { sourceName } from './bars-repo.ts';
import { selectRows } from './clickhouse.ts';

const STRUCTURE = "symbol String, ts DateTime64(3, 'UTC'), seq UInt32, bid Float64, ask Float64, volume Float64, source String";

export interface StoredTick extends Tick {
  source: DataSource;
}

/** Raw ticks in ClickHouse. */
export class TicksRepo {
  constructor(private readonly client: ClickHouseClient) {}

  async insert(ticks: readonly Tick[], source: DataSource): Promise<void> {
    const w = new RowBinaryWriter(ticks.length * 48 + 64);
    for (const t of ticks) w.ascii(t.symbol).int64(t.ts).uint32(t.seq).float64(t.bid).float64(t.ask).float64(t.volume).ascii(source);
    await insertRowBinary(this.client, 'ticks', STRUCTURE, w.bytes());
  }

  /** Ticks in [fromMs, toMs) in time order; the last `limit` of them when `latest`. */
  async range(symbol: Symbol, fromMs: number, toMs: number, limit: number, latest: boolean): Promise<StoredTick[]> {
    const buffer = await selectRowBinary(
      this.client,
      `SELECT * FROM (
         SELECT toUnixTimestamp64Milli(ts) AS t, seq, bid, ask, volume, toUInt8(indexOf(['synthetic', 'import', 'live'], source) - 1) AS src
           FROM ticks FINAL
          WHERE symbol = {symbol:String} AND ts >= fromUnixTimestamp64Milli({from:Int64}) AND ts < fromUnixTimestamp64Milli({to:Int64})
          ORDER BY ts ${latest ? 'DESC' : 'ASC'}, seq ${latest ? 'DESC' : 'ASC'}
          LIMIT {limit:UInt32})
       ORDER BY t, seq`,
      { symbol, from: fromMs, to: toMs, limit },
    );
    const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    const out: StoredTick[] = [];
    for (let o = 0; o < buffer.byteLength; o += 37) {
      out.push({
        symbol,
        ts: Number(view.getBigInt64(o, true)),
        seq: view.getUint32(o + 8, true),
        bid: view.getFloat64(o + 12, true),
        ask: view.getFloat64(o + 20, true),
        volume: view.getFloat64(o + 28, true),
        source: sourceName(view.getUint8(o + 36)),
      });
    }
    return out;
  }

  async count(symbol: Symbol, fromMs: number, toMs: number): Promise<number> {
    const [row] = await selectRows<{ n: number }>(
      this.client,
      `SELECT toUInt64(count()) AS n FROM ticks FINAL
        WHERE symbol = {symbol:String} AND ts >= fromUnixTimestamp64Milli({from:Int64}) AND ts < fromUnixTimestamp64Milli({to:Int64})`,
      { symbol, from: fromMs, to: toMs },
    );
    return row?.n ?? 0;
  }

  /**
   * Merges the monthly partitions a span touches, so re-imported ticks are physically
   * de-duplicated (reads use FINAL either way; this keeps them cheap).
   */
  async compact(fromMs: number, toMs: number): Promise<void> {
    const cursor = new Date(fromMs);
    cursor.setUTCDate(1);
    cursor.setUTCHours(0, 0, 0, 0);
    for (; cursor.getTime() <= toMs; cursor.setUTCMonth(cursor.getUTCMonth() + 1)) {
      const partition = cursor.getUTCFullYear() * 100 + cursor.getUTCMonth() + 1;
      await this.client.command({ query: `OPTIMIZE TABLE ticks PARTITION ${partition} FINAL` });
    }
  }
}
