import { defineIndicator, intParam } from './define.ts';
import { ewm, seedBars, spanAlpha } from './math.ts';

export const ema = defineIndicator({
  name: 'ema',
  label: 'Exponential Moving Average',
  description:
    'close.ewm(span=period, adjust=False).mean(): alpha = 2 / (period + 1), seeded with the first close, ' +
    'y = (1 − alpha)·y + alpha·close.',
  params: [intParam('period', 20, 2, 500, 'Span of the average')],
  columns: ['ema_{period}'],
  warmupRule: 'ceil(ln 1e-12 / ln(1 − alpha)): bars until the seed weighs less than 1e-12 (277 for period 20)',
  warmup: (p) => seedBars(spanAlpha(p.period)),
  compute: ({ close }, p) => [ewm(close, spanAlpha(p.period))],
  pandas: (p) => ({ exprs: [`close.ewm(span=${p.period}, adjust=False).mean()`] }),
});
