import { z } from 'zod';
import { IsoDateTime } from './common.ts';

/**
 * The position engine's data: trade statistics (the contract's TradeStats), the trade log the
 * results API serves, the execution settings of a train request, and the engine's snapshot (what
 * a live model actor stores to resume exactly where it stopped). Rules: src/backtest/index.ts.
 */

export const ExitReason = z
  .enum(['SL', 'TP', 'signal', 'end'])
  .describe(
    'SL stop-loss, TP take-profit, signal = closed by an opposite signal (on_opposite), end = still open at the last bar, closed at its close',
  );
export type ExitReason = z.infer<typeof ExitReason>;

export const Side = z.enum(['long', 'short']).describe('long = bought first, short = sold first');
export type Side = z.infer<typeof Side>;

export const RiskUnit = z
  .enum(['pips', 'usd', 'pct'])
  .describe(
    'Unit of stop_loss / take_profit. pips: distance = value × pip size (0.0001; 0.01 for JPY pairs; 1 for BTCUSD). ' +
      'usd: the distance at which this position (lot_size) loses (stop) or gains (take) exactly that many USD before costs. ' +
      'pct: distance = value × entry price, value a fraction (0.005 = 0.5 %)',
  );
export type RiskUnit = z.infer<typeof RiskUnit>;

export const Intrabar = z
  .enum(['finer', 'stop_first'])
  .describe(
    'When one bar reaches both stop-loss and take-profit. finer: the 1-minute bars inside it decide which came first — the first ' +
      'one to reach a level (or to open beyond one) names it; a 1-minute bar reaching both from an open between them, or no finer ' +
      'data, counts as stop first; the fill is the level either way. stop_first: always the stop (conservative)',
  );
export type Intrabar = z.infer<typeof Intrabar>;

/**
 * TradeStats, exactly the contract's fields. Nothing is rounded. Money figures are net: after
 * commission and swap.
 */
export const TradeStats = z
  .object({
    n: z.number().int().min(0).describe('Number of closed trades'),
    wins: z.number().int().min(0).describe('Trades with net P&L > 0'),
    losses: z.number().int().min(0).describe('Trades with net P&L < 0 (a trade of exactly 0 is neither)'),
    wr: z.number().min(0).max(1).describe('Win rate: wins / n, 0 to 1; 0 when n = 0'),
    ret: z.number().describe('Total return, decimal: np / capital (0.12 = +12 %)'),
    pf: z
      .number()
      .min(0)
      .describe('Profit factor: sum of winning P&L / |sum of losing P&L|; with no losing trade 999 if there is a win, else 0'),
    rr: z.number().min(0).describe('Average win / |average loss| (net USD); with no losing trade 999 if there is a win, else 0'),
    expect: z.number().describe('Expectancy, USD per trade: np / n; 0 when n = 0'),
    mdd: z
      .number()
      .max(0)
      .describe(
        'Max drawdown, signed decimal ≤ 0: the minimum over k of (E_k − max(E_0..E_k)) / capital, where E_0 = capital and ' +
          'E_k = capital + net P&L of the first k trades in exit order (closed-trade equity); 0 when n = 0',
      ),
    np: z.number().describe('Net profit, USD: sum of trade P&L after commission and swap'),
    avg: z.number().describe('Mean per-trade return, pnl / capital (decimal); 0 when n = 0'),
    best: z.number().describe('Largest per-trade return, pnl / capital; 0 when n = 0'),
    worst: z.number().describe('Smallest per-trade return, pnl / capital; 0 when n = 0'),
  })
  .meta({ id: 'TradeStats' });
export type TradeStats = z.infer<typeof TradeStats>;

/** One closed trade as the results API serves it. Nothing is rounded. */
export const Trade = z.object({
  side: Side,
  entry_time: IsoDateTime.describe('Open time of the entry bar: the bar after the signal, filled at its open'),
  exit_time: IsoDateTime.describe(
    'Open time of the bar the exit happened in: signal = filled at its open; SL/TP = the bar that reached the level; end = the last bar, filled at its close',
  ),
  entry_price: z.number().describe('Fill price (bid; the ask = open + spread for a long when fill_at_bid_ask)'),
  exit_price: z
    .number()
    .describe(
      'Fill price: the level, or the bar open when the bar opened beyond it (gap); closing a short pays the ask when fill_at_bid_ask',
    ),
  lots: z.number().describe('Position size in standard lots'),
  units: z.number().describe('lots × 100,000 (BTCUSD: lots × 1)'),
  exit_reason: ExitReason,
  pips: z.number().describe('Signed price move in the trade direction / pip size (0.0001; 0.01 JPY pairs; 1 BTCUSD)'),
  gross_pnl: z
    .number()
    .describe('USD before costs: units × (exit − entry) × (+1 long, −1 short), ÷ exit price for USD-based pairs (USDJPY, USDCHF, USDCAD)'),
  commission: z.number().min(0).describe('USD, both sides: commission per lot × lots × 2'),
  swap: z.number().describe('USD, signed (negative = paid): nights × swap_long or swap_short × lots'),
  pnl: z.number().describe('Net USD: gross_pnl − commission + swap'),
  bars_held: z
    .number()
    .int()
    .min(0)
    .describe('Bars the position was open in, the entry bar included; the bar of a signal exit (closed at its open) not counted'),
  margin: z
    .number()
    .nullable()
    .describe(
      'Required margin in USD: notional at entry / leverage (notional = units × entry price, or units for USD-based pairs); null when no leverage was given',
    ),
  // Defaults: results stored before the levels were recorded still parse (their trades say null).
  stop_loss: z
    .number()
    .nullable()
    .default(null)
    .describe(
      'The stop level the position had at its exit — with a trailing stop, where it had trailed to (a price; for a short under fill_at_bid_ask, an ask price); null = no stop',
    ),
  take_profit: z.number().nullable().default(null).describe('The take-profit level the position had (a price); null = none'),
});
export type Trade = z.infer<typeof Trade>;

/** Largest stop or take distance in pips or USD: far beyond any real level, small enough to compute with. */
export const MAX_RISK_DISTANCE = 1_000_000;

/** A stop or take in `pct` is a fraction of the entry price: 1 (100 %) at most. */
export const riskUnitBounds = (
  s: { risk_unit?: RiskUnit; stop_loss?: number | null; take_profit?: number | null },
  ctx: z.RefinementCtx,
) => {
  if (s.risk_unit !== 'pct') return;
  for (const field of ['stop_loss', 'take_profit'] as const) {
    const value = s[field];
    if (typeof value === 'number' && value > 1)
      ctx.addIssue({
        code: 'custom',
        path: [field],
        message: `with risk_unit pct, ${field} is a fraction of the price: at most 1 (100 %), got ${value}`,
      });
  }
};

/**
 * The money fields of a train request, with their defaults. A plain object, so the request (and
 * the stored model settings) can spread `ExecutionSettings.shape`.
 */
export const ExecutionSettings = z.object({
  capital: z
    .number()
    .gt(0)
    .max(1e9)
    .default(10_000)
    .describe('Account balance in USD: equity starts here; ret, mdd and per-trade returns are relative to it'),
  lot_size: z
    .number()
    .gt(0)
    .max(1000)
    .default(1)
    .describe('Position size in standard lots: 1 lot = 100,000 units (BTCUSD: 1 unit). Every position has this size'),
  leverage: z
    .number()
    .gt(0)
    .max(10_000)
    .optional()
    .describe('Margin only (margin = notional / leverage on each trade); does not multiply P&L. Omitted: margin is null'),
  commission: z.number().min(0).max(10_000).default(0).describe('USD per lot per side: charged on every entry and every exit'),
  swap_long: z
    .number()
    .min(-10_000)
    .max(10_000)
    .default(0)
    .describe(
      'USD per lot per night a long is held (negative = a charge, positive = a credit). A night = each 17:00 New York rollover ' +
        'with entry_time < rollover ≤ exit_time, Monday to Friday, Wednesday counting 3 (BTCUSD: every day, 1 each)',
    ),
  swap_short: z.number().min(-10_000).max(10_000).default(0).describe('Same as swap_long, for shorts'),
  risk_unit: RiskUnit.default('pips'),
  stop_loss: z
    .number()
    .gt(0)
    .max(MAX_RISK_DISTANCE)
    .nullable()
    .optional()
    .describe(
      "Stop-loss magnitude in risk_unit, from each position's own entry price. A number overrides strategy_config stop_loss " +
        `(a decimal ratio, applied as pct); null disables the stop. At most ${MAX_RISK_DISTANCE.toLocaleString('en')} (pips or USD); with pct at most 1`,
    ),
  take_profit: z
    .number()
    .gt(0)
    .max(MAX_RISK_DISTANCE)
    .nullable()
    .optional()
    .describe('Take-profit magnitude in risk_unit; same rules and bounds as stop_loss'),
  fill_at_bid_ask: z
    .boolean()
    .default(false)
    .describe(
      'false: every fill at the bid bar prices. true: longs buy at the ask (open + spread) and sell at the bid; shorts sell at the ' +
        "bid and buy back at the ask (price + the bar's spread), their stop and take checked against the ask",
    ),
  intrabar: Intrabar.default('finer'),
});
export type ExecutionSettings = z.infer<typeof ExecutionSettings>;
export const ExecutionSettingsShape = ExecutionSettings.shape;

/** A point of the equity curve the results API serves. */
export const EquityPoint = z.object({
  time: IsoDateTime.describe('Bar open time'),
  equity: z
    .number()
    .describe(
      'Account equity in USD at the bar close: capital + closed net P&L + open positions marked to market at the close (longs at the bid; shorts at the ask = close + spread under fill_at_bid_ask), less their entry commission, with their swap so far',
    ),
});
export type EquityPoint = z.infer<typeof EquityPoint>;

/** A point of the drawdown series (same bars as the equity curve). */
export const DrawdownPoint = z.object({
  time: IsoDateTime.describe('Bar open time'),
  drawdown: z.number().max(0).describe('(equity − running peak of equity, starting at capital, over every bar so far) / capital, ≤ 0'),
});
export type DrawdownPoint = z.infer<typeof DrawdownPoint>;

/** A closed trade as the engine keeps it: numbers only (epoch ms, ±1), converted to `Trade` when served. */
export const ClosedTrade = z.object({
  side: z.union([z.literal(1), z.literal(-1)]).describe('1 long, -1 short'),
  entryTs: z.number().describe('Entry bar open time, epoch ms'),
  exitTs: z.number().describe('Exit bar open time, epoch ms (see Trade.exit_time)'),
  entryPrice: z.number().describe('Fill price (see Trade.entry_price)'),
  exitPrice: z.number().describe('Fill price (see Trade.exit_price)'),
  lots: z.number().describe('Standard lots'),
  units: z.number().describe('lots × contract size (100,000; BTCUSD 1)'),
  reason: ExitReason,
  pips: z.number().describe('Signed move in pips (see Trade.pips)'),
  grossPnl: z.number().describe('USD before costs'),
  commission: z.number().describe('USD, both sides, ≥ 0'),
  swap: z.number().describe('USD, signed'),
  pnl: z.number().describe('Net USD = grossPnl − commission + swap'),
  barsHeld: z.number().int().describe('See Trade.bars_held'),
  nights: z.number().int().describe('Swap nights charged (Wednesday counts 3)'),
  notional: z.number().describe('USD notional at entry: units × entry price, or units for USD-based pairs'),
  // Defaults: trades stored before the levels were kept (snapshots, live trades) still parse.
  stopLoss: z.number().nullable().default(null).describe('The stop level the position had; null = none'),
  takeProfit: z.number().nullable().default(null).describe('The take-profit level the position had; null = none'),
});
export type ClosedTrade = z.infer<typeof ClosedTrade>;

/** An open position inside a snapshot. A missing level (no stop / no take, or never reachable) is null. */
export const OpenPositionState = z.object({
  entryTs: z.number().describe('Entry bar open time, epoch ms'),
  entryPrice: z.number().describe('Fill price'),
  stopLoss: z.number().nullable().describe('Stop level (for a short with fill_at_bid_ask, an ask price); null = none'),
  takeProfit: z.number().nullable().describe('Take-profit level; null = none'),
  barsHeld: z.number().int().min(0).describe('Bars open in so far, the entry bar included'),
  nights: z.number().int().min(0).describe('Swap nights accrued so far'),
  // Optional: snapshots from before the trailing stop still restore (the best then starts at the entry).
  best: z
    .number()
    .optional()
    .describe(
      "Best price since entry (longs the highest bid high, shorts the lowest low at the stop check's price); kept when the engine trails",
    ),
});
export type OpenPositionState = z.infer<typeof OpenPositionState>;

/**
 * Everything the engine carries from one bar to the next, as plain JSON. A live actor stores it
 * after each bar; restoring it and stepping on gives exactly the trades of an uninterrupted run.
 */
export const EngineSnapshot = z.object({
  version: z.literal(1),
  bars: z.number().int().min(0).describe('Bars stepped so far (the engine clock cooldown counts on)'),
  lastTs: z.number().nullable().describe('Open time of the last bar stepped; null before the first'),
  pendingSignal: z.union([z.literal(-1), z.literal(0), z.literal(1)]).describe('Signal of the last bar, acted on at the next open'),
  pendingMask: z
    .number()
    .int()
    .min(0)
    .max(15)
    .describe('Mask that came with it (bit 1 long may open, bit 2 short may open, bit 4 close longs, bit 8 close shorts)'),
  side: z.union([z.literal(-1), z.literal(0), z.literal(1)]).describe('Side of the open positions; 0 when flat'),
  positions: z.array(OpenPositionState).describe('Open positions, oldest first'),
  blockedThrough: z.number().int().describe('Cooldown: no entry at bars (engine clock) ≤ this'),
  nextRollover: z.number().nullable().describe('The next swap rollover (epoch ms) after lastTs; null before the first bar'),
  realized: z.number().describe('Net USD P&L of every trade closed so far'),
  closed: z.array(ClosedTrade).describe('Closed trades not yet drained'),
  // Optional: snapshots from before the ATR trailing stop still restore (the ATR then starts again).
  atr: z
    .object({ value: z.number(), prevClose: z.number() })
    .optional()
    .describe("ATR trailing stop: the ATR after lastTs and that bar's close"),
});
export type EngineSnapshot = z.infer<typeof EngineSnapshot>;
