/**
 * The sandboxed runtime contains hostile code even when the static checks are bypassed (these
 * jobs go straight to the pool): every escape is refused or contained, and a normal job
 * succeeds right after each one. Its zygotes are shared fairly among the users whose jobs wait.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { NORMAL_STRATEGY } from '../helpers/strategies.ts';
import { OVER_SHARE_NICE, StrategyJobError, StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import { PoolFullError } from '../../src/lib/fair-share.ts';
import type { OhlcColumns } from '../../src/lib/bar-columns.ts';

const NORMAL = NORMAL_STRATEGY;

const fe = (body: string, imports = '') =>
  `${imports}\ndef feature_engineering(df, close, open_, high, low):\n${body
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n    return df\n`;

/** `os`, reached through a module of an allowed library: past the import guard, so the audit hook must hold. */
const VIA_PANDAS = 'import pandas as pd\nimport pandas.io.common\nos = pd.io.common.os';

/** Each escape and the failure kind the sandbox must answer with. */
const HOSTILE: Array<[string, string, 'refused' | 'timeout' | 'memory' | 'error']> = [
  ['read /etc/passwd', fe("df['x'] = len(open('/etc/passwd').read())"), 'refused'],
  ['write a file', fe("open('/tmp/x', 'w').write('hi')"), 'refused'],
  ['open a socket', fe("socket.socket().connect(('127.0.0.1', 22))", 'import socket'), 'refused'],
  ['import os', fe("os.system('id')", 'import os'), 'refused'],
  ['import xgboost (ctypes behind it)', fe('xgboost.core._LIB', 'import xgboost'), 'refused'],
  ['os.system via a pandas module', fe("os.system('id')", VIA_PANDAS), 'refused'],
  ['subprocess via a pandas module', fe("clip.subprocess.run(['id'])", 'import pandas.io.clipboard as clip'), 'refused'],
  ['fork', fe('os.fork()', VIA_PANDAS), 'refused'],
  ['fork bomb', fe('while True:\n    os.fork()', VIA_PANDAS), 'refused'],
  [
    '__subclasses__ escape to Popen',
    fe("for c in ().__class__.__base__.__subclasses__():\n    if c.__name__ == 'Popen': c(['id'])"),
    'refused',
  ],
  ['np.load with pickle', fe("np.load('/etc/hostname', allow_pickle=True)", 'import numpy as np'), 'refused'],
  ['pd.read_csv of a URL', fe("pd.read_csv('http://127.0.0.1:1/x.csv')", 'import pandas as pd'), 'refused'],
  ['pd.read_csv of a path', fe("pd.read_csv('/etc/os-release')", 'import pandas as pd'), 'refused'],
  ['df.to_csv to a file', fe("df.to_csv('/tmp/out.csv')"), 'refused'],
  ['delete a file', fe("os.remove('/sandbox/sandbox_runtime.py')", VIA_PANDAS), 'refused'],
  ['kill the zygote', fe('os.kill(os.getppid(), 9)', VIA_PANDAS), 'refused'],
  ['exec of a string', fe("exec('import os')"), 'refused'],
  ['ctypes', fe("ctypes.CDLL(None).system(b'id')", 'import ctypes'), 'refused'],
  ['infinite loop', fe('while True:\n    pass'), 'timeout'],
  ['memory bomb', fe('x = bytearray(8 * 1024 ** 3)'), 'memory'],
  ['SystemExit', fe('raise SystemExit(3)'), 'error'],
];

describe('StrategyRuntime (sandboxed Python pool)', () => {
  let runtime: StrategyRuntime;
  let bars: OhlcColumns;

  before(async () => {
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 2 });
    const n = 2000;
    const close = Float64Array.from({ length: n }, (_, i) => 1.1 + Math.sin(i / 30) * 0.01);
    bars = {
      ts: Float64Array.from({ length: n }, (_, i) => 1.7e12 + i * 900_000),
      open: close,
      high: close.map((x) => x + 0.0003),
      low: close.map((x) => x - 0.0003),
      close,
    };
  });
  after(() => runtime.stop());

  it('runs feature_engineering on the bars and returns the columns it added', async () => {
    const result = await runtime.features(NORMAL, bars);
    assert.deepEqual(result.columns, ['sma_3', 'range']);
    assert.equal(result.rows, 2000);
    const c = bars.close;
    assert.ok(Math.abs(result.values[0]![10]! - (c[8]! + c[9]! + c[10]!) / 3) < 1e-15);
    assert.equal(result.values[0]![0], result.values[0]![2], 'the warm-up rows were back-filled');
    assert.ok(Math.abs(result.values[1]![5]! - 0.0006) < 1e-12);
  });

  it('runs strategy_config', async () => {
    assert.deepEqual(await runtime.config(NORMAL), { model_type: 'RandomForestClassifier', title: 'normal' });
  });

  for (const [name, code, kind] of HOSTILE) {
    it(`contains: ${name} (${kind}), and a normal job succeeds right after`, async () => {
      await assert.rejects(runtime.features(code, bars, { timeoutMs: 2000, memoryMb: 512 }), (err: unknown) => {
        assert.ok(err instanceof StrategyJobError, String(err));
        assert.equal(err.kind, kind, err.message);
        return true;
      });
      const ok = await runtime.features(NORMAL, bars);
      assert.deepEqual(ok.columns, ['sma_3', 'range']);
    });
  }

  it('keeps the protocol when strategy code writes to stdout (the zygote’s channel to Node)', async () => {
    const noisy = fe(`os.write(1, b'\\x05\\x00\\x00\\x00{"id"')\nprint('x' * 100000)\ndf['x'] = close`, VIA_PANDAS);
    assert.deepEqual((await runtime.features(noisy, bars)).columns, ['x']);
    assert.deepEqual((await runtime.features(NORMAL, bars)).columns, ['sma_3', 'range']);
  });

  it('keeps users apart: a job sees nothing a previous job left behind', async () => {
    const leave = `import numpy as np\nimport pandas as pd\nLEFT = 1\n${fe('np.LEFT_BEHIND = 42\npd.DataFrame.hacked = True')}`;
    await runtime.features(leave, bars);
    const look = fe(
      "df['seen'] = float(hasattr(np, 'LEFT_BEHIND')) + float(hasattr(pd.DataFrame, 'hacked'))",
      'import numpy as np\nimport pandas as pd',
    );
    for (let i = 0; i < 4; i++) {
      const result = await runtime.features(look, bars);
      assert.equal(result.values[0]![0], 0, 'each job runs in a fresh fork of the clean zygote');
    }
  });

  it('replaces a zygote that dies, failing only the job it ran', async () => {
    const slow = fe("x = 0\nfor i in range(20_000_000):\n    x += i\ndf['x'] = close");
    const before = runtime.processIds();
    const [doomed, other] = [runtime.features(slow, bars, { timeoutMs: 5000 }), runtime.features(slow, bars, { timeoutMs: 5000 })];
    await new Promise((r) => setTimeout(r, 200));
    process.kill(before[0]!, 'SIGKILL');
    const results = await Promise.allSettled([doomed, other]);
    const failed = results.filter((r) => r.status === 'rejected');
    assert.equal(failed.length, 1, 'only the job on the killed zygote fails');
    assert.equal(((failed[0] as PromiseRejectedResult).reason as StrategyJobError).kind, 'crash');
    for (let i = 0; i < 3; i++) assert.deepEqual((await runtime.features(NORMAL, bars)).columns, ['sma_3', 'range']);
    assert.equal(runtime.processIds().length, 2);
    assert.notDeepEqual(runtime.processIds(), before, 'a fresh zygote took the dead one’s place');
  });
});

describe('StrategyRuntime fair shares', () => {
  let runtime: StrategyRuntime;
  const n = 500;
  const close = Float64Array.from({ length: n }, (_, i) => 1.1 + Math.sin(i / 30) * 0.01);
  const bars: OhlcColumns = {
    ts: Float64Array.from({ length: n }, (_, i) => 1.7e12 + i * 900_000),
    open: close,
    high: close,
    low: close,
    close,
  };
  /** Plain Python that keeps a core busy for a while (no sleep: `time` is not importable). */
  const SLOW = fe("x = 0\nfor i in range(15_000_000):\n    x += i\ndf['x'] = close");

  before(async () => {
    // Two zygotes, one job per user at a time (the default on two zygotes), three waiting per user.
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 2, maxWaitingPerUser: 3 });
  });
  after(() => runtime.stop());

  /** Runs the jobs, all asked for at once in this order, and gives the order in which they finished. */
  async function finishOrder(jobs: Array<[string, () => Promise<unknown>]>): Promise<string[]> {
    const order: string[] = [];
    await Promise.all(jobs.map(([tag, run]) => run().then(() => order.push(tag))));
    return order;
  }

  it('a user with many slow jobs queued holds one zygote: another user’s job takes the other at once', async () => {
    const order = await finishOrder([
      ['a1', () => runtime.features(SLOW, bars, { user: 1 })],
      ['a2', () => runtime.features(SLOW, bars, { user: 1 })],
      ['a3', () => runtime.features(SLOW, bars, { user: 1 })],
      ['b', () => runtime.features(NORMAL, bars, { user: 2 })],
    ]);
    // First come, first served would run a1 and a2 on both zygotes and b only after one of them.
    assert.ok(order.indexOf('b') < order.indexOf('a2'), `b waited behind user 1's queue: ${order.join(' ')}`);
    assert.deepEqual(
      order.filter((t) => t.startsWith('a')),
      ['a1', 'a2', 'a3'],
      "one user's jobs keep their order",
    );
  });

  it('refuses a user’s job past their waiting bound with PoolFullError, and still serves another user', async () => {
    const flood = [0, 1, 2, 3].map(() => runtime.features(SLOW, bars, { user: 1 }));
    await assert.rejects(
      runtime.features(SLOW, bars, { user: 1 }),
      (err: unknown) => err instanceof PoolFullError && /3 of your requests/.test(err.message),
    );
    assert.deepEqual((await runtime.features(NORMAL, bars, { user: 2 })).columns, ['sma_3', 'range']);
    await Promise.all(flood);
    assert.equal(runtime.waiting, 0);
  });

  it('jobs without a user share one key: they queue behind each other, not beside', async () => {
    const order = await finishOrder([
      ['s1', () => runtime.features(SLOW, bars)],
      ['s2', () => runtime.features(SLOW, bars)],
      ['u', () => runtime.features(NORMAL, bars, { user: 3 })],
    ]);
    assert.ok(order.indexOf('u') < order.indexOf('s2'), order.join(' '));
  });

  it('a penalized user’s job (lowered priority) waits for an idle pool; another user’s job does not', async () => {
    const order = await finishOrder([
      ['a', () => runtime.features(SLOW, bars, { user: 1 })],
      ['penalized', () => runtime.features(NORMAL, bars, { user: 4, nice: 19 })],
      ['b', () => runtime.features(NORMAL, bars, { user: 2 })],
    ]);
    // With a zygote free from the start, only the penalty keeps the short job back until a is done.
    assert.equal(order.at(-1), 'penalized', order.join(' '));
  });

  it('counts the feature sessions each user holds open', async () => {
    const session = await runtime.openSession(NORMAL, { user: 9 });
    assert.equal(runtime.sessionsFor(9), 1);
    assert.equal(runtime.sessionsFor(10), 0);
    await session.close();
    assert.equal(runtime.sessionsFor(9), 0);
  });
});

describe('StrategyRuntime fair shares by CPU time', () => {
  let runtime: StrategyRuntime;
  const n = 500;
  const close = Float64Array.from({ length: n }, (_, i) => 1.1 + Math.sin(i / 30) * 0.01);
  const bars: OhlcColumns = {
    ts: Float64Array.from({ length: n }, (_, i) => 1.7e12 + i * 900_000),
    open: close,
    high: close,
    low: close,
    close,
  };
  const SLOW = fe("x = 0\nfor i in range(15_000_000):\n    x += i\ndf['x'] = close");
  /** The niceness the job runs at, read through a pandas module (the audit hook is off in this pool). */
  const NICENESS = `${VIA_PANDAS}\ndef strategy_config():\n    return {"nice": os.getpriority(os.PRIO_PROCESS, 0)}\n`;

  before(async () => {
    // One zygote: jobs finish in the order they start.
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 1, walls: { uid: true, seccomp: true, audit: false } });
  });
  after(() => runtime.stop());

  it('a light user’s job is started before a heavy user’s queued jobs', async () => {
    await runtime.features(SLOW, bars, { user: 1 }); // user 1 used a core for a while
    await runtime.features(NORMAL, bars, { user: 2 }); // user 2 a moment
    const order: string[] = [];
    const job = (tag: string, code: string, user: number) => runtime.features(code, bars, { user }).then(() => void order.push(tag));
    const blocker = job('other', SLOW, 3); // holds the zygote while the others queue
    // The heavy user asks first; by who asked first, or who was served least recently, they would go first.
    await Promise.all([blocker, job('heavy 1', NORMAL, 1), job('heavy 2', NORMAL, 1), job('light', NORMAL, 2)]);
    assert.deepEqual(order, ['other', 'light', 'heavy 1', 'heavy 2']);
  });

  it('a user with jobs waiting behind the one that starts runs it at a lower CPU priority; alone, at the normal one', async () => {
    const nice = (user: number, penalty = 0) => runtime.config(NICENESS, { user, nice: penalty }).then((c) => (c as { nice: number }).nice);
    assert.equal(await nice(5), 0);
    assert.deepEqual(
      await Promise.all([nice(5), nice(5), nice(5)]),
      [OVER_SHARE_NICE, OVER_SHARE_NICE, 0],
      'the last of the three had none behind it',
    );
    assert.equal(await nice(6, 19), 19, 'an overrun penalty stays what it is');
  });
});
