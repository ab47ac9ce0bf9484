/**
 * The Pine pool's threads: scripts run at the nice the pool was given (a replaced worker is
 * spawned the same way), while the event loop's thread keeps the process's priority. Its
 * workers are shared fairly between users, and a user whose run used up its budget waits for an
 * idle pool and gets a small share of a worker's time.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { PinePool, type PineJobResult } from '../../../src/pine/index.ts';
import { PoolFullError } from '../../../src/lib/fair-share.ts';
import { RateLimitedError } from '../../../src/errors.ts';

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
  return {
    ts: Float64Array.from({ length: n }, (_, i) => i * 60_000),
    open: close,
    high: close,
    low: close,
    close,
    volume: new Float64Array(n),
  };
};
const job = (source: string) => ({ source, bars: bars(100), timeframe: '1min', symbol: 'EURUSD', mintick: 0.00001 });
const SMA = '//@version=5\nindicator("t")\nplot(ta.sma(close, 5))\n';

describe('PinePool threads', () => {
  /** The nice this test runs at (0 unless a CI runs it niced): lowering is relative to it. */
  const base = threadNices().get(process.pid)!;
  const lower = Math.min(19, base + 7);

  it(
    'run scripts at the nice they were given while the event loop keeps its own',
    { skip: base >= 19 && 'already at the lowest priority' },
    async () => {
      const before = threadNices();
      const pool = new PinePool({ size: 2, wallMs: 2000, maxQueue: 8, heapMb: 128, nice: lower });
      try {
        // Two users: one script each, on both workers at once.
        const [a, b] = await Promise.all([pool.run(job(SMA), undefined, 1), pool.run(job(SMA), undefined, 2)]);
        assert.ok(a.ok && b.ok, JSON.stringify([a, b]).slice(0, 400));
        const lowered = [...threadNices()].filter(([tid, nice]) => nice === lower && !before.has(tid));
        assert.equal(lowered.length, 2, 'one lowered thread per worker');
        assert.equal(threadNices().get(process.pid), before.get(process.pid), 'the event loop’s thread is not lowered');
      } finally {
        await pool.close();
      }
    },
  );

  it('leaves the threads at the process’s own priority with nice 0', async () => {
    const pool = new PinePool({ size: 1, wallMs: 2000, maxQueue: 8, heapMb: 128, nice: 0 });
    try {
      assert.ok((await pool.run(job(SMA))).ok);
      assert.deepEqual(
        [...threadNices().values()].filter((n) => n !== base),
        [],
      );
    } finally {
      await pool.close();
    }
  });
});

describe('PinePool fair shares', () => {
  // 10,000 iterations on each of 300 bars: millions of steps, well inside the 30 M budget.
  const SLOW = '//@version=5\nindicator("slow")\ns = 0.0\nfor i = 0 to 9999\n    s := s + i\nplot(s)\n';
  const slowJob = () => ({ ...job(SLOW), bars: bars(300) });

  /** Runs the jobs, all asked for at once in this order, and gives the order in which they finished. */
  async function finishOrder(runs: Array<[string, () => Promise<PineJobResult>]>): Promise<string[]> {
    const order: string[] = [];
    await Promise.all(
      runs.map(([tag, run]) =>
        run().then((r) => {
          assert.ok(r.ok, `${tag}: ${JSON.stringify(r)}`);
          order.push(tag);
        }),
      ),
    );
    return order;
  }

  it('serves users in turn: a user with a queue of slow scripts does not hold the worker from another', async () => {
    const pool = new PinePool({ size: 1, wallMs: 10_000, maxQueue: 16, heapMb: 128, nice: 0 });
    try {
      const order = await finishOrder([
        ['a1', () => pool.run(slowJob(), undefined, 1)],
        ['a2', () => pool.run(slowJob(), undefined, 1)],
        ['a3', () => pool.run(slowJob(), undefined, 1)],
        ['b', () => pool.run(job(SMA), undefined, 2)],
      ]);
      // First come, first served would finish b last.
      assert.deepEqual(order, ['a1', 'b', 'a2', 'a3']);
    } finally {
      await pool.close();
    }
  });

  it('refuses a user’s run past their waiting bound with PoolFullError, and still serves another user', async () => {
    const pool = new PinePool({ size: 1, wallMs: 10_000, maxQueue: 16, heapMb: 128, nice: 0, maxWaitingPerUser: 2 });
    try {
      const flood = [0, 1, 2].map(() => pool.run(slowJob(), undefined, 1));
      await assert.rejects(
        pool.run(slowJob(), undefined, 1),
        (err: unknown) => err instanceof PoolFullError && /2 of your requests/.test(err.message),
      );
      assert.ok((await pool.run(job(SMA), undefined, 2)).ok);
      for (const r of await Promise.all(flood)) assert.ok(r.ok);
    } finally {
      await pool.close();
    }
  });

  it('a user whose run used up its budget runs only on an idle pool, so another user finds a worker free', async () => {
    // An allowance that refills at once: this test is about the order alone.
    const pool = new PinePool({ size: 2, wallMs: 10_000, maxQueue: 16, heapMb: 128, nice: 0, penalizedShare: 1e6 });
    try {
      const spent = await pool.run({ ...slowJob(), maxSteps: 100_000 }, undefined, 'x');
      assert.ok(!spent.ok && 'problem' in spent && spent.problem.exhausted, JSON.stringify(spent));
      assert.ok(pool.penalized('x'));
      assert.ok(!pool.penalized('a'));
      const order = await finishOrder([
        ['a', () => pool.run({ ...slowJob(), bars: bars(100) }, undefined, 'a')],
        ['x', () => pool.run(job(SMA), undefined, 'x')],
        ['b', () => pool.run(job(SMA), undefined, 'b')],
      ]);
      // A worker was free from the start: only the penalty keeps x's short script back until a is done.
      assert.equal(order.at(-1), 'x', order.join(' '));
    } finally {
      await pool.close();
    }
  });

  it('a penalized user gets a small share of a worker’s time: past it their call is refused (429) with the wait', async () => {
    const pool = new PinePool({ size: 2, wallMs: 2000, maxQueue: 16, heapMb: 128, nice: 0, penalizedShare: 0.001 });
    try {
      assert.ok((await pool.run(job(SMA), undefined, 'warm')).ok, 'the worker has booted');
      // No step budget to speak of: each run goes to the 2 s time limit, a whole bucket's worth.
      // A var in the loop keeps it bar by bar (no column evaluation): 3e8 loop steps, past 2 s on any machine.
      const SPIN = '//@version=5\nindicator("spin")\nvar float s = 0.0\nfor i = 0 to 9999\n    s := s + i\nplot(s)\n';
      const spin = { ...job(SPIN), bars: bars(30_000), maxSteps: 1e12 };
      let refused: RateLimitedError | null = null;
      for (let i = 0; i < 3 && !refused; i++) {
        try {
          const r = await pool.run(spin, undefined, 'x');
          assert.ok(!r.ok && 'problem' in r && r.problem.exhausted, JSON.stringify(r));
        } catch (err) {
          if (!(err instanceof RateLimitedError)) throw err;
          refused = err;
        }
      }
      assert.ok(refused, 'refused within three runs, each spending a bucket of one run');
      assert.match(refused.message, /retry in \d+ s/);
      assert.ok(Number(refused.headers['retry-after']) >= 1, refused.headers['retry-after']);
      await assert.rejects(pool.run(job(SMA), undefined, 'x'), RateLimitedError, 'refilled at 1 ms a second: still refused');
      assert.ok((await pool.run(job(SMA), undefined, 'y')).ok, 'another user is served');
    } finally {
      await pool.close();
    }
  });

  it('answers a run still waiting when the pool closes as a failure of ours', async () => {
    const pool = new PinePool({ size: 1, wallMs: 10_000, maxQueue: 16, heapMb: 128, nice: 0 });
    const first = pool.run(slowJob(), undefined, 1);
    const waiting = pool.run(job(SMA), undefined, 2);
    await pool.close();
    const [a, b] = await Promise.all([first, waiting]);
    assert.ok(!a.ok && 'failure' in a && /shutting down/.test(a.failure));
    assert.ok(!b.ok && 'failure' in b && /shutting down/.test(b.failure));
  });
});
