/**
 * Warm feature sessions for live runs, on the real sandboxed runtime: sources of one program (same
 * scope, same code) share one session and one call per window; another scope or other code gets
 * its own; past the bound — or past its user's share of warm sessions — a source computes with pool jobs (the
 * same answer) and counts as a cold program; the last release closes the session.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FeatureSources } from '../../src/scoring/index.ts';
import { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import { log } from '../helpers/nats.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { loadBars } from '../helpers/strategy-bars.ts';

const CODE = strategyCode();
const OTHER = strategyCode({ prelude: 'unused = 1' });

describe('FeatureSources', () => {
  let runtime: StrategyRuntime;
  /** Feature calls that reached a session or the pool (memo hits never do). */
  let calls = 0;
  const bars = loadBars('EURUSD', '15min', 300);
  const window = (from: number) => ({
    ts: bars.ts.subarray(from, from + 60),
    open: bars.open.subarray(from, from + 60),
    high: bars.high.subarray(from, from + 60),
    low: bars.low.subarray(from, from + 60),
    close: bars.close.subarray(from, from + 60),
  });
  const counting = () => ({
    openSession: async (...args: Parameters<StrategyRuntime['openSession']>) => {
      const session = await runtime.openSession(...args);
      const features = session.features.bind(session);
      session.features = (b) => (calls++, features(b));
      return session;
    },
    features: (...args: Parameters<StrategyRuntime['features']>) => (calls++, runtime.features(...args)),
  });

  before(async () => {
    runtime = await StrategyRuntime.start({ log, size: 1 });
  });
  after(() => runtime?.stop());

  it('one program, one session and one call per window; another code or scope is another program', async () => {
    const sources = new FeatureSources(counting(), 4, log);
    const a = sources.acquire('community', CODE);
    const b = sources.acquire('community', CODE);
    assert.equal(a.program, b.program);
    const [x, y] = await Promise.all([a.features(window(0)), b.features(window(0))]);
    assert.deepEqual(x, y);
    assert.equal(calls, 1, 'the window computed once for both');
    assert.equal(sources.warm, 1);
    assert.equal(runtime.openSessions, 1);
    assert.ok(a.warm && b.warm);

    const other = sources.acquire('community', OTHER);
    const user = sources.acquire(7, CODE);
    assert.notEqual(other.program, a.program);
    assert.notEqual(user.program, a.program, 'a user scope does not share with the community scope');
    await Promise.all([other.features(window(0)), user.features(window(0))]);
    assert.equal(sources.warm, 3);
    assert.equal(runtime.openSessions, 3);

    for (const s of [a, b, other, user]) await s.release();
    assert.equal(sources.warm, 0);
    assert.equal(runtime.openSessions, 0, 'the last release closes each session');
  });

  it('one user holds at most their share of warm sessions; another user still gets one', async () => {
    const sources = new FeatureSources(counting(), 4, log, 1);
    const first = sources.acquire(7, CODE);
    const second = sources.acquire(7, OTHER);
    const other = sources.acquire(8, CODE);
    assert.deepEqual([first.warm, second.warm, other.warm], [true, false, true]);
    assert.equal(sources.warmFor(7), 1);
    assert.equal(sources.coldPrograms, 1);
    const [w, c] = await Promise.all([first.features(window(20)), second.features(window(20)), other.features(window(20))]);
    assert.deepEqual(c.values, w.values, 'the capped program computes the same features with pool jobs');
    assert.equal(runtime.sessionsFor(7), 1, 'the runtime counts the session against its user');
    assert.equal(runtime.sessionsFor(8), 1);
    await first.release();
    assert.equal(sources.warmFor(7), 0);
    const again = sources.acquire(7, `${OTHER}\n# again`);
    assert.equal(again.warm, true, 'a released share is free again');
    for (const s of [second, other, again]) await s.release();
    assert.equal(runtime.openSessions, 0);
    assert.equal(runtime.sessionsFor(7), 0);
  });

  it('past the bound, a program computes with pool jobs — the same answer — and counts as cold', async () => {
    const sources = new FeatureSources(counting(), 1, log);
    const warm = sources.acquire('community', CODE);
    const cold = sources.acquire('community', OTHER);
    assert.equal(warm.warm, true);
    assert.equal(cold.warm, false);
    assert.equal(sources.coldPrograms, 1);
    const [w, c] = await Promise.all([warm.features(window(10)), cold.features(window(10))]);
    assert.deepEqual(c.values, w.values, 'the same features (the two programs differ only by an unused name)');
    assert.equal(runtime.openSessions, 1);
    await cold.release();
    assert.equal(sources.coldPrograms, 0);
    await warm.release();
    assert.equal(runtime.openSessions, 0);
  });
});
