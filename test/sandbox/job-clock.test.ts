/**
 * A job's budget is its own CPU time: at the lowest priority on a host whose cores are all busy, a
 * normal strategy takes longer in wall time but completes; an endless loop still ends as a timeout
 * at its CPU budget; a strategy that sleeps (no CPU used) ends at the wall-clock backstop — in the
 * zygote and in a feature session. No timing is asserted: only which way each job ended.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import { jobFailure } from '../helpers/job-failure.ts';
import type { OhlcColumns } from '../../src/lib/bar-columns.ts';

const N = 2_000;
const BARS: OhlcColumns = (() => {
  const ts = new Float64Array(N).map((_, i) => Date.UTC(2024, 0, 2) + i * 900_000);
  const close = new Float64Array(N).map((_, i) => 1.1 + 0.001 * Math.sin(i / 7));
  return { ts, open: close, high: close.map((c) => c + 0.0005), low: close.map((c) => c - 0.0005), close };
})();

const features = (body: string) => `import numpy as np
import pandas as pd

def feature_engineering(df, close, open_, high, low):
${body}
    df['sma_3'] = close.rolling(3).mean().bfill()
    return df

def strategy_config():
    return {}
`;

/** A normal strategy with a little honest work: tens of milliseconds of CPU. */
const NORMAL = features("    df['acc'] = float(sum(i * i for i in range(100_000)))");
const ENDLESS = features('    while True:\n        pass');
/** The real `time` module, past the import guard as an attacker would reach it (the pool runs no static check). */
const TIME = 'pd.core.common.__builtins__["__import__"]("time")';
/** Sleeps without using the CPU. */
const SLEEPER = features(`    ${TIME}.sleep(600)`);

const failure = jobFailure;

/** Busy loops on every core, at normal priority, for the duration of `run`. */
async function withBusyHost<T>(run: () => Promise<T>): Promise<T> {
  const loops: ChildProcess[] = cpus().map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  try {
    return await run();
  } finally {
    for (const loop of loops) loop.kill('SIGKILL');
  }
}

describe('job clock: the budget is CPU time', () => {
  let runtime: StrategyRuntime;
  before(async () => {
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 1, walls: { uid: true, seccomp: true, audit: false } });
  });
  after(() => runtime?.stop());

  it('a normal strategy at the lowest priority, every core busy, still completes within its budget', async () => {
    // It gets ~1.5 % of a core here (nice 19 against nice 0), so its wall time is many times its budget.
    const out = await withBusyHost(() => runtime.features(NORMAL, BARS, { timeoutMs: 2_000, nice: 19 }));
    assert.deepEqual(out.columns, ['acc', 'sma_3']);
  });

  it('an endless loop still ends as a timeout, at its CPU budget', async () => {
    const err = await failure(runtime.features(ENDLESS, BARS, { timeoutMs: 1_000 }));
    assert.equal(err.kind, 'timeout', err.message);
    assert.equal(err.limit, 'cpu', err.message);
    assert.match(err.message, /used up its CPU time budget of 1 s/);
  });

  it('a strategy that sleeps ends at the wall-clock backstop, as a timeout', async () => {
    const err = await failure(runtime.features(SLEEPER, BARS, { timeoutMs: 1_000 }));
    assert.equal(err.kind, 'timeout', err.message);
    assert.equal(err.limit, 'idle', err.message);
    assert.match(err.message, /spent 14 s neither computing nor waiting for a CPU/);
    assert.deepEqual((await runtime.features(NORMAL, BARS)).columns, ['acc', 'sma_3'], 'the zygote serves on');
  });

  it('a feature session’s calls are held to the same clock', async () => {
    const code = features(`    if len(df) == 101:
        while True:
            pass
    if len(df) == 102:
        ${TIME}.sleep(600)
    df['acc'] = float(sum(i * i for i in range(100_000)))`);
    const session = await runtime.openSession(code, { timeoutMs: 1_000 });
    const window = (n: number): OhlcColumns => ({
      ts: BARS.ts.slice(0, n),
      open: BARS.open.slice(0, n),
      high: BARS.high.slice(0, n),
      low: BARS.low.slice(0, n),
      close: BARS.close.slice(0, n),
    });
    try {
      assert.deepEqual((await session.features(window(100))).columns, ['acc', 'sma_3']);
      const endless = await failure(session.features(window(101)));
      assert.deepEqual([endless.kind, endless.limit], ['timeout', 'cpu'], endless.message);
      const sleeper = await failure(session.features(window(102)));
      assert.deepEqual([sleeper.kind, sleeper.limit], ['timeout', 'idle'], sleeper.message);
      assert.deepEqual((await session.features(window(100))).columns, ['acc', 'sma_3']);
    } finally {
      await session.close();
    }
  });
});
