/**
 * The parser and interpreter fail loud: each unsupported construct and each malformed script is
 * refused with the line:column of the problem (never run with a silently different meaning).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePine, PineError, runJob } from '../../src/pine/index.ts';
import { COMMUNITY } from './community.ts';
import { UNSUPPORTED } from './unsupported-cases.ts';

const n = 50;
const bars = {
  ts: Float64Array.from({ length: n }, (_, i) => Date.UTC(2024, 0, 2) + i * 900_000),
  open: new Float64Array(n).fill(1.1),
  high: new Float64Array(n).fill(1.2),
  low: new Float64Array(n).fill(1.0),
  close: Float64Array.from({ length: n }, (_, i) => 1.1 + Math.sin(i) / 100),
  volume: new Float64Array(n).fill(1),
};
const run = (source: string) => runJob({ id: 1, source, bars, timeframe: '15min', symbol: 'EURUSD', mintick: 0.00001, wallMs: 2000 });

describe('unsupported constructs', () => {
  it('lists twenty', () => assert.equal(UNSUPPORTED.length, 20));
  for (const c of UNSUPPORTED) {
    it(`refuses ${c.construct} at ${c.line}:${c.col}`, () => {
      const r = run(c.source);
      assert.ok(!r.ok && 'problem' in r, JSON.stringify(r));
      assert.equal(`${r.problem.line}:${r.problem.col}`, `${c.line}:${c.col}`, r.problem.message);
      assert.ok(r.problem.construct?.includes(c.construct), `construct ${r.problem.construct} for ${c.construct}`);
    });
  }
});

describe('parse errors', () => {
  const cases: [string, number, number, RegExp][] = [
    ['indicator("x")\nplot(close', 2, 11, /expected ',' or '\)'/],
    ['indicator("x")\nx = 1 +\nplot(x)', 2, 8, /expected a value, found end of line/],
    ['indicator("x")\nif close > open\nplot(close)', 3, 1, /indented block/],
    ['indicator("x")\nplot(close)\n  x = 1', 3, 3, /expected the end of the statement/],
    ['indicator("x")\nif close > open\n        x = 1', 3, 9, /one level/],
    ['indicator("x")\ns = "open', 2, 5, /unterminated string/],
    ['indicator("x")\nc = #12345\nplot(c)', 2, 5, /color literal/],
    ['indicator("x")\nx := 1\nplot(close)', 2, 1, /before it is declared/],
    ['indicator("x")\nplot(undefinedThing)', 2, 6, /unknown name 'undefinedThing'/],
    ['indicator("x")\nx = 1\nx = 2\nplot(x)', 3, 1, /already declared/],
    ['indicator("x")\nplot(close) @', 2, 13, /unexpected character/],
    ['indicator("x")\nif close > open\n    plot(close)', 3, 5, /cannot be called in a local block/],
    ['indicator("x")\nf(x) =>\n    plotshape(x > 0)\n    x\nplot(f(close))', 3, 5, /cannot be called in a local block/],
    ['indicator("x")\nvar n = 0\nbump() =>\n    n := n + 1\n    n\nplot(bump())', 4, 5, /cannot assign the global variable 'n'/],
    // A block's names live for one entry of it: not in the next iteration, nor in another branch on a later bar.
    ['indicator("x")\ns = 0.0\nfor i = 0 to 2\n    if i > 0\n        s += t\n    t = i\nplot(s)', 5, 14, /unknown name 't'/],
    ['indicator("x")\nif bar_index == 0\n    y = 1\nelse\n    z = y\nplot(close)', 5, 9, /unknown name 'y'/],
  ];
  for (const [source, line, col, message] of cases) {
    it(`points at ${line}:${col} for ${message.source}`, () => {
      const r = run(source);
      assert.ok(!r.ok && 'problem' in r, JSON.stringify(r));
      assert.equal(`${r.problem.line}:${r.problem.col}`, `${line}:${col}`, r.problem.message);
      assert.match(r.problem.message, message);
    });
  }

  it('parses the grammar: blocks, else-if chains, switch, loops, functions, tuples, generics, continuation lines', () => {
    const program = parsePine(`//@version=6
indicator("All", overlay=true)
f(x, n = 2) =>
    s = 0.0
    for i = 0 to n - 1 by 1
        if i > 5
            break
        s += x[i]
    s / n
g() => [high, low]
[a, b] = g()
var float acc = na
varip int k = 0
k := k + 1
v = switch
    close > open => 1
    close < open => -1
    => 0
w = while k > 100
    k := k - 1
arr = array.new<float>(3, 0.0)
for [i, e] in arr
    array.set(arr, i, e + 1)
y = close > open ? 1 : close < open ? -1 : 0
plot(f(close, 3) + a - b + y + v,
     "wrapped", color = color.new(#ff0000, 50))
`);
    assert.equal(program.version, 6);
    assert.equal(program.header, 'indicator');
    assert.deepEqual(
      program.body.map((s) => s.kind),
      ['expr', 'func', 'func', 'tupledecl', 'decl', 'decl', 'assign', 'decl', 'decl', 'decl', 'forin', 'decl', 'expr'],
    );
  });

  it("declares a block's names afresh on each entry (each iteration, each bar)", () => {
    const r = run('indicator("x")\ns = 0.0\nfor i = 0 to 3\n    t = i * 2\n    s += t\nif close > 0\n    u = s + 1\n    s := u\nplot(s)');
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual([...new Set(r.result.plots[0]!.values)], [13]);
  });

  it('throws PineError with its position from the parser', () => {
    assert.throws(
      () => parsePine('indicator("x")\nplot(close,'),
      (e: unknown) => e instanceof PineError && e.line === 2 && e.col === 12,
    );
  });
});

describe('run limits', () => {
  it('stops an endless loop at its line with the loop cap', () => {
    const r = run('indicator("x")\ni = 0\nwhile true\n    i += 1\nplot(i)');
    assert.ok(!r.ok && 'problem' in r);
    assert.equal(r.problem.line, 3);
    assert.match(r.problem.message, /more than 10000 iterations/);
  });
  it('stops a script past its step budget', () => {
    const r = runJob({
      id: 1,
      source: 'indicator("x")\ns = 0\nfor i = 0 to 9999\n    for j = 0 to 9999\n        s += 1\nplot(s)',
      bars,
      timeframe: '15min',
      symbol: 'EURUSD',
      mintick: 0.00001,
      wallMs: 60_000,
      maxSteps: 1_000_000,
    });
    assert.ok(!r.ok && 'problem' in r);
    assert.match(r.problem.message, /more than 1000000 steps/);
  });
  it('stops a script past its wall clock', () => {
    const r = runJob({
      id: 1,
      source: 'indicator("x")\ns = 0\nfor i = 0 to 9999\n    for j = 0 to 9999\n        s += 1\nplot(s)',
      bars,
      timeframe: '15min',
      symbol: 'EURUSD',
      mintick: 0.00001,
      wallMs: 50,
    });
    assert.ok(!r.ok && 'problem' in r);
    assert.match(r.problem.message, /time limit/);
  });
  it('refuses a 10^7-element array before allocating it', () => {
    const r = run('indicator("x")\na = array.new_float(10000000, 0)\nplot(array.size(a))');
    assert.ok(!r.ok && 'problem' in r);
    assert.equal(`${r.problem.line}:${r.problem.col}`, '2:5');
  });
  it('refuses an array grown past 100,000 elements by pushes', () => {
    const r = run('indicator("x")\nvar a = array.new_float(0)\nfor i = 0 to 9999\n    array.push(a, i)\nplot(array.size(a))');
    assert.ok(!r.ok && 'problem' in r);
    assert.match(r.problem.message, /100000/);
  });
});

describe('inputs', () => {
  it('records each input with its name, title, type, default and bounds; values are the defaults', () => {
    const r = run(`//@version=5
indicator("inputs")
len = input.int(14, "Length", minval=2, maxval=200)
mult = input.float(2.5, title="Mult")
src = input(hlc3, "Source")
show = input.bool(true, "Show")
mode = input.string("EMA", "Mode", options=["SMA", "EMA"])
plot(show ? src * mult + len : na, mode)`);
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.result.inputs, [
      { name: 'len', title: 'Length', type: 'int', default: 14, min: 2, max: 200 },
      { name: 'mult', title: 'Mult', type: 'float', default: 2.5 },
      { name: 'src', title: 'Source', type: 'source', default: 'hlc3' },
      { name: 'show', title: 'Show', type: 'bool', default: true },
      { name: 'mode', title: 'Mode', type: 'string', default: 'EMA', options: ['SMA', 'EMA'] },
    ]);
    const hlc3 = (bars.high[5]! + bars.low[5]! + bars.close[5]!) / 3;
    assert.equal(r.result.plots[0]!.title, 'EMA');
    assert.ok(Math.abs(r.result.plots[0]!.values[5]! - (hlc3 * 2.5 + 14)) < 1e-12);
  });
});

describe('arguments that change the values', () => {
  it('refuses Pine v4 (study(), no ta. namespace) at its version line', () => {
    const r = run('//@version=4\nstudy("old")\nplot(sma(close, 5))');
    assert.ok(!r.ok && 'problem' in r, JSON.stringify(r));
    assert.equal(`${r.problem.line}:${r.problem.col}`, '1:1');
    assert.equal(r.problem.construct, '//@version=4');
  });

  it('refuses a header timeframe or calc_bars_count other than the chart’s, and runs timeframe=""', () => {
    for (const header of ['indicator("x", timeframe="60")', 'indicator("x", calc_bars_count=100)', 'strategy("x", timeframe="D")']) {
      const r = run(`//@version=5\n${header}\nplot(close)`);
      assert.ok(!r.ok && 'problem' in r, `${header}: ${JSON.stringify(r)}`);
      assert.equal(r.problem.line, 2, header);
      assert.match(r.problem.message, /timeframe|calc_bars_count/);
    }
    const chart = run('//@version=5\nindicator("x", timeframe="", timeframe_gaps=true)\nplot(close)');
    assert.ok(chart.ok, JSON.stringify(chart));
  });

  it('moves a plotshape or plotchar mark by its offset, and drops one moved off the bars', () => {
    const r = run(
      '//@version=5\nindicator("x")\nplotshape(bar_index == 10, "s", offset=2)\nplotchar(bar_index == 10, "c", "x", offset=-3)\nplotshape(bar_index == 48, "off", offset=5)',
    );
    assert.ok(r.ok && r.result, JSON.stringify(r));
    assert.deepEqual(
      r.result.signals.map((s) => [s.title, s.bar]),
      [
        ['s', 12],
        ['c', 7],
      ],
    );
  });
});

describe('scripts as pasted from elsewhere', () => {
  const plotted = (source: string) => {
    const r = run(source);
    assert.ok(r.ok, JSON.stringify(r));
    return r.result;
  };
  const same = (source: string) =>
    assert.deepEqual(
      Array.from(plotted(source).plots[0]!.values),
      Array.from(bars.close, (c, i) => c + (i > 0 ? bars.close[i - 1]! : NaN)),
    );
  const CLEAN = '//@version=5\nindicator("x")\ny = close + close[1]\nplot(y, "y")\n';

  it('runs CRLF line endings, a byte-order mark, trailing blanks, tabs and pasted no-break spaces like the clean script', () => {
    same(CLEAN);
    same(CLEAN.replace(/\n/g, '\r\n'));
    same(`\uFEFF${CLEAN}`);
    same(CLEAN.replace(/\n/g, '  \t\n'));
    same(CLEAN.replace('y = close', 'y =\u00a0close').replace('plot(y,', 'plot(y,\u00a0'));
    same('//@version=5\nindicator("x")\nf(x) =>\n\tx + x[1]\ny = f(close)\nplot(y, "y")');
    same('//@version=6\nindicator("x")\ny = close +\n     close[1]\nplot(y,\n  "y")');
    same(
      '//@version=5 // v5\nindicator("x") // header\n    // an indented comment\ny = close + close[1] // sum\n// between\nplot(y, "y") //end',
    );
  });

  it('binds positional arguments in Pine’s order: the header’s fourth is format, plot’s sixth trackprice and eighth offset, a list third in input.int its options', () => {
    const r = plotted(
      '//@version=5\nindicator("x", "x", false, format.price, 5)\nn = input.int(10, "Length", [5, 10, 20])\nplot(close, "c", color.red, 2, plot.style_line, true)\nplot(close, "d", color.red, 2, plot.style_line, false, 0, 1)',
    );
    assert.deepEqual(Array.from(r.plots[0]!.values), Array.from(bars.close));
    assert.deepEqual(Array.from(r.plots[1]!.values), [NaN, ...Array.from(bars.close).slice(0, -1)]);
    assert.deepEqual(r.inputs[0]!.options, [5, 10, 20]);
  });

  it('keeps unicode in titles and texts', () => {
    const r = plotted('//@version=5\nindicator("Ünïcödé ✓ 指標")\nplot(close, "収盤 ✓")\nplotshape(close > open, "↑", text="買い 🚀")');
    assert.equal(r.title, 'Ünïcödé ✓ 指標');
    assert.equal(r.plots[0]!.title, '収盤 ✓');
    assert.ok(r.signals.every((s) => s.text === '買い 🚀'));
  });

  it('points at an unsupported call at the end of a long pasted script (CRLF, tab indents) and says what to do instead', () => {
    const script = COMMUNITY.find((c) => c.name.startsWith('Chandelier'))!.pine.trimEnd();
    const lines = script.split('\n').length;
    const pasted =
      `${script}\nif barstate.islast\n\tlabel.new(bar_index, high, "CE")\ns = request.security(syminfo.tickerid, "D", close)\n`.replace(
        /\n/g,
        '\r\n',
      );
    const r = run(pasted);
    assert.ok(!r.ok && 'problem' in r, JSON.stringify(r));
    assert.equal(`${r.problem.line}:${r.problem.col}`, `${lines + 2}:2`, r.problem.message);
    assert.match(r.problem.message, /label\.new\(\) is not supported: drawings are not part of the answer; mark bars with plotshape/);
    const r2 = run(`\uFEFF${script.replace(/\n/g, '\r\n')}\r\ns = request.security(syminfo.tickerid, "D", close)`);
    assert.ok(!r2.ok && 'problem' in r2, JSON.stringify(r2));
    assert.equal(`${r2.problem.line}:${r2.problem.col}`, `${lines + 1}:5`, r2.problem.message);
    assert.match(r2.problem.message, /set them in the request/);
  });

  const refused: [string, string, number, number, RegExp][] = [
    ['an empty script', '', 1, 1, /script is empty/],
    ['comments only', '// my indicator\n   // nothing else\n', 1, 1, /script is empty/],
    ['no declaration', '//@version=5\nplot(close)', 1, 1, /no indicator\(\), strategy\(\) or library\(\) declaration/],
    ['no output', '//@version=5\nindicator("x")\nx = close', 1, 1, /has no output/],
    ['a typographic quote', '//@version=5\nindicator(“x”)\nplot(close)', 2, 11, /typographic quote .*straight quotes/],
    ['a control character', '//@version=5\nindicator("x")\nplot(close\u0007)', 3, 11, /control character U\+0007/],
    ['a very long line', `//@version=5\nindicator("x")\nplot(${'close + '.repeat(20_000)}close)`, 1, 1, /longer than 100000 characters/],
    [
      'strategy.position_size with stop/limit exits',
      '//@version=5\nstrategy("s")\nif ta.crossover(close, ta.sma(close, 5)) and strategy.position_size == 0\n    strategy.entry("L", strategy.long)\nstrategy.exit("X", "L", stop=close * 0.99, limit=close * 1.01)',
      3,
      46,
      /strategy\.position_size with price orders .*not simulated/,
    ],
  ];
  for (const [what, source, line, col, message] of refused) {
    it(`refuses ${what} at ${line}:${col}, saying what to do`, () => {
      const r = run(source);
      assert.ok(!r.ok && 'problem' in r, JSON.stringify(r));
      assert.equal(`${r.problem.line}:${r.problem.col}`, `${line}:${col}`, r.problem.message);
      assert.match(r.problem.message, message);
    });
  }
});
