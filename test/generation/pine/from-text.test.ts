/**
 * Plain language → Pine: whatever the description holds (line breaks, quotes, backslashes, Pine
 * comment markers), the Pine written from it parses and runs; the text only ever lands in comments
 * and titles.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pineFromText } from '../../../src/generation/pine/index.ts';
import { runJob } from '../../../src/pine/index.ts';
import { waveBars } from '../../helpers/wave-bars.ts';

const bars = waveBars(120);

describe('pineFromText', () => {
  const texts = [
    'A 20-period Keltner channel with 2 ATR bands.\nMark where price closes outside it.',
    'RSI(14) below 30\r\nplot(close)\nlabel.new(bar_index, high, "x")',
    'EMA 50 with "quotes", back\\slashes \\n and // a comment marker\n    indented second line',
  ];
  for (const text of texts) {
    it(`writes Pine that runs for ${JSON.stringify(text.slice(0, 40))}…`, () => {
      const { pine } = pineFromText(text, 'EURUSD', '15min');
      const comment = pine.split('\n').find((l) => l.startsWith('// Written from:'))!;
      assert.ok(comment, pine);
      const code = pine.split('\n').filter((l) => !l.startsWith('//'));
      assert.ok(!code.some((l) => l.includes('label.new')), 'text never becomes code');
      const r = runJob({ id: 1, source: pine, bars, timeframe: '15min', symbol: 'EURUSD', mintick: 0.00001, wallMs: 2000 });
      assert.ok(r.ok, `${JSON.stringify(r)}\n${pine}`);
    });
  }

  /** The plot titles of the Pine written from `text`, run over the bars. */
  const drawn = (text: string) => {
    const written = pineFromText(text, 'EURUSD', '1h');
    const r = runJob({ id: 1, source: written.pine, bars, timeframe: '1h', symbol: 'EURUSD', mintick: 0.00001, wallMs: 2000 });
    assert.ok(r.ok, `${JSON.stringify(r)}\n${written.pine}`);
    return {
      titles: r.result.plots.map((p) => p.title),
      overlay: r.result.overlay,
      signals: new Set(r.result.signals.map((s) => s.title)),
      ...written,
    };
  };

  it('draws every indicator the strategy grammar knows, on the pane it belongs to', () => {
    const cases: [string, string[], boolean][] = [
      ['Supertrend 10 3', ['SuperTrend'], true],
      ['Ichimoku cloud', ['Tenkan', 'Kijun', 'Span A', 'Span B'], true],
      ['session VWAP', ['Session VWAP (time-weighted)'], true],
      ['ADX 14 with DI+ and DI-', ['ADX 14', '+DI', '-DI'], false],
      ['CCI 20 with +100 and -100 levels', ['CCI 20'], false],
      ['williams %R 14', ['Williams %R 14'], false],
      ['parabolic SAR', ['Parabolic SAR'], true],
      ['daily pivot points', ['Pivot', 'R1', 'S1', 'R2', 'S2'], true],
      ['rate of change 12', ['ROC 12'], false],
      ['z-score 50 of price', ['z-score 50'], false],
    ];
    for (const [text, titles, overlay] of cases) {
      const got = drawn(text);
      assert.deepEqual(got.titles, titles, text);
      assert.equal(got.overlay, overlay, `${text}: overlay`);
      assert.ok(!got.remarks.some((r) => r.startsWith('left out')), `${text}: ${got.remarks.join(' / ')}`);
    }
  });

  it('marks candle patterns on the price pane', () => {
    const got = drawn('bullish engulfing candles and inside bars');
    assert.equal(got.overlay, true);
    assert.ok(got.signals.has('Bullish engulfing'), [...got.signals].join(', '));
    // The smooth test bars hold no inside bar: its marker is written, and fires nowhere.
    assert.match(got.pine, /plotshape\(sig_inside_bar, "Inside bar"/);
  });

  it('reads a rule on a trader indicator as its marker ("ADX above 25 and close above vwap")', () => {
    const got = drawn('ADX 14 above 25 and close above vwap');
    assert.ok(got.pine.includes('adx_14 > 25') && got.pine.includes('close > vwap_session'), got.pine);
    assert.ok(got.titles.includes('ADX 14') && got.titles.includes('Session VWAP (time-weighted)'));
  });

  it('draws a Hull moving average as the Hull MA, not the simple average its words also read as', () => {
    const got = drawn('hull moving average 55');
    assert.deepEqual(got.titles, ['HMA 55']);
    assert.match(got.pine, /hma_55 = ta\.wma\(2 \* ta\.wma\(close, 27\) - ta\.wma\(close, 55\), 7\)/);
  });

  it('draws the momentum a momentum rule reads', () => {
    const got = drawn('momentum 10 turning up');
    assert.ok(got.titles.includes('Momentum 10'), got.titles.join(', '));
    assert.equal(got.overlay, false);
  });

  it('reads a Keltner channel’s own words as the channel: no Bollinger remark, no ATR plot', () => {
    const got = drawn('a 20-period Keltner channel with 2 ATR bands, and mark where price closes outside it');
    assert.deepEqual(got.titles, ['Keltner upper', 'Keltner middle', 'Keltner lower']);
    assert.deepEqual(got.remarks, []);
  });
});
