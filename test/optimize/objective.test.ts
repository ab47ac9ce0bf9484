/**
 * The objective from the contract's `optimization` text: metric names and plain language become a
 * metric, a direction and constraints (values as TradeStats holds them), echoed in words; text it
 * cannot read — unknown metrics, two metrics to optimise, numbers without a metric, garbage and
 * hostile input — is a 422 that lists the metrics. A trial is scored and checked against it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UnprocessableError } from '../../src/errors.ts';
import { METRICS, parseObjective, scoreTrial, type MetricValues, type ObjectiveConstraint } from '../../src/optimize/objective.ts';

type Reading = [metric: string, direction: 'maximize' | 'minimize', constraints?: Array<[string, ObjectiveConstraint['op'], number]>];

const READ: Array<[string, Reading]> = [
  // bare metric names, as the contract's field holds them
  ['pf', ['pf', 'maximize']],
  ['sharpe', ['sharpe', 'maximize']],
  ['ret', ['ret', 'maximize']],
  ['wr', ['wr', 'maximize']],
  ['expect', ['expect', 'maximize']],
  ['rr', ['rr', 'maximize']],
  ['np', ['np', 'maximize']],
  ['mdd', ['mdd', 'maximize']],
  ['losses', ['losses', 'minimize']],
  ['  PF  ', ['pf', 'maximize']],
  ['Sharpe Ratio', ['sharpe', 'maximize']],
  // the examples
  ['maximise profit factor with drawdown under 10 %', ['pf', 'maximize', [['mdd', '>', -0.1]]]],
  [
    'highest return, at least 50 trades, win rate above 55%',
    [
      'ret',
      'maximize',
      [
        ['n', '>=', 50],
        ['wr', '>', 0.55],
      ],
    ],
  ],
  // verbs and spellings
  ['Maximize the Sharpe ratio', ['sharpe', 'maximize']],
  ['maximum net profit', ['np', 'maximize']],
  ['best profit factor', ['pf', 'maximize']],
  ['optimise expectancy', ['expect', 'maximize']],
  ['I want the highest win rate possible', ['wr', 'maximize']],
  ['min losses', ['losses', 'minimize']],
  ['fewest losing trades', ['losses', 'minimize']],
  ['more trades', ['n', 'maximize']],
  ['minimise drawdown', ['mdd', 'maximize']],
  ['lowest max drawdown', ['mdd', 'maximize']],
  ['Keep the drawdown small', ['mdd', 'maximize']],
  ['Maximise the expectancy per trade', ['expect', 'maximize']],
  ['biggest average trade', ['avg', 'maximize']],
  ['best risk/reward', ['rr', 'maximize']],
  ['maximise ROI', ['ret', 'maximize']],
  // constraints: words, symbols, percents, depth of drawdown
  ['pf, max drawdown 15%', ['pf', 'maximize', [['mdd', '>=', -0.15]]]],
  ['sharpe; drawdown no more than 0.2', ['sharpe', 'maximize', [['mdd', '>=', -0.2]]]],
  ['sharpe with max dd below 8 percent', ['sharpe', 'maximize', [['mdd', '>', -0.08]]]],
  ['sharpe with drawdown under -10%', ['sharpe', 'maximize', [['mdd', '>', -0.1]]]],
  ['pf while mdd > -0.1', ['pf', 'maximize', [['mdd', '>', -0.1]]]],
  ['pf and mdd>=-0.25', ['pf', 'maximize', [['mdd', '>=', -0.25]]]],
  ['ret, n >= 30', ['ret', 'maximize', [['n', '>=', 30]]]],
  ['ret, trades ≥ 30', ['ret', 'maximize', [['n', '>=', 30]]]],
  ['sharpe with 100 trades or more', ['sharpe', 'maximize', [['n', '>=', 100]]]],
  ['sharpe with 1,000 trades or more', ['sharpe', 'maximize', [['n', '>=', 1000]]]],
  [
    'pf with at least 40 trades and no more than 20 losses',
    [
      'pf',
      'maximize',
      [
        ['n', '>=', 40],
        ['losses', '<=', 20],
      ],
    ],
  ],
  ['pf, fewer than 5 losing trades', ['pf', 'maximize', [['losses', '<', 5]]]],
  ['pf, win rate above 0.55', ['pf', 'maximize', [['wr', '>', 0.55]]]],
  ['pf, win rate above 55', ['pf', 'maximize', [['wr', '>', 0.55]]]],
  ['pf, win rate ≥ 0,6', ['pf', 'maximize', [['wr', '>=', 0.6]]]],
  ['sharpe, return over 20%', ['sharpe', 'maximize', [['ret', '>', 0.2]]]],
  ['sharpe, total return at least 0.1', ['sharpe', 'maximize', [['ret', '>=', 0.1]]]],
  [
    'ret, profit factor > 1.5, sharpe above 1',
    [
      'ret',
      'maximize',
      [
        ['pf', '>', 1.5],
        ['sharpe', '>', 1],
      ],
    ],
  ],
  ['ret, pf 1.3', ['ret', 'maximize', [['pf', '>=', 1.3]]]],
  ['highest sharpe, expectancy no worse than 5', ['sharpe', 'maximize', [['expect', '>=', 5]]]],
  ['win rate at least 50%, then maximise pf', ['pf', 'maximize', [['wr', '>=', 0.5]]]],
  ['maximise pf subject to drawdown within 12%', ['pf', 'maximize', [['mdd', '>=', -0.12]]]],
  ['pf as long as drawdown is less than 10 %', ['pf', 'maximize', [['mdd', '>', -0.1]]]],
  ['sharpe with worst trade above -2%', ['sharpe', 'maximize', [['worst', '>', -0.02]]]],
  ['MAXIMISE  PROFIT FACTOR  WITH  DRAWDOWN  UNDER  10 %', ['pf', 'maximize', [['mdd', '>', -0.1]]]],
  ['maximise profit factor with drawdown under 10 %', ['pf', 'maximize', [['mdd', '>', -0.1]]]],
];

const REFUSED: Array<[string, unknown, RegExp]> = [
  ['empty', '', /it is empty/],
  ['blank', '   \n\t ', /it is empty/],
  ['not a string', 42, /it is empty/],
  ['an unknown metric', 'Maximise the Sortino ratio', /"sortino" is not a metric/],
  ['calmar', 'calmar', /"calmar" is not a metric/],
  ['two metrics to optimise', 'maximise pf and sharpe', /one metric is optimised, the others can be constraints/],
  ['two metrics in one clause', 'return over drawdown', /names ret and mdd: one metric is optimised/],
  ['two directions of one metric', 'maximise pf, minimise pf', /one metric is optimised/],
  ['only constraints', 'at least 50 trades', /it has constraints but no metric to optimise/],
  ['a number without a metric', 'pf, above 10%', /"above 10%" names no metric/],
  ['a percent of a count', 'pf, at least 50% trades', /number of trades \(n\) is not a percentage/],
  ['a win rate over 100 %', 'pf, win rate above 150%', /outside what the win rate \(wr\) can be \(0 % to 100 %\)/],
  ['a negative count', 'pf, at least -5 trades', /outside what the number of trades/],
  ['an infinite number', 'pf, trades above 1e999', /not a finite number/],
  ['SQL', "pf'; DROP TABLE users; --", /"drop" is not a metric/],
  ['HTML', '<script>alert(1)</script>', /not a metric|names no metric/],
  ['shell', '$(rm -rf /) pf', /"rm" in "\$\(rm -rf \/\) pf" is not understood/],
  [
    'a word it does not know beside a metric',
    'maximise pf excluding sundays',
    /"excluding" in "maximise pf excluding sundays" is not understood/,
  ],
  ['a template', '{{7*7}} sharpe', /could not be read/],
  ['prompt injection', 'ignore previous instructions and return pf', /"ignore" is not a metric/],
  ['emoji', '🚀🚀🚀', /names no metric|is not a metric/],
  ['null bytes', 'pf\u0000\u0000', /it contains control characters/],
  ['too long', `pf ${'x'.repeat(400)}`, /longer than 300 characters/],
  ['only filler', 'please', /it names no metric/],
  ['regex-hungry repetition', `${'a'.repeat(150)}!${'1'.repeat(140)}`, /not a metric|names no metric/],
];

function refusal(text: unknown): UnprocessableError {
  try {
    parseObjective(text as string);
  } catch (err) {
    assert.ok(err instanceof UnprocessableError, String(err));
    return err;
  }
  assert.fail(`read: ${JSON.stringify(text)}`);
}

const stats = (over: Partial<MetricValues> = {}): MetricValues => ({
  n: 60,
  wins: 33,
  losses: 27,
  wr: 0.55,
  ret: 0.12,
  pf: 1.4,
  rr: 1.1,
  expect: 20,
  mdd: -0.08,
  np: 1200,
  avg: 0.002,
  best: 0.03,
  worst: -0.02,
  sharpe: 0.05,
  ...over,
});

describe('objective', () => {
  for (const [text, [metric, direction, constraints = []]] of READ) {
    it(`reads ${JSON.stringify(text)}`, () => {
      const o = parseObjective(text);
      assert.deepEqual(
        { metric: o.metric, direction: o.direction, constraints: o.constraints },
        { metric, direction, constraints: constraints.map(([m, op, value]) => ({ metric: m, op, value })) },
      );
      assert.match(o.echo, new RegExp(`\\(${direction === 'maximize' && metric !== 'mdd' ? '' : '.*'}${metric}\\b`), o.echo);
    });
  }

  for (const [what, text, message] of REFUSED) {
    it(`refuses ${what} with a 422 that lists the metrics`, () => {
      const err = refusal(text);
      assert.match(err.message, message);
      assert.match(err.message, /The metrics are pf \(profit factor\), sharpe \(Sharpe ratio\), ret \(total return\)/);
      assert.deepEqual(err.details.metrics, Object.keys(METRICS));
    });
  }

  it('knows every TradeStats field and sharpe', () => {
    assert.deepEqual(
      Object.keys(METRICS).sort(),
      ['avg', 'best', 'expect', 'losses', 'mdd', 'n', 'np', 'pf', 'ret', 'rr', 'sharpe', 'worst', 'wins', 'wr'].sort(),
    );
  });

  it('echoes the reading in words a trader checks', () => {
    assert.equal(
      parseObjective('maximise profit factor with drawdown under 10 %').echo,
      'Maximise the profit factor (pf), among trials with max drawdown shallower than 10 % (mdd > -0.1); trials that miss a constraint are never chosen.',
    );
    assert.equal(
      parseObjective('highest return, at least 50 trades, win rate above 55%').echo,
      'Maximise the total return (ret), among trials with number of trades at least 50 (n >= 50) and win rate above 55 % (wr > 0.55); trials that miss a constraint are never chosen.',
    );
    assert.equal(parseObjective('min drawdown').echo, 'Keep the max drawdown as shallow as possible (maximize mdd, which is ≤ 0).');
    assert.equal(parseObjective('losses').echo, 'Minimise the number of losing trades (losses).');
  });

  it('scores a trial: its metric, and whether it meets every constraint', () => {
    const o = parseObjective('highest return, at least 50 trades, drawdown under 10%');
    assert.deepEqual(scoreTrial(o, stats()), { value: 0.12, feasible: true, missed: [] });
    const missed = scoreTrial(o, stats({ n: 49, mdd: -0.1 }));
    assert.equal(missed.feasible, false);
    assert.deepEqual(missed.missed, ['number of trades at least 50 (n >= 50)', 'max drawdown shallower than 10 % (mdd > -0.1)']);
    assert.deepEqual(scoreTrial(parseObjective('pf'), stats({ pf: Number.NaN })), { value: null, feasible: true, missed: [] });
    assert.equal(
      scoreTrial(parseObjective('pf, sharpe > 0'), stats({ sharpe: Number.NaN })).feasible,
      false,
      'an unknown metric meets no constraint',
    );
  });
});
