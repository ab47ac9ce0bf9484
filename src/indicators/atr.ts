import { defineIndicator, intParam } from './define.ts';
import { ewm, givenAlpha, map, seedBars, trueRange } from './math.ts';

export const atr = defineIndicator({
  name: 'atr',
  label: 'Average True Range',
  description:
    'Wilder ATR: true range = max(high − low, |high − previous close|, |low − previous close|) (high − low on ' +
    'the first bar), averaged with ewm(alpha=1/period, adjust=False).',
  params: [intParam('period', 14, 2, 500, 'Wilder smoothing period')],
  columns: ['atr_{period}'],
  warmupRule: 'ceil(ln 1e-12 / ln(1 − 1/period)): bars until the seed weighs less than 1e-12 (373 for period 14)',
  warmup: (p) => seedBars(givenAlpha(1 / p.period)),
  compute: ({ high, low, close }, p) => {
    const tr = map(close.length, (i) => trueRange(high[i]!, low[i]!, i === 0 ? undefined : close[i - 1]!));
    return [ewm(tr, givenAlpha(1 / p.period))];
  },
  pandas: (p) => ({
    setup: [
      '_atr_pc = close.shift(1)',
      '_atr_tr = pd.concat([high - low, (high - _atr_pc).abs(), (low - _atr_pc).abs()], axis=1).max(axis=1)',
    ],
    exprs: [`_atr_tr.ewm(alpha=1 / ${p.period}, adjust=False).mean()`],
  }),
});
