import type { ClickHouseClient } from '@clickhouse/client';
import { SYMBOLS, type Symbol } from '../../schemas/common.ts';
import type { DataSource, Tick } from '../../schemas/market.ts';
import { insertBinary, selectRowBinary, type BinaryInsert } from './bulk-io.ts';
import { sourceName } from './bars-repo.ts';
import { selectRows } from './clickhouse.ts';
import { NativeBlock } from './native-block.ts';
import { TickColumns } from './tick-columns.ts';

const SYMBOL_CODE = new Map<Symbol, number>(SYMBOLS.map((s, i) => [s, i]));

/**
 * Ticks go in as one Native block of their columns: the symbol as a code (its index in SYMBOLS),
 * the time as Float64 epoch ms (exact below 2^53), the source as a constant of the insert.
 * optimize_on_insert = 0: ReplacingMergeTree would otherwise sort each insert to collapse repeated
 * keys inside it; the live path never repeats one, reads use FINAL, and merges collapse them
 * anyway — it was a third of the engine's cost per tick.
 */
function tickInsert(source: DataSource): BinaryInsert {
  return {
    table: 'ticks',
    columns: 'symbol, ts, seq, bid, ask, volume, source',
    structure: 'sym UInt8, ts Float64, seq UInt32, bid Float64, ask Float64, volume Float64',
    format: 'Native',
    select: `arrayElement([${SYMBOLS.map((s) => `'${s}'`).join(', ')}], sym + 1), fromUnixTimestamp64Milli(toInt64(ts)), seq, bid, ask, volume, '${source}'`,
    settings: 'optimize_on_insert = 0',
  };
}
const TICK_INSERTS = new Map<DataSource, BinaryInsert>((['synthetic', 'import', 'live'] as const).map((s) => [s, tickInsert(s)]));

export interface StoredTick extends Tick {
  source: DataSource;
}

/** Raw ticks in ClickHouse. */
export class TicksRepo {
  constructor(private readonly client: ClickHouseClient) {}

  async insert(ticks: readonly Tick[], source: DataSource): Promise<void> {
    await this.insertColumns(TickColumns.fromTicks(ticks), source);
  }

  /** Stores batches of columns in one insert; the columns are read, never changed. */
  async insertColumns(batches: readonly TickColumns[], source: DataSource): Promise<void> {
    // In the table's order (symbol by name, then time: each symbol's batches already are), so
    // the engine finds the block sorted and skips sorting it. Array#sort is stable.
    const parts = batches.filter((b) => b.length > 0).sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
    const rows = parts.reduce((n, b) => n + b.length, 0);
    if (rows === 0) return;
    const codes = new Uint8Array(rows);
    let at = 0;
    for (const b of parts) {
      codes.fill(SYMBOL_CODE.get(b.symbol)!, at, (at += b.length));
    }
    const slices = <K extends 'ts' | 'seq' | 'bid' | 'ask' | 'volume'>(key: K) => parts.map((b) => b[key].subarray(0, b.length));
    const block = new NativeBlock(6, rows)
      .column('sym', 'UInt8', [codes])
      .column('ts', 'Float64', slices('ts'))
      .column('seq', 'UInt32', slices('seq'))
      .column('bid', 'Float64', slices('bid'))
      .column('ask', 'Float64', slices('ask'))
      .column('volume', 'Float64', slices('volume'));
    await insertBinary(this.client, TICK_INSERTS.get(source)!, block.pieces());
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
