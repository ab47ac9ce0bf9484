/**
 * Names are bound to their variables before any bar runs, with Pine's lexical scopes: a block sees
 * what it and its enclosing blocks declared before it; a function sees its parameters, its own
 * names and the script's top-level ones declared by the time it is called on the bar.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runJob } from '../../../src/pine/index.ts';

const n = 40;
const close = Float64Array.from({ length: n }, (_, i) => 1.1 + Math.sin(i) / 100);
const open = Float64Array.from({ length: n }, (_, i) => 1.1 + Math.cos(i) / 100);
const bars = {
  ts: Float64Array.from({ length: n }, (_, i) => Date.UTC(2024, 0, 2) + i * 900_000),
  open,
  high: Float64Array.from(close, (c, i) => Math.max(c, open[i]!) + 0.001),
  low: Float64Array.from(close, (c, i) => Math.min(c, open[i]!) - 0.001),
  close,
  volume: new Float64Array(n).fill(1),
};
const script = (body: string) => `//@version=5\nindicator("t")\n${body.trim()}\n`;

/** The first plot's values, or the problem's message (it starts with `line L:C:`). */
function run(body: string): number[] | string {
  const r = runJob({ id: 1, source: script(body), bars, timeframe: '15min', symbol: 'EURUSD', mintick: 0.00001, wallMs: 2000 });
  if (r.ok) return Array.from(r.result.plots[0]!.values);
  if ('problem' in r) return r.problem.message;
  throw new Error(r.failure);
}
const each = (f: (i: number) => number) => Array.from({ length: n }, (_, i) => f(i));

describe('names and their variables', () => {
  it('a function reads a top-level variable declared before the call, on every bar', () => {
    assert.deepEqual(
      run('f(x) => x + g\ng = close\nplot(f(1))'),
      each((i) => 1 + close[i]!),
    );
  });

  it('a function called before the top-level variable it reads is declared is told so, at the name', () => {
    assert.match(run('f(x) => x + g\ny = f(1)\ng = close\nplot(y)') as string, /^line 3:13: unknown name 'g'/);
  });

  it("a block's declaration hides the outer one inside the block only", () => {
    const body = 'x = close\ny = 0.0\nif close > open\n    x = 100.0\n    y := x\nplot(x + y)';
    assert.deepEqual(
      run(body),
      each((i) => close[i]! + (close[i]! > open[i]! ? 100 : 0)),
    );
  });

  it("a declaration's value reads the outer variable of its name", () => {
    assert.deepEqual(
      run('x = close\nif true\n    x = x * 2\n    plot_v = x\nplot(x)'),
      each((i) => close[i]!),
    );
    assert.match(run('x = x + 1\nplot(x)') as string, /^line 3:5: unknown name 'x'/);
  });

  it('declaring a name twice in one block is refused where the second stands', () => {
    assert.match(run('x = close\nx = open\nplot(x)') as string, /^line 4:1: 'x' is already declared in this block/);
    assert.match(run('s = 0.0\nfor i = 0 to 3\n    i = 2\n    s += i\nplot(s)') as string, /^line 5:5: 'i' is already declared/);
    assert.match(run('f(a) =>\n    a = 2\n    a\nplot(f(1))') as string, /^line 4:5: 'a' is already declared/);
  });

  it('a function cannot assign a top-level variable', () => {
    assert.match(
      run('g = 0.0\nf(a) =>\n    g := a\n    a\nplot(f(1))') as string,
      /^line 5:5: a function cannot assign the global variable 'g'/,
    );
  });

  it('each call site keeps its own variables, and reads top-level history', () => {
    const body = 'f(v) =>\n    var float acc = 0\n    acc += v\n    acc\ng = close\nh() => g[1]\nplot(f(1) + f(2) * 10 + nz(h()))';
    assert.deepEqual(
      run(body),
      each((i) => (i + 1) * 21 + (i > 0 ? close[i - 1]! : 0)),
    );
  });

  it('loop variables and names declared in a loop body are new on every iteration', () => {
    assert.deepEqual(
      run('n = 0\nk = 0\nwhile k < 5\n    t = k * 2\n    n += t\n    k += 1\nplot(n)'),
      each(() => 20),
    );
    assert.deepEqual(
      run('a = array.from(1.0, 2.0, 3.0)\ns = 0.0\nfor [i, v] in a\n    w = v * i\n    s += w\nplot(s)'),
      each(() => 8),
    );
    assert.deepEqual(
      run('s = 0.0\nfor i = 0 to 2\n    for j = 0 to i\n        s += i * j\nplot(s)'),
      each(() => 7),
    );
  });

  it('a method call reaches a top-level array from a function', () => {
    assert.deepEqual(
      run('arr = array.new_float(0)\nf(v) =>\n    arr.push(v)\n    arr.size()\nplot(f(close))'),
      each(() => 1),
    );
  });

  it("a parameter's default reads the top-level variables", () => {
    assert.deepEqual(
      run('k = 2.0\nf(x, m = k) => x * m\nplot(f(close))'),
      each((i) => close[i]! * 2),
    );
  });
});
