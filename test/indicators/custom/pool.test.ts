/**
 * The Pine pool's threads: scripts run at the nice the pool was given (a replaced worker is
 * spawned the same way), while the event loop's thread keeps the process's priority.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { PinePool } from '../../../src/indicators/index.ts';

/** Nice of every thread of this process, by thread id (Linux /proc; the field after the command name's closing parenthesis). */
function threadNices(): Map<number, number> {
  const nices = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      nices.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      /* the thread ended while listed */
    }
  }
  return nices;
}

const bars = (n: number) => {
  const close = Float64Array.from({ length: n }, (_, i) => 1.1 + Math.sin(i / 7) / 100);
  return { ts: Float64Array.from({ length: n }, (_, i) => i * 60_000), open: close, high: close, low: close, close, volume: new Float64Array(n) };
};
const job = (source: string) => ({ source, bars: bars(100), timeframe: '1min', symbol: 'EURUSD', mintick: 0.00001 });
const SMA = '//@version=5\nindicator("t")\nplot(ta.sma(close, 5))\n';

describe('PinePool threads', () => {
  /** The nice this test runs at (0 unless a CI runs it niced): lowering is relative to it. */
  const base = threadNices().get(process.pid)!;
  const lower = Math.min(19, base + 7);

  it('run scripts at the nice they were given while the event loop keeps its own', { skip: base >= 19 && 'already at the lowest priority' }, async () => {
    const before = threadNices();
    const pool = new PinePool({ size: 2, wallMs: 2000, maxQueue: 8, heapMb: 128, nice: lower });
    try {
      const [a, b] = await Promise.all([pool.run(job(SMA)), pool.run(job(SMA))]);
      assert.ok(a.ok && b.ok);
      const lowered = [...threadNices()].filter(([tid, nice]) => nice === lower && !before.has(tid));
      assert.equal(lowered.length, 2, 'one lowered thread per worker');
      assert.equal(threadNices().get(process.pid), before.get(process.pid), 'the event loop’s thread is not lowered');
    } finally {
      await pool.close();
    }
  });

  it('leaves the threads at the process’s own priority with nice 0', async () => {
    const pool = new PinePool({ size: 1, wallMs: 2000, maxQueue: 8, heapMb: 128, nice: 0 });
    try {
      assert.ok((await pool.run(job(SMA))).ok);
      assert.deepEqual([...threadNices().values()].filter((n) => n !== base), []);
    } finally {
      await pool.close();
    }
  });
});
