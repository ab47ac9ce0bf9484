import { z } from 'zod';
import { IsoDate, IsoDateTime, Symbol, Timeframe } from './common.ts';

/** Where a series comes from. Every response built on market data carries it. */
export const DataSource = z
  .enum(['synthetic', 'import', 'live'])
  .describe('synthetic = our seeded generator (not real prices); import = files you imported; live = a feed (NATS, Kafka, broker)');
export type DataSource = z.infer<typeof DataSource>;

/**
 * A tick as it travels on NATS `ticks.<SYMBOL>` and Kafka: epoch ms, bid, ask, optional volumes.
 * A crossed quote (ask below bid) is valid: vendors really publish them (FXCM: 10 % of its
 * EURUSD ticks) and their own bars include them; bars use the bid, the spread may be negative.
 */
export const TickMessage = z.object({
  ts: z.number().int().positive().describe('epoch milliseconds, UTC'),
  bid: z.number().positive().finite(),
  ask: z.number().positive().finite().describe('may be below bid (a crossed quote, real in vendor feeds)'),
  bid_volume: z.number().nonnegative().finite().optional(),
  ask_volume: z.number().nonnegative().finite().optional(),
});
export type TickMessage = z.infer<typeof TickMessage>;

/**
 * A tick publisher's clock for one symbol, told on `feeds.clock.<SYMBOL>` (core NATS) every half
 * second: every tick of the symbol it was handed before `until` is stored in TICKS already (it is
 * told only once those publishes were acknowledged).
 * Ingest closes a quiet symbol's bars by the least clock of its publishers instead of its own, so
 * a publisher held up on its way to the stream (a NATS node failing over) is not a quiet market.
 */
export const TickClock = z.object({
  publisher: z.string().min(1).max(128).describe('one publisher, for as long as it runs (feed name and a random suffix)'),
  until: z.number().finite().describe("epoch ms by the feed's own clock (a replay's market time)"),
});
export type TickClock = z.infer<typeof TickClock>;

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
  spread: z.number().describe('ask − bid at the bar open (the spread a fill at the open pays); negative for a crossed quote'),
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

/** The synthetic generator's whole state: enough to continue and produce exactly the same ticks. */
export const GeneratorState = z.object({
  ts: z.number().describe('time of the last event (a tick, or an hour boundary), epoch ms'),
  nextTs: z.number().nullable().describe('the next arrival once drawn, so pieces draw what one go would'),
  lastTickTs: z.number(),
  seq: z.number().int(),
  pendingGap: z.number().describe('a weekend gap waiting for the first tick after the reopen'),
  logPrice: z.number(),
  lnVol: z.number().describe('log volatility multiplier: mean-reverting, so calm and stormy spells cluster'),
  regime: z.union([z.literal(-1), z.literal(0), z.literal(1)]).describe('0 range (pulled to anchor), ±1 trend'),
  drift: z.number(),
  anchor: z.number(),
  regimeCheckedAt: z.number().describe('start of the hour the regime was last reconsidered'),
  rng: z.tuple([z.number(), z.number(), z.number(), z.number()]),
});
export type GeneratorState = z.infer<typeof GeneratorState>;

/** Checkpoints of a symbol's synthetic series at hour boundaries (KV `sf_synthetic`). */
export const SyntheticCheckpoint = z.object({
  symbol: Symbol,
  seed: z.string(),
  hour: z.number().describe('the hour start the state belongs to'),
  state: GeneratorState,
  /** The checkpoint an hour earlier: a restart regenerates from here, so the bars of the hour
   *  in flight when the service stopped are rebuilt whole. */
  previous: z.object({ hour: z.number(), state: GeneratorState }).nullable(),
});
export type SyntheticCheckpoint = z.infer<typeof SyntheticCheckpoint>;

/** `source` of a response: the one source of all its rows, or `mixed`. */
export const ResponseSource = z
  .enum(['synthetic', 'import', 'live', 'mixed', 'none'])
  .describe('Where the rows come from: synthetic = generated by our seeded model, not real prices; none = no rows');
export type ResponseSource = z.infer<typeof ResponseSource>;

export const OhlcResponse = z
  .object({
    symbol: Symbol,
    timeframe: Timeframe,
    source: ResponseSource,
    count: z.number().int(),
    candles: z.array(Candle).describe('Oldest first'),
  })
  .meta({ id: 'OhlcResponse' });
export type OhlcResponse = z.infer<typeof OhlcResponse>;

export const TickRow = z.object({
  timestamp: IsoDateTime,
  bid: z.number(),
  ask: z.number(),
  volume: z.number().describe('summed bid+ask volume where the source gives one, else 0'),
});

export const TicksResponse = z
  .object({
    symbol: Symbol,
    source: ResponseSource,
    count: z.number().int(),
    ticks: z.array(TickRow).describe('Oldest first'),
  })
  .meta({ id: 'TicksResponse' });
export type TicksResponse = z.infer<typeof TicksResponse>;

export const TICK_FILE_FORMATS = ['dukascopy', 'histdata', 'truefx', 'csv'] as const;

/** What `signalforge import-ticks` asks a running service to import (NATS `market.import`). */
export const ImportRequest = z.object({
  symbol: Symbol,
  format: z.enum(TICK_FILE_FORMATS),
  files: z.array(z.string().min(1)).min(1).describe('absolute paths, readable by the service'),
});
export type ImportRequest = z.infer<typeof ImportRequest>;

export const ImportFileReport = z.object({
  file: z.string(),
  rows: z.number().int(),
  imported: z.number().int(),
  badCount: z.number().int(),
  bad: z.array(z.object({ line: z.number().int(), reason: z.string(), text: z.string() })),
  firstTs: z.number().nullable(),
  lastTs: z.number().nullable(),
});

export const ImportResult = z.object({
  symbol: Symbol,
  files: z.array(ImportFileReport),
  /** The span whose bars were rebuilt from the stored ticks (whole hours), or null. */
  rebuilt: z.object({ fromMs: z.number(), toMs: z.number() }).nullable(),
  ticksInSpan: z.number().int().describe('distinct ticks stored in the rebuilt span after the import'),
  error: z.string().optional(),
});
export type ImportResult = z.infer<typeof ImportResult>;
