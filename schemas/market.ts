import { z } from 'zod';
import { IsoDate, IsoDateTime, Symbol, Timeframe } from './common.ts';

/** Where a series comes from. Every response built on market data carries it. */
export const DataSource = z
  .enum(['synthetic', 'import', 'live'])
  .describe('synthetic = our seeded generator (not real prices); import = files you imported; live = a feed (NATS, Kafka, broker)');
export type DataSource = z.infer<typeof DataSource>;

/** A tick as it travels on NATS `ticks.<SYMBOL>` and Kafka: epoch ms, bid, ask, optional volumes. */
export const TickMessage = z.object({
  ts: z.number().int().positive().describe('epoch milliseconds, UTC'),
  bid: z.number().positive().finite(),
  ask: z.number().positive().finite(),
  bid_volume: z.number().nonnegative().finite().optional(),
  ask_volume: z.number().nonnegative().finite().optional(),
}).refine((t) => t.ask >= t.bid, { message: 'ask must not be below bid' });
export type TickMessage = z.infer<typeof TickMessage>;

/** A tick inside the platform: the message plus its symbol and source. */
export interface Tick {
  /** (symbol, ts, seq) identifies a tick: seq orders ticks that share a millisecond (0, 1, 2…). */
  symbol: Symbol;
  ts: number;
  seq: number;
  bid: number;
  ask: number;
  /** Summed bid+ask volume when the source gives one; 0 when it does not. */
  volume: number;
}

/** A closed bar, as published on NATS `bars.<SYMBOL>.<tf>` and stored in ClickHouse. */
export const BarMessage = z.object({
  symbol: Symbol,
  timeframe: Timeframe,
  ts: z.number().int().describe('bar open time, epoch ms UTC'),
  open: z.number(),
  high: z.number(),
  low: z.number(),
  close: z.number(),
  volume: z.number().describe('tick count, or summed volume where the source gives one'),
  ticks: z.number().int().describe('number of ticks in the bar'),
  spread: z.number().describe('ask − bid at the bar open (the spread a fill at the open pays)'),
  source: DataSource,
});
export type BarMessage = z.infer<typeof BarMessage>;

export const Candle = z.object({
  timestamp: IsoDateTime.describe('bar open time, UTC'),
  open: z.number(),
  high: z.number(),
  low: z.number(),
  close: z.number(),
  volume: z.number(),
});
export type Candle = z.infer<typeof Candle>;

export const MAX_ROWS = 5000;

/** Query of GET /ohlc and GET /ticks. */
export const MarketQuery = z.object({
  symbol: Symbol.default('EURUSD'),
  timeframe: Timeframe.default('15min'),
  start: IsoDate.optional().describe('first UTC day included'),
  end: IsoDate.optional().describe('last UTC day included'),
  limit: z.coerce.number().int().min(1).max(MAX_ROWS).default(1000),
});
export type MarketQuery = z.infer<typeof MarketQuery>;
