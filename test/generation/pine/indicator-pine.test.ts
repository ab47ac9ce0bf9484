/**
 * The Pine written for each indicator the offline grammar knows computes what the strategy code
 * computes: every column, run by our interpreter over real EURUSD 15-minute bars, against the
 * generator's own pandas for that indicator (run here in /usr/bin/python3), past its warm-up.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { before, describe, it } from 'node:test';
import { declarePine, pineColumns, writesPine, type PineParts } from '../../../src/generation/pine/indicator-pine.ts';
import { GEN, type GenName, type Instance } from '../../../src/generation/offline/index.ts';
import { genPandas, GEN_NAMES } from '../../../src/generation/offline/gen-indicators.ts';
import { runJob, type PineBars } from '../../../src/pine/index.ts';
import { loadBars } from '../../helpers/strategy-bars.ts';

const PYTHON = process.env.PYTHON ?? '/usr/bin/python3';
const BARS = 4000;
const TOLERANCE = 1e-9;
/**
 * Drawn with Pine's own rule, not the strategy's: the strategy runs each bar's SAR over its last
 * 100 bars only (a finite warm-up its look-ahead check needs); Pine's ta.sar carries it from the first bar.
 */
const PINE_OWN = new Set<GenName>(['psar']);

const defaults = (name: GenName): Record<string, number> => Object.fromEntries(GEN[name].info.params.map((p) => [p.name, p.default]));
const instances: Instance[] = GEN_NAMES.filter((name) => !PINE_OWN.has(name))
  .map((name) => ({ name, params: defaults(name) }) as Instance)
  .filter(writesPine);

/** The indicator's Pine with every column plotted under its own name, so each is compared whatever the writer draws. */
function script(inst: Instance): string {
  const parts: PineParts = { lines: [], plots: [], levels: [], marks: [] };
  declarePine(inst, parts);
  return ['//@version=5', 'indicator("t")', ...parts.lines, ...pineColumns(inst).map((c) => `plot(${c}, "${c}")`), ''].join('\n');
}

describe('Pine of the offline grammar’s indicators', () => {
  let bars: PineBars;
  let expected: Record<string, (number | null)[]>;

  before(() => {
    const m = loadBars('EURUSD', '15min', BARS);
    bars = { ts: m.ts, open: m.open, high: m.high, low: m.low, close: m.close, volume: new Float64Array(m.close.length) };
    const program = [
      'import json, sys',
      'import numpy as np, pandas as pd',
      'b = json.load(sys.stdin)',
      "df = pd.DataFrame({k: b[k] for k in ('open', 'high', 'low', 'close')}, index=pd.to_datetime(b['ts'], unit='ms', utc=True))",
      "open_, high, low, close = df['open'], df['high'], df['low'], df['close']",
      genPandas(instances),
      'clean = lambda s: [None if not np.isfinite(x) else float(x) for x in np.asarray(s, dtype=float)]',
      `json.dump({c: clean(df[c]) for c in ${JSON.stringify(instances.flatMap(pineColumns))}}, sys.stdout)`,
    ].join('\n');
    const input = JSON.stringify({
      ts: Array.from(m.ts),
      open: Array.from(m.open),
      high: Array.from(m.high),
      low: Array.from(m.low),
      close: Array.from(m.close),
    });
    const run = spawnSync(PYTHON, ['-c', program], { input, maxBuffer: 1 << 28, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    expected = JSON.parse(run.stdout);
  });

  it('covers every indicator the grammar knows but the channels (written from their own words) and the SAR', () => {
    assert.deepEqual(
      GEN_NAMES.filter((n) => !instances.some((i) => i.name === n)),
      ['keltner', 'donchian', 'psar'],
    );
  });

  for (const inst of instances) {
    it(`${inst.name}: every column equals the strategy code's past the warm-up`, () => {
      const source = script(inst);
      const r = runJob({ id: 1, source, bars, timeframe: '15min', symbol: 'EURUSD', mintick: 0.00001, wallMs: 10_000 });
      assert.ok(r.ok, `${JSON.stringify(r)}\n${source}`);
      const from = GEN[inst.name].warmup(inst.params);
      assert.ok(from <= BARS - 1000, `warm-up ${from}`);
      for (const column of pineColumns(inst)) {
        const got = r.result.plots.find((p) => p.title === column)!.values;
        const want = expected[column]!;
        let compared = 0;
        for (let i = from; i < BARS; i++) {
          const w = want[i];
          if (w === null) assert.ok(!Number.isFinite(got[i]!), `${column} bar ${i}: pandas na, Pine ${got[i]}`);
          else {
            assert.ok(Math.abs(got[i]! - w!) <= TOLERANCE * Math.max(1, Math.abs(w!)), `${column} bar ${i}: Pine ${got[i]} vs pandas ${w}`);
            compared++;
          }
        }
        assert.ok(compared > BARS / 4, `${column}: only ${compared} bars compared`);
      }
    });
  }
});
