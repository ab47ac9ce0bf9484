import { defineIndicator, intParam, py } from './define.ts';
import { map, rollingMean, rollingStd } from './math.ts';

export const bollinger = defineIndicator({
  name: 'bb',
  label: 'Bollinger Bands',
  description:
    'middle = SMA(close, period); upper/lower = middle ± std × σ, σ the population standard deviation ' +
    '(ddof=0, as Bollinger defines it) of the same window: close.rolling(period).std(ddof=0).',
  params: [
    intParam('period', 20, 2, 500, 'Bars in the window'),
    { name: 'std', type: 'number', default: 2, min: 0.1, max: 10, description: 'Band width in standard deviations' },
  ],
  columns: ['bb_upper_{period}_{std}', 'bb_middle_{period}_{std}', 'bb_lower_{period}_{std}'],
  warmupRule: 'period − 1 (the first full window)',
  warmup: (p) => p.period - 1,
  compute: ({ close }, p) => {
    const mid = rollingMean(close, p.period);
    const sd = rollingStd(close, p.period);
    return [map(close.length, (i) => mid[i]! + p.std * sd[i]!), mid, map(close.length, (i) => mid[i]! - p.std * sd[i]!)];
  },
  pandas: (p) => ({
    setup: [`_bb_mid = close.rolling(${p.period}).mean()`, `_bb_sd = close.rolling(${p.period}).std(ddof=0)`],
    exprs: [`_bb_mid + ${py(p.std)} * _bb_sd`, '_bb_mid', `_bb_mid - ${py(p.std)} * _bb_sd`],
  }),
});
