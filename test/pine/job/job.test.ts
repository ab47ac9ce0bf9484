/**
 * A worker keeps the scripts it ran ready (checked program and closures) and runs them again:
 * every run must be exactly what a fresh interpreter computes on those bars — nothing of an
 * earlier run (values, `var` state, inputs, headers, signals, a run stopped half-way) shows.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { parsePine, runJob, runProgram, type PineBars, type PineJob, type RunResult } from '../../../src/pine/index.ts';
import { loadBars } from '../../helpers/strategy-bars.ts';
import { COMMUNITY } from '../community.ts';
import { CORPUS } from '../corpus.ts';

const slice = (b: PineBars, from: number, to: number): PineBars => ({
  ts: b.ts.slice(from, to),
  open: b.open.slice(from, to),
  high: b.high.slice(from, to),
  low: b.low.slice(from, to),
  close: b.close.slice(from, to),
  volume: b.volume.slice(from, to),
});

const job = (source: string, bars: PineBars, maxSteps?: number): PineJob => ({
  id: 1,
  source,
  bars,
  timeframe: '15min',
  symbol: 'EURUSD',
  mintick: 0.00001,
  wallMs: 10_000,
  ...(maxSteps ? { maxSteps } : {}),
});

function ran(source: string, bars: PineBars, maxSteps?: number): RunResult {
  const r = runJob(job(source, bars, maxSteps));
  assert.ok(r.ok, JSON.stringify(r));
  return r.result;
}

const fresh = (source: string, bars: PineBars): RunResult =>
  runProgram(parsePine(source), bars, {
    limits: { maxSteps: 30_000_000, deadlineMs: performance.now() + 10_000, maxLoopIterations: 10_000, maxArraySize: 100_000 },
    timeframe: '15min',
    symbol: 'EURUSD',
    mintick: 0.00001,
  });

/** NaN-safe comparison of two runs (plots are Float64Arrays with na as NaN). */
const plain = (r: RunResult) =>
  JSON.stringify({ ...r, plots: r.plots.map((p) => ({ ...p, values: Array.from(p.values, (v) => (Number.isNaN(v) ? 'na' : v)) })) });

describe('a script run again in the same worker', () => {
  let a: PineBars;
  let b: PineBars;
  before(() => {
    const m = loadBars('EURUSD', '15min', 3000);
    const volume = Float64Array.from(m.close, (_, i) => 100 + ((i * 37) % 50));
    const all = { ts: m.ts, open: m.open, high: m.high, low: m.low, close: m.close, volume };
    a = slice(all, 0, 1200);
    b = slice(all, 1500, 3000);
  });

  for (const c of [...CORPUS, ...COMMUNITY]) {
    it(`${c.name}: each run equals a fresh interpreter's, whatever ran before`, () => {
      const first = ran(c.pine, a);
      assert.equal(plain(first), plain(fresh(c.pine, a)));
      // Other bars (another length too), then a run stopped by its step budget half-way.
      assert.equal(plain(ran(c.pine, b)), plain(fresh(c.pine, b)));
      const stopped = runJob(job(c.pine, b, 2_000));
      assert.ok(!stopped.ok && 'problem' in stopped, 'a 2,000-step budget stops the run');
      const again = ran(c.pine, a);
      assert.equal(plain(again), plain(first));
      assert.ok(again.inputs.length === first.inputs.length && again.title === first.title);
    });
  }

  it('runs scripts in turn without one seeing the other', () => {
    const [x, y] = [CORPUS[0]!.pine, CORPUS.at(-1)!.pine];
    const alone = [fresh(x, a), fresh(y, b)].map(plain);
    for (let i = 0; i < 3; i++) assert.deepEqual([plain(ran(x, a)), plain(ran(y, b))], alone);
  });
});

describe('a run that uses up its budget', () => {
  const m = loadBars('EURUSD', '15min', 200);
  const bars: PineBars = { ...m, volume: new Float64Array(m.close.length) };
  // 10,000 iterations on each bar (the most one loop may run on a bar): millions of steps over 200 bars.
  const LOOP = '//@version=5\nindicator("spin")\ns = 0.0\nfor i = 0 to 9999\n    s := s + i\nplot(s)\n';

  it('is marked exhausted past the step budget and past the time limit, and no other problem is', () => {
    const steps = runJob(job(LOOP, bars, 100_000));
    assert.ok(!steps.ok && 'problem' in steps && steps.problem.exhausted === true, JSON.stringify(steps));
    assert.match(steps.problem.message, /steps/);
    const timed = runJob({ ...job(LOOP, bars), wallMs: 5 });
    assert.ok(!timed.ok && 'problem' in timed && timed.problem.exhausted === true, JSON.stringify(timed));
    assert.match(timed.problem.message, /time limit/);
    const unsupported = runJob(job('//@version=5\nindicator("x")\nplot(ta.rci(close, 9))', bars));
    assert.ok(!unsupported.ok && 'problem' in unsupported && unsupported.problem.exhausted === undefined, JSON.stringify(unsupported));
  });
});
