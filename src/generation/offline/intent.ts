/**
 * What the offline generator understood from a generate request: the parsed intent. Every
 * setting records where it came from, so the code's header comment can say why it holds that
 * value, and the conflicts that were resolved are kept as remarks.
 */
import type { Symbol, Timeframe } from '../../../schemas/common.ts';
import type { IndicatorRequest } from '../../../schemas/indicators.ts';
import type { GenName } from './gen-indicators.ts';
import type { ModelType, StrategyConfig, TrailingStop, Weekday } from '../../../schemas/strategy.ts';

/** Where a value came from: a request field, the template it stands for, or our default. */
export type Source =
  'default' | 'description' | 'features' | 'signals' | 'model' | 'optimization' | 'risk' | 'risk_function' | 'indicators' | 'pos_rules';

/** The natural-language fields of a generate request, in the order they are read. */
export const TEXT_FIELDS = ['description', 'features', 'signals', 'model', 'optimization', 'risk', 'risk_function'] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

/** One resolved setting: its value, the field it came from and the words that said so. */
export interface Setting<T> {
  value: T;
  from: Source;
  /** The words of the request that set it (absent for defaults and structured fields). */
  phrase?: string;
}

/** A stop or take level as asked, and the decimal ratio strategy_config carries. */
export interface RiskLevel {
  /** Decimal ratio of the entry price (0.005 = 0.5 %), within the schema's (0, 0.2]. */
  ratio: number;
  /** The amount as asked, e.g. 20 with unit `pips`; `ratio` for a bare ratio or a default. */
  amount: number;
  unit: 'pips' | 'pct' | 'usd' | 'atr' | 'ratio' | 'rr';
  /** The same distance in pips at the symbol's typical price (for the comments). */
  pips: number;
}

/** A trailing stop as strategy_config carries it (the position engine trails it exactly), and in words. */
export interface TrailLevel {
  config: NonNullable<TrailingStop>;
  /** The distance, e.g. "2 x ATR(14)", "1%" (of the best price), "30 pips". */
  label: string;
}

/** One indicator instance the strategy computes. */
export interface Instance {
  name: GenName;
  params: Record<string, number>;
}

/** An operand of a condition: a registry column (by its output index), the close, or a number. */
export type Operand =
  | { kind: 'column'; instance: number; output: number }
  | { kind: 'price' }
  | { kind: 'value'; value: number }
  /** The other side's own rolling mean over `window` bars ("RSI above its 50-bar average"). */
  | { kind: 'avg'; window: number };

/** rising / falling: the left side against its value one bar before (the right side is unused). */
/** touch: the bar's range reaches the right side (high at or above it, low at or below it). */
export type Relation = 'above' | 'below' | 'cross_up' | 'cross_down' | 'cross' | 'rising' | 'falling' | 'touch';

/** A distance as asked: in ATR(14)s, percent of price or pips. */
export type LevelUnit = 'atr' | 'pct' | 'pips';

/** A derived condition feature. Instances are indices into the intent's `instances`. */
export type Condition =
  | { kind: 'compare'; left: Operand; relation: Relation; right: Operand }
  | { kind: 'band'; instance: number; where: 'outside' | 'above_upper' | 'below_lower' | 'inside' }
  | { kind: 'breakout'; window: number }
  | { kind: 'momentum'; window: number }
  /** A pattern indicator's column as it is (engulfing, pin bar: +1 / -1; inside bar 1; its breakout +1 / -1). */
  | { kind: 'pattern'; instance: number; output: number }
  /** A close beyond a channel's upper line (+1) or lower line (-1): a Keltner or Bollinger breakout. */
  | { kind: 'channel'; instance: number }
  /** "price more than 2 ATR above the 50 EMA": left beyond base ± amount (atr: the ATR instance). */
  | {
      kind: 'offset';
      left: Operand;
      relation: 'above' | 'below';
      base: Operand;
      amount: number;
      unit: LevelUnit;
      atr: number | null;
      within: boolean;
    }
  /** "within 10 pips of the pivot": |left − base| ≤ amount. */
  | { kind: 'near'; left: Operand; base: Operand; amount: number; unit: LevelUnit; atr: number | null };

/** What a condition is for: an entry the model learns from, an exit rule, or a filter on entries. */
export type Role = 'entry' | 'exit' | 'filter';

/** A condition with the side it was asked for (buy/sell words nearby), its role and source field. */
export interface ConditionSpec {
  condition: Condition;
  side: 'long' | 'short' | null;
  from: Source;
  role: Role;
  /** A filter that forbids ("unless", "no trades when"): entries only where it does not hold. */
  negate?: boolean;
  /** The words it came from. */
  phrase?: string;
  /** Read by the generator, not written by the trader (the default set, bands named without a rule, a mirrored side): never an entry rule of its own. */
  inferred?: boolean;
  /** The statement it was read in (field and clause part) and whether that statement is an alternative ("or") to the one before. */
  stmt?: string;
  orJoin?: boolean;
}

/** One condition of an entry rule: its column and where the rule holds (signed columns: > 0 up, < 0 down). */
export interface RuleTerm {
  name: string;
  sense: 'pos' | 'neg' | 'nonzero';
}

/** An entry rule: any of the groups, each group all of its terms ("and" → all, "or" → any). */
export type EntryRule = RuleTerm[][];

/** The columns built from the conditions' roles: the entry gate (filters) and the exit rules per side. */
export interface RoleColumns {
  /** Filter condition names; `negate`: entries only where it does NOT hold. */
  gate: ReadonlyArray<{ name: string; negate: boolean }>;
  exitLong: readonly string[];
  exitShort: readonly string[];
  /** The trader's entry rules per side (strategy_config entry_long / entry_short); null = no rule for that side. */
  entryLong?: EntryRule | null;
  entryShort?: EntryRule | null;
}

/** Something asked that the strategy model expresses only approximately, and how. */
export interface Approximation {
  asked: string;
  done: string;
  why: string;
}

export type ModelParams = Record<string, number | string | boolean | null>;

export type Style = 'momentum' | 'mean-reversion' | 'breakout' | 'trend' | 'scalping' | 'mixed';

export interface StrategyIntent {
  symbol: Symbol;
  timeframe: Timeframe;
  /** The indicators computed, deduplicated, in registry order (what `pandasCode` receives). */
  indicators: IndicatorRequest[];
  /** Indicator instances, conditions refer to them by index (same order as `indicators`). */
  instances: Instance[];
  conditions: ConditionSpec[];
  /** Every column feature_engineering adds, in the order it adds them. */
  features: string[];
  direction: Setting<'both' | 'long' | 'short'>;
  session: Setting<{ hours: [number, number] | null; label: string }>;
  stopLoss: Setting<RiskLevel | null>;
  takeProfit: Setting<RiskLevel | null>;
  /** strategy_config trailing_stop: the stop follows the best price since entry (never looser). */
  trailingStop: Setting<TrailLevel | null>;
  cooldown: Setting<number>;
  maxPositions: Setting<number>;
  onOpposite: Setting<'reverse' | 'close_only' | 'ignore'>;
  /** A feature column name (an SMA/EMA/WMA column): longs only above it, shorts only below. */
  trendFilter: Setting<string | null>;
  /** Minimum NATR(14) in percent for entries. */
  minAtr: Setting<number | null>;
  /** UTC days on which no entry opens (strategy_config skip_days). */
  skipDays: Setting<Weekday[]>;
  /** The columns whose > 0 closes longs / shorts at the next open (exit rules, indicator targets and stops). */
  exitLong: string | null;
  exitShort: string | null;
  /** The entry rule columns (strategy_config entry_long / entry_short), null where that side has no rule. */
  entryLong: string | null;
  entryShort: string | null;
  /** The entry rules in words, per side (null: none). */
  entryRuleWords: { long: string | null; short: string | null };
  /** The column entries need > 0 (the product of the filters), or null. */
  entryGate: string | null;
  /** The condition columns behind the gate and the exits (what planFeatures builds them from). */
  roles: RoleColumns;
  approximations: Approximation[];
  model: Setting<{ type: ModelType; params: ModelParams }>;
  targetHorizon: Setting<number>;
  threshold: Setting<number>;
  style: Style;
  title: string;
  objective: string;
  notes: string;
  /** Decisions worth telling the user: conflicts resolved, values clamped, words not understood. */
  remarks: string[];
  /**
   * What the coverage check found named or worded but neither expressed nor said (coverage.ts);
   * each is said in a remark ("not in a rule…"), so nothing is dropped in silence.
   */
  uncovered: Array<{ field: string; what: string; kind: 'indicator' | 'condition' }>;
  /** Exactly what the generated strategy_config() returns. */
  config: StrategyConfig;
}
