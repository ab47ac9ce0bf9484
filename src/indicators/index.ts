/**
 * The built-in indicators: one registry feeding the TS computation (POST /indicators), the pandas
 * code generated strategies embed, and GET /indicator-schema.
 *
 * POST /indicators, in order: body via `IndicatorsRequest` (or `parseIndicatorsObject`) → list;
 * `w = warmupBars(list)`; load the newest `limit + w` bars; `computeIndicators(ohlcColumns(bars), list)`;
 * `formatIndicatorData(format, timestamps, columns, bars.length - limit)` (when fewer bars exist, the
 * first rows fall in the warm-up and come out null).
 */
import { indicatorsInput, indicatorsRequest, parseIndicators, type IndicatorRequest } from '../../schemas/indicators.ts';
import { BadRequestError } from '../errors.ts';
import { INDICATOR_RULES } from './registry.ts';

export { computeIndicators, featureColumns, ohlcColumns, pandasCode, warmupBars, type NamedColumns } from './compute.ts';
export { formatIndicatorData, toColumns, toRows } from './output.ts';
export { INDICATORS, INDICATOR_LIST, INDICATOR_RULES, indicatorSchema } from './registry.ts';
export { RSI_SEED_TOLERANCE, SEED_TOLERANCE } from './math.ts';
// The rules Pine's ta.* built-ins share with the registry (src/pine), so the twins give the same numbers.
export {
  ewmStep,
  givenAlpha,
  rsiValue,
  RunningExtreme,
  spanAlpha,
  stochK,
  trueRange,
  windowMax,
  windowMean,
  windowMin,
  windowStd,
  windowWma,
} from './math.ts';
export { columnJson, indicatorColumns } from './series-memo.ts';
export { formatParamValue } from './define.ts';
export type { Indicator, Ohlc } from './types.ts';

/** The strict indicators object (unknown keys refused), parsed into the list of enabled indicators. */
export const IndicatorsInput = indicatorsInput(INDICATOR_RULES);

/** Body of POST /api/v1/indicators: indicators (strict), symbol, timeframe, format, limit. */
export const IndicatorsRequest = indicatorsRequest(INDICATOR_RULES);

/** Parses an indicators object; a 400 naming every unknown key and bad value otherwise. */
export function parseIndicatorsObject(input: unknown): IndicatorRequest[] {
  const result = parseIndicators(input, INDICATOR_RULES);
  if (result.ok) return result.indicators;
  throw new BadRequestError(`invalid indicators: ${result.issues.map((i) => (i.key ? `${i.key}: ${i.message}` : i.message)).join('; ')}`);
}
