/**
 * Column evaluation gives what the bar-by-bar run gives: every plot value, signal, input and step
 * count, and the same error at the same place; what it cannot do exactly, it leaves to the bar-by-bar run.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePine } from '../../../src/pine/syntax/parser.ts';
import { Interpreter } from '../../../src/pine/bars/interpreter.ts';
import { DEFAULT_LIMITS, type Bars } from '../../../src/pine/runtime/values.ts';
import { FIFTY_LINES } from '../../bench/pine.ts';
import { loadBars } from '../../helpers/strategy-bars.ts';

const m = loadBars('GBPUSD', '5min', 800);
const bars: Bars = {
  ts: m.ts,
  open: m.open,
  high: m.high,
  low: m.low,
  close: m.close,
  volume: Float64Array.from(m.close, (_, i) => 100 + ((i * 37) % 50)),
};
const options = () => ({
  limits: { ...DEFAULT_LIMITS, deadlineMs: performance.now() + 20_000 },
  timeframe: '5min',
  symbol: 'GBPUSD',
  mintick: 0.00001,
});

/** The whole outcome as text (NaN spelled out), or the error's message. */
function outcome(interpreter: Interpreter): string {
  try {
    return JSON.stringify(interpreter.run(bars, options()), (_k, v) =>
      typeof v === 'number' && !Number.isFinite(v) ? String(v) : ArrayBuffer.isView(v) ? Array.from(v as Float64Array, String) : v,
    );
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

/** Runs a script both ways (twice on one interpreter, as a worker reuses it); returns how many statements (declarations, plots) were columns. */
function same(source: string): number {
  const plain = outcome(new Interpreter(parsePine(source), { columns: false }));
  const interpreter = new Interpreter(parsePine(source));
  assert.equal(outcome(interpreter), plain);
  const used = interpreter.columnsUsed;
  assert.equal(outcome(interpreter), plain, 'a second run of the same interpreter');
  return used;
}
const v5 = (body: string) => `//@version=5\nindicator("t")\n${body.trim()}\n`;
const v6 = (body: string) => `//@version=6\nindicator("t")\n${body.trim()}\n`;

describe('column evaluation', () => {
  it('computes the bench indicator as the bar-by-bar run does, most declarations as columns', () => {
    assert.ok(same(FIFTY_LINES) >= 9);
  });

  it('keeps each call site of a user function its own ta.* state, with defaults and a switch on an input', () => {
    const used = same(
      v5(`
kind = input.string("WMA", "Kind", options=["SMA", "WMA"])
len = input.int(7, "Length")
avg(x, n = 5) =>
    switch kind
        "SMA" => ta.sma(x, n)
        => ta.wma(x, n)
spread(x) =>
    a = avg(x, len)
    b = avg(x)
    a - b
s1 = spread(close)
s2 = spread(open)
s3 = avg(high, len * 2) - avg(low)
plot(s1)
plot(s2)
plot(s3)`),
    );
    assert.equal(used, 6);
  });

  it('splits tuples of built-ins and of user functions', () => {
    assert.equal(
      same(
        v5(`
[m, s, h] = ta.macd(close, 12, 26, 9)
[mid, up, lo] = ta.bb(close, 20, 2)
band(x) =>
    b = ta.stdev(x, 10)
    [x + b, x - b]
[hi, low2] = band(hl2)
plot(m - s + h)
plot((up - lo) / mid)
plot(hi - low2)`),
      ),
      6,
    );
  });

  it('reads history of variables, fields, inputs, expressions and bool series', () => {
    assert.equal(
      same(
        v5(`
n = input.int(3, "Back")
src = input.source(hlc3, "Source")
d = src - src[1]
e = close[n] + (high - low)[2] + ta.sma(close, 5)[1]
up = close > open
flip = up != up[1]
plot(d)
plot(e)
plot(flip ? 1 : 0)
plot(up[2] ? 1 : -1)`),
      ),
      8,
    );
  });

  it('gives the same values where a branch holds a ta.* call (run on some bars only) and where branches are plain', () => {
    same(v5('x = close > open ? ta.sma(close, 5) : ta.ema(close, 5)\nplot(x)'));
    assert.equal(same(v5('y = close > open ? close - open : na\nz = close > open ? true : na\nplot(y)\nplot(z ? 1 : 0)')), 4);
  });

  it('evaluates and/or both ways in v5 and lazily in v6, ta.* on the right side included', () => {
    const body = 'c = close > open and ta.rising(close, 2)\nd = close < open or ta.change(close) > 0\nplot(c ? 1 : 0)\nplot(d ? 1 : 0)';
    assert.equal(same(v5(body)), 4);
    same(v6(body));
    assert.equal(same(v6('c = close > open and close > close[1]\nplot(c ? 1 : 0)')), 2);
  });

  it('divides as Pine does: integer literals in v5, na on a zero divisor, -0 kept', () => {
    const body =
      'a = 5 / 2 + close * 0\nb = close / (close - close)\nc = close % 0\nz = -0.0 * close\nplot(a)\nplot(b)\nplot(c)\nplot(1 / z)';
    assert.equal(same(v5(body)), 8);
    same(v6(body));
  });

  it('fails where the bar-by-bar run fails, with the same error', () => {
    same(v5('x = ta.sma(close, 0)\nplot(x)'));
    same(v5('x = ta.sma(close, close > open ? 3 : 0)\nplot(x)'));
    same(v5('f(x) => f(x) + 1\ny = f(close)\nplot(y)'));
    same(v5('f(x) => x + g\ny = f(1)\ng = close\nplot(y)'));
    // A function reads a column variable before its declaration has run on the bar, from bar 6 on.
    same(v5('f(x) => x + g\nz = 0.0\nif bar_index > 5\n    z := f(1)\ng = ta.sma(close, 5)\nplot(g)\nplot(z)'));
    assert.ok(same(v5('g = ta.sma(close, 5)\nf(x) => x + g + g[2]\ny = f(close)\nplot(y)')) >= 2);
    same(v5('x = close\nx = open\nplot(x)'));
    same(v5('f(a) =>\n    a = 2\n    a\ny = f(close)\nplot(y)'));
    same(v5('g(x) =>\n    [p, q] = ta.bb(x, 5, 2)\n    p = 1\n    q\ny = g(close)\nplot(y)'));
  });

  it('reads the parts of other top-level statements that are columns: plot arguments, conditions, part of a value', () => {
    same(
      v5(`
fast = ta.ema(close, 5)
slow = ta.sma(close, 20)
var int state = 0
if fast > slow and close > open
    state := 1
else if fast < slow and ta.change(close) < 0
    state := -1
score = 0.0
for i = 0 to 3
    score += close[i] > close[i + 1] ? 1 : -1
mix = 0.5 * (fast - slow) / slow + 0.1 * score + state
plot(mix, "Mix", color=mix > 0 ? color.green : color.red)
plot((fast - slow) / ta.atr(10) * 100, "Spread")
plotshape(ta.crossover(fast, slow), "Up", style=shape.triangleup, location=location.belowbar)
plotchar(state != state[1] and fast > slow, "Flip", "•", location.top)
alertcondition(ta.cross(mix, 0), "Cross", "mix crossed 0")`),
    );
  });

  it('draws a plot whose colour is chosen between two constants by a column', () => {
    assert.equal(same(v5('x = close - open\nplot(x, "X", color = x > 0 ? color.green : color.new(color.red, 50), linewidth = 2)')), 2);
    assert.equal(same(v5('x = close - open\nplot(x, color = x > 0 ? color.green : na)')), 2);
  });

  it('holds inputs and constants for every bar once the first has run, history and functions reading them included', () => {
    same(
      v5(`
n = input.int(5, "N", minval=1)
k = n * 2
label = input.string("x", "Label")
flag = input.bool(true, "Flag")
src = input.source(hl2, "Source")
twice() => k + 1
d = src - src[n]
plot(close[n] + k[1] + (flag ? 1 : 0) + (label == "x" ? 1 : 0))
plot(d + twice())
plot(src[2])
// Read bar by bar (a nested block), from the variables themselves.
var float acc = 0.0
if close > 0
    acc := acc + src[1] - src + n + k[3]
plot(acc)`),
    );
  });

  it('makes a variable and the for loop right after it that alone changes it as columns: sums over a lookback', () => {
    assert.equal(same(v5('s = 0.0\nfor i = 0 to 9\n    s += close[i] - open[i]\nplot(s)')), 3);
    const n = 'n = input.int(6, "N")\n';
    assert.equal(
      same(
        v5(
          `${n}m = 1.0\nfor j = n to 0 by 2\n    w = (n - j + 1) / n\n    m *= 1 + w * (high[j] - low[j])\n    m := m > 2 ? m / 2 : m\nplot(m)`,
        ),
      ),
      3,
    );
    assert.equal(same(v5('q = close\nfor k = 1 to 3\n    q /= k\n    q %= 7\nplot(q)')), 3);
    // State in the body (stepped once per iteration, bar after bar), the variable's history, a function reading it, na bounds: bar by bar.
    assert.equal(same(v5('s = 0.0\nfor i = 1 to 3\n    s += ta.sma(close, 2 + i)\nplot(s)')), 0);
    assert.equal(same(v5('s = 0.0\nfor i = 1 to 3\n    s += s[1] * 0.5 + close[i]\nplot(s)')), 0);
    same(v5('f() => s * 2\ns = 0.0\nfor i = 1 to 3\n    s += close[i]\nplot(s)\nplot(f())'));
    same(v5('s = 0.0\nfor i = 1 to na\n    s += close[i]\nplot(s)'));
  });

  it('gives up within the step budget where the columns would outgrow it, and the bar-by-bar run tells the budget', () => {
    same(v5('s = 0.0\nfor i = 0 to 9999\n    s += close[i % 5000] * 2 + open[i % 5000]\nplot(s)'));
  });

  it('leaves to the bar-by-bar run what changes on a bar: reassigned and var variables, and what reads them', () => {
    assert.equal(same(v5('var float acc = 0\nacc := acc + close\nx = acc / 2\ny = close\ny := y * 2\nplot(x)\nplot(y)')), 0);
    assert.equal(same(v5('t = 0\nt := 1\nu = ta.sma(close, 3) + t\nplot(u)')), 0);
  });
});
