import { defineIndicator, intParam } from './define.ts';
import { windowWma } from './math.ts';

export const wma = defineIndicator({
  name: 'wma',
  label: 'Weighted Moving Average',
  description:
    'Linearly weighted mean of the last `period` closes, the newest weighted `period`, the oldest 1: ' +
    'sum(w·close) / (period·(period + 1) / 2).',
  params: [intParam('period', 20, 2, 500, 'Bars averaged')],
  columns: ['wma_{period}'],
  warmupRule: 'period − 1 (the first full window)',
  warmup: (p) => p.period - 1,
  compute: ({ close }, p) => {
    const out = new Float64Array(close.length).fill(NaN);
    for (let t = p.period - 1; t < close.length; t++) out[t] = windowWma(close, t, p.period);
    return [out];
  },
  // A convolution with weights n..1 is the weighted sum ending at each bar (the first n − 1 are partial and masked).
  pandas: (p) => ({
    exprs: [
      `pd.Series(np.convolve(close.to_numpy(dtype=float), np.arange(${p.period}, 0, -1, dtype=float))[:len(close)] / ${(p.period * (p.period + 1)) / 2}, index=close.index)`,
    ],
  }),
});
