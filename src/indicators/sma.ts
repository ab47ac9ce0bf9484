import { defineIndicator, intParam } from './define.ts';
import { rollingMean } from './math.ts';

export const sma = defineIndicator({
  name: 'sma',
  label: 'Simple Moving Average',
  description: 'Arithmetic mean of the last `period` closes: close.rolling(period).mean().',
  params: [intParam('period', 20, 2, 500, 'Bars averaged')],
  columns: ['sma_{period}'],
  warmupRule: 'period − 1 (the first full window)',
  warmup: (p) => p.period - 1,
  compute: ({ close }, p) => [rollingMean(close, p.period)],
  pandas: (p) => ({ exprs: [`close.rolling(${p.period}).mean()`] }),
});
