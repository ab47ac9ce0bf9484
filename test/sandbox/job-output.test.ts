/**
 * Every job has its own stdout and stderr: a failed job's error shows what that job printed (useful
 * to its user), and nothing any other job printed reaches another user's error, result or the
 * service's log lines — whether the next job fails by itself, or its zygote or session process is
 * killed under it. The jobs run straight on the pool with the audit hook off, as an attacker
 * would have them (they write to the raw descriptors too).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { withOutput } from '../../src/sandbox/job-output.ts';
import { StrategyJobError, StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import type { OhlcColumns } from '../../src/lib/bar-columns.ts';
import { jobFailure } from '../helpers/job-failure.ts';

const PRELUDE = readFileSync(join(import.meta.dirname, 'walls', '_escape.py'), 'utf8');

const N = 300;
const BARS: OhlcColumns = (() => {
  const ts = new Float64Array(N).map((_, i) => Date.UTC(2024, 0, 2) + i * 900_000);
  const close = new Float64Array(N).map((_, i) => 1.1 + 0.001 * Math.sin(i / 7));
  return { ts, open: close, high: close.map((c) => c + 0.0005), low: close.map((c) => c - 0.0005), close };
})();

/** A strategy that prints MARKER on every way out (print, stderr, the raw descriptors), then `then`. */
const printer = (marker: string, then: string) => `MARKER = ${JSON.stringify(marker)}
${PRELUDE}
def strategy_config():
    sys = _import("sys")
    print("stdout says", MARKER)
    print("stderr says", MARKER, file=sys.stderr)
    os.write(1, ("raw fd 1 " + MARKER + "\\n").encode())
    os.write(2, ("raw fd 2 " + MARKER + "\\n").encode())
    ${then}
`;

/** Spins until killed. */
const SPINNER = `${PRELUDE}
def strategy_config():
    while True:
        pass
`;

const marker = (who: string) => `sf-${who}-${randomBytes(8).toString('hex')}`;

const failure = jobFailure;

describe('job output: each job its own stdout and stderr', () => {
  let runtime: StrategyRuntime;
  const logLines: string[] = [];
  before(async () => {
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (logLines.push(chunk.toString()), done()) });
    runtime = await StrategyRuntime.start({ log: createLogger('debug', sink), size: 1, walls: { uid: true, seccomp: true, audit: false } });
  });
  after(() => runtime?.stop());

  it("a failed job's error shows what it printed (stdout, stderr, raw descriptors), after its own traceback lines", async () => {
    const a = marker('a');
    const err = await failure(runtime.config(printer(a, 'raise ValueError("bad " + MARKER)')));
    assert.equal(err.kind, 'error');
    assert.match(err.message, new RegExp(`^ValueError: bad ${a}\\n  line \\d+, in strategy_config: raise ValueError`));
    for (const line of [`stdout says ${a}`, `stderr says ${a}`, `raw fd 1 ${a}`, `raw fd 2 ${a}`])
      assert.ok(err.message.includes(line), `${line} in ${err.message}`);
  });

  it('a long output is cut to its first and last lines, saying how much was left out', async () => {
    const code = `${PRELUDE}
def strategy_config():
    print("FIRST LINE")
    for i in range(100_000):
        print("middle", i)
    print("LAST LINE")
    raise ValueError("done")
`;
    const err = await failure(runtime.config(code));
    assert.match(err.message, /FIRST LINE/);
    assert.match(err.message, /LAST LINE$/);
    assert.match(err.message, /bytes left out/);
    assert.ok(!err.message.includes('middle 50000\n'), 'the middle is not kept');
    assert.ok(err.message.length < 7_000, `${err.message.length} characters`);
  });

  for (const [how, next] of [
    ['its zygote is killed under it', 'kill'],
    ['it crashes by itself', 'crash'],
    ['it fails with output of its own', 'fail'],
  ] as const) {
    for (const aEnds of ['completes', 'fails'] as const) {
      it(`user A's job prints a secret and ${aEnds}; user B's job then sees none of it when ${how}`, async () => {
        const a = marker('a');
        const b = marker('b');
        logLines.length = 0;
        if (aEnds === 'completes') assert.deepEqual(await runtime.config(printer(a, 'return {"ok": 1}')), { ok: 1 });
        else assert.match((await failure(runtime.config(printer(a, 'raise ValueError("A failed")')))).message, new RegExp(a));

        let err: StrategyJobError;
        if (next === 'kill') {
          const zygote = runtime.processIds()[0]!;
          const job = failure(runtime.config(SPINNER, { timeoutMs: 20_000 }));
          await new Promise((r) => setTimeout(r, 500));
          process.kill(zygote, 'SIGKILL');
          err = await job;
          assert.equal(err.kind, 'crash');
        } else if (next === 'crash') {
          err = await failure(runtime.config(`${PRELUDE}\ndef strategy_config():\n    os._exit(3)\n`));
          assert.equal(err.kind, 'crash');
        } else {
          err = await failure(runtime.config(printer(b, 'raise ValueError("B failed")')));
          assert.ok(err.message.includes(`stdout says ${b}`), "B's own output is B's to see");
        }
        assert.ok(!err.message.includes(a), `B's error holds A's output: ${err.message}`);
        const result = await runtime.config(`${PRELUDE}\ndef strategy_config():\n    return {"seen": "none"}\n`);
        assert.deepEqual(result, { seen: 'none' }, 'the next result is its own');
        assert.ok(logLines.length > 0 || next !== 'kill', 'the killed zygote was logged');
        for (const line of logLines) assert.ok(!line.includes(a) && !line.includes(b), `a log line holds a job's output: ${line}`);
      });
    }
  }
});

describe('job output: what an error shows of it', () => {
  it('passes on no terminal escape or control character, and stays under the failure schema’s 10,000 characters', () => {
    const excerpt = Buffer.from('\x1b[2J\x1b[31mred\x1b[0m\r\nbell\x07 nul\x00 tab\there\n');
    assert.equal(
      withOutput('ValueError: x', { excerpt, bytes: excerpt.length, dropped: 0, head: excerpt.length }),
      'ValueError: x\n--- what the strategy printed (38 bytes) ---\nred\nbell nul tab\there',
    );
    const long = withOutput('E'.repeat(20_000), { excerpt: Buffer.alloc(4096, 'y'), bytes: 1e9, dropped: 1e9 - 4096, head: 1024 });
    assert.ok(long.length < 10_000, `${long.length}`);
    assert.equal(withOutput('E', { excerpt: Buffer.alloc(0), bytes: 0, dropped: 0, head: 0 }), 'E', 'nothing printed, nothing added');
  });
});

describe('job output: feature sessions', () => {
  let runtime: StrategyRuntime;
  const logLines: string[] = [];
  before(async () => {
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (logLines.push(chunk.toString()), done()) });
    runtime = await StrategyRuntime.start({ log: createLogger('debug', sink), size: 1, walls: { uid: true, seccomp: true, audit: false } });
  });
  after(() => runtime?.stop());

  it("a failed call shows the worker's output since the last answer; a killed session process shows nothing; no log line holds any", async () => {
    const a = marker('a');
    const code = `MARKER = ${JSON.stringify(a)}
${PRELUDE}
def feature_engineering(df, close, open_, high, low):
    sys = _import("sys")
    print("call of", len(df), MARKER)
    os.write(2, ("raw " + MARKER + "\\n").encode())
    if len(df) == 101:
        raise ValueError("window 101")
    if len(df) == 102:
        while True:
            pass
    df["x"] = close
    return df

def strategy_config():
    return {}
`;
    const session = await runtime.openSession(code);
    try {
      const window = (n: number): OhlcColumns => ({
        ts: BARS.ts.slice(0, n),
        open: BARS.open.slice(0, n),
        high: BARS.high.slice(0, n),
        low: BARS.low.slice(0, n),
        close: BARS.close.slice(0, n),
      });
      assert.deepEqual((await session.features(window(100))).columns, ['x']);
      const err = await failure(session.features(window(101)));
      assert.match(err.message, /^ValueError: window 101/);
      assert.ok(err.message.includes(`call of 101 ${a}`), err.message);
      assert.ok(!err.message.includes('call of 100 '), 'the earlier call’s output was its own');
      const spinning = failure(session.features(window(102)));
      await new Promise((r) => setTimeout(r, 500));
      process.kill(session.processId()!, 'SIGKILL');
      const killed = await spinning;
      assert.equal(killed.kind, 'crash');
      assert.ok(!killed.message.includes(a), killed.message);
      assert.deepEqual((await session.features(window(100))).columns, ['x'], 'the next call re-opens the session');
    } finally {
      await session.close();
    }
    for (const line of logLines) assert.ok(!line.includes(a), `a log line holds the output: ${line}`);
  });
});
