/**
 * The Pine corpus (corpus.ts, and the community scripts of community.ts) run by our interpreter
 * over real EURUSD 15-minute bars, every plot and signal checked against the case's own pandas
 * computation, run here in /usr/bin/python3. The Python sees, besides corpus.ts's helpers, ema,
 * the true range tr (high − low on the first bar), rsi, over (a crosses over b), linreg (least
 * squares by numpy), and nmax/nmin (na when either side is, as Pine's math.max/min).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { before, describe, it } from 'node:test';
import { runJob, type PineBars, type RunResult } from '../../src/pine/index.ts';
import { loadBars } from '../helpers/strategy-bars.ts';
import { COMMUNITY } from './community.ts';
import { CORPUS } from './corpus.ts';

const CASES = [...CORPUS, ...COMMUNITY];

const PYTHON = process.env.PYTHON ?? '/usr/bin/python3';
const BARS = 2000;
const TOLERANCE = 1e-9;

const PRELUDE = `
import json, sys
import numpy as np, pandas as pd
data = json.load(sys.stdin)
b = data['bars']
o, h, l, c, v = (pd.Series(b[k], dtype=float) for k in ('open', 'high', 'low', 'close', 'volume'))
t = pd.to_datetime(pd.Series(b['ts']), unit='ms', utc=True)
hour = t.dt.hour; dow = t.dt.dayofweek
def rma(s, n): return s.ewm(alpha=1 / n, adjust=False).mean()
def wma(s, n): return s.rolling(n).apply(lambda w: np.dot(w, np.arange(1, n + 1)) / (n * (n + 1) / 2), raw=True)
def ema(s, n): return s.ewm(span=n, adjust=False).mean()
tr = pd.concat([h - l, (h - c.shift()).abs(), (l - c.shift()).abs()], axis=1).max(axis=1)
def rsi(s, n):
    d = s.diff(); g = rma(d.clip(lower=0), n); lo = rma((-d).clip(lower=0), n)
    return (100 * g / (g + lo)).mask(g + lo == 0, 50.0)
def over(a, b): return (a > b) & (a.shift() <= b.shift())
def linreg(s, n, offset=0): return s.rolling(n).apply(lambda w: np.polyval(np.polyfit(np.arange(n), w, 1), n - 1 - offset), raw=True)
def nmax(a, b): return np.nan if np.isnan(a) or np.isnan(b) else max(a, b)
def nmin(a, b): return np.nan if np.isnan(a) or np.isnan(b) else min(a, b)
results = {}
for case in data['cases']:
    out = {}; sig = {}
    try:
        exec(case['py'], dict(globals(), out=out, sig=sig))
    except Exception as e:
        results[case['name']] = {'error': repr(e)}; continue
    clean = lambda a: [None if not np.isfinite(x) else float(x) for x in np.asarray(a, dtype=float)]
    results[case['name']] = {'out': {k: clean(s) for k, s in out.items()}, 'sig': {k: [int(i) for i in np.flatnonzero(np.asarray(s, dtype=bool))] for k, s in sig.items()}}
json.dump(results, sys.stdout)
`;

type Expected = { out: Record<string, (number | null)[]>; sig: Record<string, number[]> } | { error: string };

describe('Pine corpus against pandas', () => {
  let bars: PineBars;
  let expected: Record<string, Expected>;

  before(() => {
    const m = loadBars('EURUSD', '15min', BARS);
    // HistData has no volume: a deterministic, varying stand-in so volume-weighted rules are exercised.
    const volume = Float64Array.from(m.close, (_, i) => 100 + ((i * 37) % 50));
    bars = { ts: m.ts, open: m.open, high: m.high, low: m.low, close: m.close, volume };
    const input = JSON.stringify({
      bars: {
        ts: Array.from(m.ts),
        open: Array.from(m.open),
        high: Array.from(m.high),
        low: Array.from(m.low),
        close: Array.from(m.close),
        volume: Array.from(volume),
      },
      cases: CASES.map(({ name, py }) => ({ name, py })),
    });
    const run = spawnSync(PYTHON, ['-c', PRELUDE], { input, maxBuffer: 1 << 28, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    expected = JSON.parse(run.stdout);
  });

  it('holds at least 40 indicators', () => assert.ok(CORPUS.length >= 40, `${CORPUS.length} cases`));

  it('holds at least 15 community scripts', () => assert.ok(COMMUNITY.length >= 15, `${COMMUNITY.length} cases`));

  for (const c of CASES) {
    it(c.name, () => {
      const exp = expected[c.name]!;
      assert.ok(!('error' in exp), `pandas: ${'error' in exp ? exp.error : ''}`);
      const r = runJob({ id: 1, source: c.pine, bars, timeframe: '15min', symbol: 'EURUSD', mintick: 0.00001, wallMs: 10_000 });
      assert.ok(r.ok, JSON.stringify(r));
      const result: RunResult = r.result;
      for (const [title, want] of Object.entries(exp.out)) {
        const plot = result.plots.find((p) => p.title === title);
        assert.ok(plot, `no plot titled ${title} (plots: ${result.plots.map((p) => p.title).join(', ')})`);
        want.forEach((w, i) => {
          const got = plot.values[i]!;
          if (w === null) assert.ok(!Number.isFinite(got), `${title} bar ${i}: expected na, got ${got}`);
          else assert.ok(Math.abs(got - w) <= TOLERANCE * Math.max(1, Math.abs(w)), `${title} bar ${i}: ${got} vs pandas ${w}`);
        });
      }
      for (const [title, want] of Object.entries(exp.sig)) {
        const got = result.signals.filter((s) => s.title === title).map((s) => s.bar);
        assert.deepEqual(got, want, `signal ${title}`);
      }
    });
  }
});
