/**
 * Plain language → Pine: whatever the description holds (line breaks, quotes, backslashes, Pine
 * comment markers), the Pine written from it parses and runs; the text only ever lands in comments
 * and titles.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pineFromText } from '../../../src/generation/pine/index.ts';
import { runJob } from '../../../src/indicators/index.ts';
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
});
