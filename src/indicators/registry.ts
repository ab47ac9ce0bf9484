import { INDICATOR_NAMES, type IndicatorName, type IndicatorRules, type IndicatorSchema } from '../../schemas/indicators.ts';
import { atr } from './atr.ts';
import { bollinger } from './bollinger.ts';
import { COLUMN_NAMING } from './define.ts';
import { ema } from './ema.ts';
import { macd } from './macd.ts';
import { RSI_SEED_TOLERANCE, SEED_TOLERANCE } from './math.ts';
import { rsi } from './rsi.ts';
import { sma } from './sma.ts';
import { stochastic } from './stochastic.ts';
import type { Indicator } from './types.ts';
import { wma } from './wma.ts';

/** Every built-in indicator by name; the type makes the registry cover exactly the names in schemas/. */
export const INDICATORS: Readonly<Record<IndicatorName, Indicator>> = { sma, ema, wma, bb: bollinger, rsi, macd, stoch: stochastic, atr };

/** In the one fixed order used for parsed lists, computed columns and generated code. */
export const INDICATOR_LIST: readonly Indicator[] = INDICATOR_NAMES.map((name) => INDICATORS[name]);

/** What the indicators-object parser checks against (names, params, bounds, constraints). */
export const INDICATOR_RULES: readonly IndicatorRules[] = INDICATOR_LIST.map((i) => i.info);

const SCHEMA: IndicatorSchema = {
  count: INDICATOR_LIST.length,
  indicators: INDICATOR_LIST.map((i) => i.info),
  keys:
    '`<indicator>_enabled: true` enables an indicator; when that key is absent, giving any `<indicator>_<param>` ' +
    'enables it too; `<indicator>_enabled: false` leaves it out. Parameters not given take their defaults. ' +
    'POST /api/v1/indicators refuses unknown keys and values out of bounds (400, naming the key).',
  column_naming: COLUMN_NAMING,
  warmup:
    'Each column is NaN (null in JSON) for its first `warmup` bars and exact after them: a window indicator needs ' +
    'its first full window; a recursive one (EMA, RSI, MACD, ATR: pandas ewm with adjust=False, seeded with the ' +
    `first value) needs the bars after which the seed weighs less than ${SEED_TOLERANCE} relative (${RSI_SEED_TOLERANCE} for RSI), ` +
    'so values no longer depend on where the history starts (to within 1e-9 on forex prices). ' +
    'POST /api/v1/indicators computes over the requested bars plus this many ' +
    'earlier ones; generated strategies drop these rows before training.',
};

/** Body of GET /api/v1/indicator-schema. */
export function indicatorSchema(): IndicatorSchema {
  return SCHEMA;
}
