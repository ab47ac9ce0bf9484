import { defineIndicator, intParam } from './define.ts';
import { map, rollingMax, rollingMean, rollingMin, stochK } from './math.ts';

export const stochastic = defineIndicator({
  name: 'stoch',
  label: 'Stochastic Oscillator',
  description:
    'Fast stochastic: %K = 100 · (close − lowest low) / (highest high − lowest low) over k_period bars ' +
    '(50 when the range is 0); %D = SMA(%K, d_period).',
  params: [intParam('k_period', 14, 2, 500, 'Bars of the high/low range for %K'), intParam('d_period', 3, 1, 100, 'Bars averaged for %D')],
  columns: ['stoch_k_{k_period}_{d_period}', 'stoch_d_{k_period}_{d_period}'],
  warmupRule: '(k_period − 1) + (d_period − 1): the first full %D window',
  warmup: (p) => p.k_period - 1 + (p.d_period - 1),
  compute: ({ high, low, close }, p) => {
    const hh = rollingMax(high, p.k_period);
    const ll = rollingMin(low, p.k_period);
    const k = map(close.length, (i) => stochK(close[i]!, hh[i]!, ll[i]!));
    return [k, rollingMean(k, p.d_period)];
  },
  pandas: (p) => ({
    setup: [
      `_stoch_hh = high.rolling(${p.k_period}).max()`,
      `_stoch_ll = low.rolling(${p.k_period}).min()`,
      '_stoch_k = (100 * (close - _stoch_ll) / (_stoch_hh - _stoch_ll)).mask(_stoch_hh == _stoch_ll, 50.0)',
    ],
    exprs: ['_stoch_k', `_stoch_k.rolling(${p.d_period}).mean()`],
  }),
});
