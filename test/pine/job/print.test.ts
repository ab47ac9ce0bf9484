/**
 * The worker's answer bytes are exactly what JSON.stringify and a UTF-8 encoder give for the
 * shaped run: every corpus script in every fe_mode (shared columns, panels, overlays, signals),
 * and texts outside ASCII (a plotchar bullet, a title in Japanese) encoded right.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { parsePine, runProgram, shapeRun, type PineBars } from '../../../src/pine/index.ts';
import { shapedJsonBytes } from '../../../src/pine/job/print.ts';
import { loadBars } from '../../helpers/strategy-bars.ts';
import { CORPUS } from '../corpus.ts';

const UTF8 = new TextEncoder();
const expected = (shaped: object) => Buffer.from(UTF8.encode(JSON.stringify(shaped)));

const NON_ASCII = `//@version=5
indicator("日本語 ✓", overlay=false)
x = ta.rsi(close, 14)
plot(x, "RSI – Ümlaut", color=color.red)
plot(x, "RSI – Ümlaut")
hline(70, "Über")
plotchar(ta.crossover(x, 70), "Cross", "•", location.top)
`;

describe('shapedJsonBytes', () => {
  let bars: PineBars;
  before(() => {
    const m = loadBars('EURUSD', '15min', 800);
    bars = {
      ts: m.ts,
      open: m.open,
      high: m.high,
      low: m.low,
      close: m.close,
      volume: Float64Array.from(m.close, (_, i) => 100 + ((i * 37) % 50)),
    };
  });
  const run = (pine: string) =>
    runProgram(parsePine(pine), bars, {
      limits: { maxSteps: 30_000_000, deadlineMs: performance.now() + 10_000, maxLoopIterations: 10_000, maxArraySize: 100_000 },
      timeframe: '15min',
      symbol: 'EURUSD',
      mintick: 0.00001,
    });

  for (const c of [...CORPUS, { name: 'titles and texts outside ASCII', pine: NON_ASCII }]) {
    it(`${c.name}: the bytes JSON.stringify and a UTF-8 encoder give, in every fe_mode`, () => {
      const result = run(c.pine);
      for (const mode of ['none', 'basic', 'full'] as const) {
        for (const from of [0, 300]) {
          const shaped = shapeRun(result, bars.ts, bars.close, from, mode);
          assert.deepEqual(Buffer.from(shapedJsonBytes(shaped)), expected(shaped), `${mode}, from ${from}`);
        }
      }
    });
  }

  it('a buffer of its own, exactly as long as the text (it is transferred to the edge)', () => {
    const shaped = shapeRun(run(NON_ASCII), bars.ts, bars.close, 790, 'basic');
    const bytes = shapedJsonBytes(shaped);
    assert.equal(bytes.byteOffset, 0);
    assert.equal(bytes.buffer.byteLength, bytes.length);
    assert.equal(new TextDecoder().decode(bytes), JSON.stringify(shaped));
  });
});
