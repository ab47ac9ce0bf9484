import type { ClickHouseClient } from '@clickhouse/client';
import type { Symbol, Timeframe } from '../../schemas/common.ts';
import type { BarMessage, DataSource } from '../../schemas/market.ts';
import type { BarColumns } from '../lib/bar-columns.ts';
import { insertRowBinary, selectRowBinary } from './bulk-io.ts';
import { RowBinaryWriter } from './row-binary.ts';

const COLUMNS = ['symbol', 'timeframe', 'ts', 'open', 'high', 'low', 'close', 'volume', 'ticks', 'spread', 'source', 'version'] as const;
const STRUCTURE =
  "symbol String, timeframe String, ts DateTime64(3, 'UTC'), open Float64, high Float64, low Float64, close Float64, " +
  'volume Float64, ticks UInt32, spread Float64, source String, version UInt64';
const TIMEFRAME_SECONDS: Record<Timeframe, number> = { '1min': 60, '5min': 300, '15min': 900, '1h': 3600 };
const SOURCES: readonly DataSource[] = ['synthetic', 'import', 'live'];

/** A stored bar series as columns, in time order: the bar columns plus volume, ticks and source. */
export interface SeriesColumns extends BarColumns {
  volume: Float64Array;
  ticks: Uint32Array;
  /** Index into SOURCES. */
  source: Uint8Array;
}

export const sourceName = (code: number): DataSource => SOURCES[code] ?? 'live';
export const sourceCode = (source: DataSource): number => SOURCES.indexOf(source);

/**
 * Later writes of the same bar win; a counter keeps versions unique within one millisecond. The
 * machine's clock on purpose (an edge, see test/lib/clock-reads.test.ts): versions must grow across
 * processes and restarts, whatever time a replay shows.
 */
let versionCounter = 0;
const nextVersion = () => Date.now() * 1000 + (versionCounter++ % 1000);

/** Bars of every timeframe in ClickHouse: written by the resampler, rebuilt from ticks in bulk. */
export class BarsRepo {
  constructor(private readonly client: ClickHouseClient) {}

  async insert(bars: readonly BarMessage[]): Promise<void> {
    const version = nextVersion();
    const w = new RowBinaryWriter(bars.length * 96 + 64);
    for (const b of bars) {
      w.ascii(b.symbol).ascii(b.timeframe).int64(b.ts).float64(b.open).float64(b.high).float64(b.low).float64(b.close);
      w.float64(b.volume).uint32(b.ticks).float64(b.spread).ascii(b.source).uint64(version);
    }
    await insertRowBinary(this.client, 'bars', STRUCTURE, w.bytes());
  }

  /** The stored series in [fromMs, toMs), oldest first. */
  async load(symbol: Symbol, timeframe: Timeframe, fromMs = 0, toMs = 8.64e15): Promise<SeriesColumns> {
    const buffer = await selectRowBinary(
      this.client,
      `SELECT toUnixTimestamp64Milli(ts), open, high, low, close, volume, spread, ticks,
              toUInt8(indexOf(['synthetic', 'import', 'live'], source) - 1)
         FROM bars FINAL
        WHERE symbol = {symbol:String} AND timeframe = {tf:String}
          AND ts >= fromUnixTimestamp64Milli({from:Int64}) AND ts < fromUnixTimestamp64Milli({to:Int64})
        ORDER BY ts`,
      { symbol, tf: timeframe, from: Math.max(0, Math.floor(fromMs)), to: Math.min(8.64e15, Math.ceil(toMs)) },
    );
    const ROW = 8 * 7 + 4 + 1;
    const n = buffer.byteLength / ROW;
    const cols: SeriesColumns = {
      ts: new Float64Array(n),
      open: new Float64Array(n),
      high: new Float64Array(n),
      low: new Float64Array(n),
      close: new Float64Array(n),
      volume: new Float64Array(n),
      spread: new Float64Array(n),
      ticks: new Uint32Array(n),
      source: new Uint8Array(n),
    };
    const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    for (let i = 0, o = 0; i < n; i++, o += ROW) {
      cols.ts[i] = Number(view.getBigInt64(o, true));
      cols.open[i] = view.getFloat64(o + 8, true);
      cols.high[i] = view.getFloat64(o + 16, true);
      cols.low[i] = view.getFloat64(o + 24, true);
      cols.close[i] = view.getFloat64(o + 32, true);
      cols.volume[i] = view.getFloat64(o + 40, true);
      cols.spread[i] = view.getFloat64(o + 48, true);
      cols.ticks[i] = view.getUint32(o + 56, true);
      cols.source[i] = view.getUint8(o + 60);
    }
    return cols;
  }

  /**
   * The bulk path: rebuilds every timeframe's bars over [fromMs, toMs) from the stored ticks,
   * inside ClickHouse, by the same rules as the streaming resampler (bid price; first/last by
   * (ts, seq); volume = summed volume, or the tick count when there is none; opening spread).
   * The span is widened to whole hours so that edge bars are rebuilt from all their ticks.
   * Returns the span actually rebuilt.
   */
  async rebuildFromTicks(symbol: Symbol, fromMs: number, toMs: number): Promise<{ fromMs: number; toMs: number }> {
    const from = Math.floor(fromMs / 3_600_000) * 3_600_000;
    const to = Math.ceil((toMs + 1) / 3_600_000) * 3_600_000;
    const version = nextVersion();
    for (const [timeframe, seconds] of Object.entries(TIMEFRAME_SECONDS)) {
      await this.client.command({
        query: `INSERT INTO bars (${COLUMNS.join(', ')})
          SELECT symbol, {tf:String},
                 toStartOfInterval(ts, INTERVAL {seconds:UInt32} SECOND) AS bucket,
                 argMin(bid, (ts, seq)), max(bid), min(bid), argMax(bid, (ts, seq)),
                 if(sum(volume) > 0, sum(volume), count()), count(),
                 argMin(ask - bid, (ts, seq)), argMin(source, (ts, seq)), {version:UInt64}
            FROM ticks FINAL
           WHERE symbol = {symbol:String}
             AND ts >= fromUnixTimestamp64Milli({from:Int64}) AND ts < fromUnixTimestamp64Milli({to:Int64})
           GROUP BY symbol, bucket`,
        query_params: { symbol, tf: timeframe, seconds, from, to, version },
      });
    }
    return { fromMs: from, toMs: to };
  }
}
