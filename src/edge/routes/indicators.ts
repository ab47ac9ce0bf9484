import { z } from 'zod';
import { computeIndicators, featureColumns, formatIndicatorData, IndicatorsRequest, warmupBars } from '../../indicators/index.ts';
import type { MarketData } from '../../market/index.ts';
import { describeSources } from '../../market/ohlc-query.ts';
import { IndicatorColumnsData, IndicatorFormat, IndicatorRowsData } from '../../../schemas/indicators.ts';
import { ResponseSource } from '../../../schemas/market.ts';
import { Symbol, Timeframe } from '../../../schemas/common.ts';
import { plainJsonSerializer } from '../plugins/fast-serializer.ts';
import { isoFromMs } from '../../lib/iso-time.ts';
import type { App } from '../types.ts';

const IndicatorsResponse = z
  .object({
    symbol: Symbol,
    timeframe: Timeframe,
    source: ResponseSource,
    format: IndicatorFormat,
    count: z.number().int(),
    warmup: z.number().int().describe('Bars computed before the first returned one, so that it is exact'),
    columns: z.array(z.string()).describe('Feature column names, as generated strategy code names them'),
    data: z.union([IndicatorColumnsData, IndicatorRowsData]),
  })
  .meta({ id: 'IndicatorsResponse' });

export function indicatorRoutes(app: App, { market }: { market: MarketData }): void {
  app.post('/api/v1/indicators', {
    config: { auth: 'key' },
    ...plainJsonSerializer,
    schema: {
      tags: ['market'],
      summary: 'Built-in indicators on OHLC, without training',
      description:
        'Computes the enabled indicators on the newest `limit` bars, each with its full warm-up history behind ' +
        'it, so the first returned row is exact rather than NaN (null only when the series itself is shorter). ' +
        'Values are rounded to 10 decimal places. Keys and columns are listed by GET /api/v1/indicator-schema; ' +
        'unknown keys answer 400 naming them.',
      body: IndicatorsRequest,
      response: { 200: IndicatorsResponse },
    },
    handler: async (request) => {
      const { indicators, symbol, timeframe, format, limit } = request.body;
      const warmup = warmupBars(indicators);
      const series = await market.cache.get(symbol, timeframe);
      const c = series.columns();
      const end = series.length;
      const from = Math.max(0, end - limit - warmup);
      const ohlc = {
        open: c.open.subarray(from, end),
        high: c.high.subarray(from, end),
        low: c.low.subarray(from, end),
        close: c.close.subarray(from, end),
      };
      const skip = Math.max(0, end - from - limit);
      // Only returned rows need their time as text; warm-up rows are computed, never shown.
      const timestamps = new Array<string>(end - from).fill('', 0, skip);
      let sources = 0;
      for (let i = from + skip; i < end; i++) timestamps[i - from] = isoFromMs(c.ts[i]!);
      for (let i = from + skip; i < end; i++) sources |= 1 << c.source[i]!;
      return {
        symbol,
        timeframe,
        source: describeSources(sources),
        format,
        count: end - from - skip,
        warmup,
        columns: featureColumns(indicators),
        data: formatIndicatorData(format, timestamps, computeIndicators(ohlc, indicators), skip),
      };
    },
  });
}
