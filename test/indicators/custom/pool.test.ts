/**
 * The Pine worker pool's threads: a script runs on a worker thread at the nice value the pool was
 * given (Linux keeps one per thread), while the event loop's thread keeps its own.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { getPriority } from 'node:os';
import { after, describe, it } from 'node:test';
import { PinePool } from '../../../src/indicators/custom/pool.ts';

const niceOfThreads = (): Map<number, number> => {
  const out = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task').map(Number)) {
    try {
      out.set(tid, getPriority(tid));
    } catch {
      // A thread that ended between the listing and the call.
    }
  }
  return out;
};

const SCRIPT = '//@version=5\nindicator("c")\nplot(close)\n';
const bars = { ts: Float64Array.of(1, 2), open: Float64Array.of(1, 1), high: Float64Array.of(1, 1), low: Float64Array.of(1, 1), close: Float64Array.of(1, 2), volume: Float64Array.of(0, 0) };

describe('PinePool', () => {
  const pool = new PinePool({ size: 1, wallMs: 2000, maxQueue: 8, heapMb: 128, nice: 10 });
  after(() => pool.close());

  it('runs scripts on a thread of lower priority, leaving the event loop’s thread as it was', async () => {
    const before = getPriority(process.pid);
    const r = await pool.run({ source: SCRIPT, bars, timeframe: '1min', symbol: 'EURUSD', mintick: 0.00001 });
    assert.equal(r.ok, true, JSON.stringify(r));
    const threads = niceOfThreads();
    assert.equal(threads.get(process.pid), before, 'the main thread keeps its priority');
    // V8's own threads (GC, compiler) stay where they were: exactly the worker thread stepped back.
    assert.equal([...threads.values()].filter((n) => n === Math.max(10, before)).length, 1, JSON.stringify([...threads]));
  });
});
