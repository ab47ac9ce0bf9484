/**
 * Feature sessions: a warm worker per strategy answers exactly what the one-shot features job
 * answers, keeps strategies in separate processes, contains hostile code at call time (the call
 * fails, the session and the pool carry on), re-opens after its process dies, and close() ends it.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { NORMAL_STRATEGY } from '../helpers/strategies.ts';
import type { FeatureSession } from '../../src/sandbox/feature-session.ts';
import { StrategyJobError, StrategyRuntime, type FeaturesResult } from '../../src/sandbox/runtime-pool.ts';
import type { OhlcColumns } from '../../src/lib/bar-columns.ts';

const NORMAL = NORMAL_STRATEGY;

const TYPICAL = `
import numpy as np
import pandas as pd

def feature_engineering(df, close, open_, high, low):
    df['ret_1'] = close.pct_change()
    df['ema_50'] = close.ewm(span=50, adjust=False).mean()
    delta = close.diff()
    gain = delta.clip(lower=0).ewm(alpha=1 / 14, adjust=False).mean()
    loss = (-delta.clip(upper=0)).ewm(alpha=1 / 14, adjust=False).mean()
    df['rsi_14'] = 100 * gain / (gain + loss)
    df['hour'] = df.index.hour
    df['vol'] = np.log(close).diff().rolling(20).std()
    return df

def strategy_config():
    return {}
`;

/** Python writing `data` (a bytes expression) to every descriptor it may hold: its answer pipe among them. */
const onEveryFd = (data: string) =>
  `for fd in range(3, 64):\n            try:\n                os.write(fd, ${data})\n            except OSError:\n                pass`;

/** Behaves on most windows; the window's length picks an escape to try at call time. */
const ESCAPES: Array<[string, number, string, 'refused' | 'timeout' | 'memory' | 'error' | 'crash']> = [
  ['read /etc/passwd', 101, "df['x'] = len(open('/etc/passwd').read())", 'refused'],
  ['write a file', 102, "open('/tmp/x', 'w').write('hi')", 'refused'],
  ['os.system via a pandas module', 103, "os.system('id')", 'refused'],
  ['fork', 104, 'os.fork()', 'refused'],
  ['kill the session process', 105, 'os.kill(os.getppid(), 9)', 'refused'],
  [
    '__subclasses__ escape to Popen',
    106,
    "for c in ().__class__.__base__.__subclasses__():\n            if c.__name__ == 'Popen': c(['id'])",
    'refused',
  ],
  ['pd.read_csv of a path', 107, "pd.read_csv('/etc/os-release')", 'refused'],
  ['df.to_csv to a file', 108, "df.to_csv('/tmp/out.csv')", 'refused'],
  ['exec of a string', 109, "exec('import os')", 'refused'],
  ['infinite loop', 110, 'while True:\n            pass', 'timeout'],
  ['memory bomb', 111, 'x = bytearray(8 * 1024 ** 3)', 'memory'],
  ['SystemExit', 112, 'raise SystemExit(3)', 'error'],
  ['os._exit (no audit event)', 113, 'os._exit(3)', 'crash'],
  ['a forged answer on every fd', 114, onEveryFd("b'\\x03\\x00\\x00\\x00abc'"), 'crash'],
  [
    'a forged answer announcing more than the largest answer',
    115,
    onEveryFd(`b'\\x13\\x00\\x00\\x00{"payload_bytes":1}\\xff\\xff\\xff\\xff'`),
    'error',
  ],
  ['a forged answer whose payload size is not a number', 116, onEveryFd(`b'\\x15\\x00\\x00\\x00{"payload_bytes":"x"}'`), 'crash'],
  ['a forged answer nested deeper than the parser goes', 117, onEveryFd("b'\\xa0\\x86\\x01\\x00' + b'[' * 100000"), 'crash'],
];

const HOSTILE = `
import numpy as np
import pandas as pd
import pandas.io.common

def feature_engineering(df, close, open_, high, low):
    os = pd.io.common.os
${ESCAPES.map(([, n, body]) => `    if len(df) == ${n}:\n        ${body}`).join('\n')}
    if len(df) == 120:
        os.write(1, b'\\x05\\x00\\x00\\x00{"id"')
        print('x' * 100000)
    df['sma_3'] = close.rolling(3).mean()
    df['range'] = high - low
    df = df.bfill().ffill()
    return df

def strategy_config():
    return {}
`;

function makeBars(n: number): OhlcColumns {
  const close = Float64Array.from({ length: n }, (_, i) => 1.1 + Math.sin(i / 30) * 0.01 + ((i * 7919) % 13) * 1e-5);
  return {
    ts: Float64Array.from({ length: n }, (_, i) => 1.7e12 + i * 900_000),
    open: close,
    high: close.map((x) => x + 0.0003),
    low: close.map((x) => x - 0.0003),
    close,
  };
}

const window = (b: OhlcColumns, from: number, to: number): OhlcColumns => ({
  ts: b.ts.slice(from, to),
  open: b.open.slice(from, to),
  high: b.high.slice(from, to),
  low: b.low.slice(from, to),
  close: b.close.slice(from, to),
});

/** Bit for bit: the same columns and the same float64 bytes (NaN payloads included). */
function assertSameBits(actual: FeaturesResult, expected: FeaturesResult): void {
  assert.deepEqual(actual.columns, expected.columns);
  assert.equal(actual.rows, expected.rows);
  actual.values.forEach((v, i) => {
    const e = expected.values[i]!;
    assert.ok(
      Buffer.from(v.buffer, v.byteOffset, v.byteLength).equals(Buffer.from(e.buffer, e.byteOffset, e.byteLength)),
      `column ${actual.columns[i]} differs`,
    );
  });
}

/** The process and its descendants, from /proc (host pids, across the sandbox's PID namespace). */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // exited meanwhile
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []));
  return tree;
}

function alive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

async function expectFailure(call: Promise<unknown>, kind: string): Promise<void> {
  await assert.rejects(call, (err: unknown) => {
    assert.ok(err instanceof StrategyJobError, String(err));
    assert.equal(err.kind, kind, err.message);
    return true;
  });
}

describe('FeatureSession (warm sandboxed features worker)', () => {
  let runtime: StrategyRuntime;
  const bars = makeBars(2000);
  const open: FeatureSession[] = [];

  before(async () => {
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 2 });
  });
  after(async () => {
    await Promise.all(open.map((s) => s.close()));
    runtime.stop();
  });

  const openSession = async (code: string, limits = {}) => {
    const session = await runtime.openSession(code, limits);
    open.push(session);
    return session;
  };

  /** One session for every escape: each failed call must leave it usable. */
  let hostile: FeatureSession | null = null;
  const sharedHostile = async () => (hostile ??= await openSession(HOSTILE, { timeoutMs: 1500, memoryMb: 512 }));

  it('answers bit for bit what the one-shot features job answers, call after call', async () => {
    for (const code of [NORMAL, TYPICAL]) {
      const session = await openSession(code);
      for (const [from, to] of [
        [0, 500],
        [1, 501],
        [2, 502],
        [0, 2000],
        [1490, 1990],
      ] as const) {
        const w = window(bars, from, to);
        assertSameBits(await session.features(w), await runtime.features(code, w));
      }
    }
  });

  it('runs each strategy in its own processes, apart from the pool', async () => {
    const [a, b] = [await openSession(NORMAL), await openSession(TYPICAL)];
    await Promise.all([a.features(window(bars, 0, 100)), b.features(window(bars, 0, 100))]);
    const [pa, pb] = [a.processId()!, b.processId()!];
    assert.ok(pa > 0 && pb > 0 && pa !== pb);
    const [ta, tb] = [processTree(pa), processTree(pb)];
    assert.ok(ta.length >= 2 && tb.length >= 2, `a worker runs under each session process (${ta}, ${tb})`);
    assert.equal(ta.filter((pid) => tb.includes(pid)).length, 0, 'no process is shared');
    for (const zygote of runtime.processIds()) assert.ok(!ta.includes(zygote) && !tb.includes(zygote));
  });

  for (const [name, n, , kind] of ESCAPES) {
    it(`contains at call time: ${name} (${kind}); the next call on the session succeeds`, async () => {
      const session = await sharedHostile();
      const pid = session.processId();
      await expectFailure(session.features(window(bars, 0, n)), kind);
      const w = window(bars, 7, 507);
      assertSameBits(await session.features(w), await runtime.features(HOSTILE, w));
      assert.equal(session.processId(), pid, 'the session process stayed; only its worker was replaced');
    });
  }

  it('keeps its protocol when the code writes to stdout', async () => {
    const session = await sharedHostile();
    const w = window(bars, 0, 120);
    assertSameBits(await session.features(w), await runtime.features(HOSTILE, w));
    assertSameBits(await session.features(window(bars, 5, 505)), await runtime.features(HOSTILE, window(bars, 5, 505)));
  });

  it('does not hold up the pool while a session call runs', async () => {
    // The call loops until the test kills its process (the 120 s limit only ends a hung test), so
    // the pool jobs can only finish first if they do not wait for it, however slow the machine.
    const session = await openSession(HOSTILE, { timeoutMs: 120_000, memoryMb: 512 });
    let looping = true;
    const stuck = session
      .features(window(bars, 0, 110))
      .then(
        () => 'answered',
        (err: unknown) => (err instanceof StrategyJobError ? err.kind : String(err)),
      )
      .finally(() => (looping = false));
    const [x, y] = await Promise.all([runtime.features(NORMAL, bars), runtime.features(NORMAL, bars)]);
    assert.deepEqual(
      [x.columns, y.columns],
      [
        ['sma_3', 'range'],
        ['sma_3', 'range'],
      ],
    );
    assert.ok(looping, 'both pool jobs finished while the session call was still looping');
    process.kill(session.processId()!, 'SIGKILL');
    assert.equal(await stuck, 'crash', 'the looping call ends when its process is killed');
  });

  it('refuses code whose module level is refused, when opening', async () => {
    await expectFailure(runtime.openSession(`import os\n${NORMAL}`), 'refused');
  });

  it('fails a call in flight with crash when its process dies', async () => {
    // Seconds of work per call: the kill surely lands while the call runs.
    const slow = TYPICAL.replace('    return df', '    for _ in range(100_000_000):\n        pass\n    return df');
    assert.notEqual(slow, TYPICAL);
    const session = await openSession(slow, { timeoutMs: 120_000 });
    try {
      const call = session.features(window(bars, 0, 500));
      await new Promise((r) => setTimeout(r, 300));
      process.kill(session.processId()!, 'SIGKILL');
      await expectFailure(call, 'crash');
    } finally {
      await session.close();
    }
  });

  it('re-opens transparently when its process dies; close() kills it', async () => {
    const session = await openSession(TYPICAL);
    const w = window(bars, 0, 500);
    const expected = await runtime.features(TYPICAL, w);
    assertSameBits(await session.features(w), expected);
    const first = session.processId()!;
    process.kill(first, 'SIGKILL');
    // Once it is gone (not before: a call made while the kill lands may still be answered), the
    // next call starts a new process.
    for (let i = 0; i < 200 && session.processId() !== null; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(session.processId(), null, 'the killed process is noticed');
    assertSameBits(await session.features(w), expected);
    const second = session.processId()!;
    assert.notEqual(second, first);

    const tree = processTree(second);
    assert.ok(tree.length >= 2 && tree.every(alive));
    await session.close();
    for (let i = 0; i < 40 && tree.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(tree.filter(alive), [], 'the session process and its worker are gone');
    assert.equal(session.processId(), null);
    await expectFailure(session.features(w), 'error');
    assert.deepEqual((await runtime.features(NORMAL, bars)).columns, ['sma_3', 'range'], 'the pool is unaffected');
  });
});
