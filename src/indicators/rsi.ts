import { defineIndicator, intParam } from './define.ts';
import { ewm, givenAlpha, map, RSI_SEED_TOLERANCE, rsiValue, seedBars } from './math.ts';

export const rsi = defineIndicator({
  name: 'rsi',
  label: 'Relative Strength Index',
  description:
    'Wilder RSI: gains and losses of close.diff() averaged with ewm(alpha=1/period, adjust=False) from the ' +
    'second bar on; RSI = 100 · gain / (gain + loss), 50 when both averages are 0.',
  params: [intParam('period', 14, 2, 500, 'Wilder smoothing period')],
  columns: ['rsi_{period}'],
  warmupRule:
    '1 + ceil(ln 1e-15 / ln(1 − 1/period)): the first difference, then bars until the seed weighs less than 1e-15 ' +
    '(468 for period 14; RSI, a ratio of two small averages, needs the stricter bound to stay within 1e-9)',
  warmup: (p) => 1 + seedBars(givenAlpha(1 / p.period), RSI_SEED_TOLERANCE),
  compute: ({ close }, p) => {
    const n = close.length;
    const d = map(n, (i) => (i === 0 ? NaN : close[i]! - close[i - 1]!));
    const alpha = givenAlpha(1 / p.period);
    const gain = ewm(
      map(n, (i) => Math.max(d[i]!, 0)),
      alpha,
      1,
    );
    const loss = ewm(
      map(n, (i) => Math.max(-d[i]!, 0)),
      alpha,
      1,
    );
    return [map(n, (i) => rsiValue(gain[i]!, loss[i]!))];
  },
  pandas: (p) => ({
    setup: [
      '_rsi_d = close.diff()',
      `_rsi_g = _rsi_d.clip(lower=0).ewm(alpha=1 / ${p.period}, adjust=False).mean()`,
      `_rsi_l = (-_rsi_d).clip(lower=0).ewm(alpha=1 / ${p.period}, adjust=False).mean()`,
    ],
    exprs: ['(100 * _rsi_g / (_rsi_g + _rsi_l)).mask(_rsi_g + _rsi_l == 0, 50.0)'],
  }),
});
