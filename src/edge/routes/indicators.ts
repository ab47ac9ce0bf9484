import { z } from 'zod';
import { featureColumns, formatIndicatorData, IndicatorsRequest, warmupBars } from '../../indicators/index.ts';
import { columnJson, indicatorColumns } from '../../indicators/index.ts';
import type { BarSeries, MarketData } from '../../market/index.ts';
import { sourceMix } from '../../market/index.ts';
import { IndicatorsResponse } from '../../../schemas/indicators.ts';
import { plainJsonSerializer, sendJsonText } from '../plugins/fast-serializer.ts';
import { isoFromMs } from '../../lib/iso-time.ts';
import type { App } from '../types.ts';
import { ResponseCache } from '../response-cache.ts';

export function indicatorRoutes(app: App, { market }: { market: MarketData }): void {
  const responses = new ResponseCache();
  app.post('/api/v1/indicators', {
    config: { auth: 'key' },
    ...plainJsonSerializer,
    schema: {
      tags: ['market'],
      summary: 'Built-in indicators on OHLC, without training',
      description:
        'The enabled indicators on the newest `limit` bars, computed over the series’ whole history (kept and ' +
        'extended bar by bar), so the first returned row is exact rather than NaN (null only where the series ' +
        'itself is shorter than the warm-up). ' +
        'Values are rounded to 10 decimal places. Keys and columns are listed by GET /api/v1/indicator-schema; ' +
        'unknown keys answer 400 naming them.',
      body: IndicatorsRequest,
      response: { 200: IndicatorsResponse },
    },
    handler: async (request, reply) => {
      const { body } = request;
      const series = await market.cache.get(body.symbol, body.timeframe);
      const key = `${body.symbol}/${body.timeframe}|${body.format}|${body.limit}|${JSON.stringify(body.indicators)}`;
      return sendJsonText<IndicatorsResponse>(
        reply,
        responses.get(key, series.stamp, () => indicatorsJson(series, body)),
      );
    },
  });
}

/** The response as JSON text, joined from the memo's per-value text. */
function indicatorsJson(series: BarSeries, { indicators, symbol, timeframe, format, limit }: z.infer<typeof IndicatorsRequest>): string {
  const end = series.length;
  const from = Math.max(0, end - limit);
  const memo = indicatorColumns(series, indicators);
  const names = featureColumns(indicators);
  const c = series.columns();
  const head: Omit<IndicatorsResponse, 'data'> = {
    symbol,
    timeframe,
    source: sourceMix(c.source, from, end),
    format,
    count: end - from,
    warmup: warmupBars(indicators),
    columns: names,
  };
  let data: string;
  if (format === 'columns') {
    const stamps = new Array<string>(end - from);
    for (let i = from; i < end; i++) stamps[i - from] = `"${isoFromMs(c.ts[i]!)}"`;
    data = `{"timestamp":[${stamps.join(',')}]${names.map((n) => `,${JSON.stringify(n)}:${columnJson(memo.get(n)!, from, end)}`).join('')}}`;
  } else {
    const timestamps = Array.from(c.ts.subarray(from, end), isoFromMs);
    const views = Object.fromEntries(names.map((n) => [n, memo.get(n)!.values.subarray(from, end)]));
    data = JSON.stringify(formatIndicatorData(format, timestamps, views, 0));
  }
  return `${JSON.stringify(head).slice(0, -1)},"data":${data}}`;
}
