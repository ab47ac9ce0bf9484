import { defineIndicator, intParam } from './define.ts';
import { ewm, map, seedBars, spanAlpha } from './math.ts';

export const macd = defineIndicator({
  name: 'macd',
  label: 'MACD',
  description:
    'line = EMA(close, fast) − EMA(close, slow); signal = EMA(line, signal); hist = line − signal; every EMA ' +
    'is ewm(span=n, adjust=False).mean().',
  params: [
    intParam('fast', 12, 2, 500, 'Span of the fast EMA'),
    intParam('slow', 26, 3, 500, 'Span of the slow EMA'),
    intParam('signal', 9, 2, 500, 'Span of the signal EMA'),
  ],
  constraints: [{ param: 'fast', less_than: 'slow' }],
  columns: ['macd_{fast}_{slow}_{signal}', 'macd_signal_{fast}_{slow}_{signal}', 'macd_hist_{fast}_{slow}_{signal}'],
  warmupRule: 'seed bars of the slower line EMA plus seed bars of the signal EMA, each ceil(ln 1e-12 / ln(1 − alpha)) (484 for 12/26/9)',
  warmup: (p) => seedBars(spanAlpha(Math.max(p.fast, p.slow))) + seedBars(spanAlpha(p.signal)),
  compute: ({ close }, p) => {
    const fast = ewm(close, spanAlpha(p.fast));
    const slow = ewm(close, spanAlpha(p.slow));
    const line = map(close.length, (i) => fast[i]! - slow[i]!);
    const signal = ewm(line, spanAlpha(p.signal));
    return [line, signal, map(close.length, (i) => line[i]! - signal[i]!)];
  },
  pandas: (p) => ({
    setup: [
      `_macd_line = close.ewm(span=${p.fast}, adjust=False).mean() - close.ewm(span=${p.slow}, adjust=False).mean()`,
      `_macd_signal = _macd_line.ewm(span=${p.signal}, adjust=False).mean()`,
    ],
    exprs: ['_macd_line', '_macd_signal', '_macd_line - _macd_signal'],
  }),
});
