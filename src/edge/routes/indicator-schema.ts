import { IndicatorSchema } from '../../../schemas/indicators.ts';
import { indicatorSchema } from '../../indicators/index.ts';
import type { App } from '../types.ts';

export function indicatorSchemaRoutes(app: App): void {
  app.get('/api/v1/indicator-schema', {
    config: { auth: 'none' },
    schema: {
      tags: ['indicators'],
      summary: 'Built-in indicators: parameters, defaults, bounds, feature columns, warm-up',
      description:
        'The eight built-in indicators (SMA, EMA, WMA, Bollinger Bands, RSI, MACD, Stochastic, ATR) with the keys ' +
        'of the indicators object (`<indicator>_enabled`, `<indicator>_<param>`), each parameter’s type, default ' +
        'and bounds, the feature column names they generate, and the warm-up bars before values are exact.',
      response: { 200: IndicatorSchema },
    },
    handler: async () => indicatorSchema(),
  });
}
