/**
 * The fit sees the features the analysis passed, checked on the trusted side: real EURUSD
 * 15-minute bars, the real sandbox. An honest strategy's train matrix hashes column by column to
 * the analysis's digests; a strategy that reads ahead only on its first call in a job (the
 * analysis's first call is a short prefix, the train job's is the full span) passes the analysis
 * and is refused here, naming the column.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { UnprocessableError } from '../../src/errors.ts';
import { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import { assertAnalysedFeatures, columnDigests } from '../../src/training/analysed-features.ts';
import type { OhlcColumns } from '../../src/lib/bar-columns.ts';
import { loadBars } from '../helpers/strategy-bars.ts';
import { strategyCode } from '../helpers/strategies.ts';

const N = 4000;
const FIT_ROWS = 3400;
const options = { fitRows: FIT_ROWS, trainSplit: 0.7, horizon: 1 };

/**
 * Reads the close 3 bars ahead on the job's first call only, when it is longer than any prefix the
 * analysis starts with. The count is kept on the function itself: the analysis puts back module
 * constants and numpy's names before each call, not function attributes (and there are other corners).
 */
const FIRST_CALL_PEEK = strategyCode({
  params: '{"n_estimators": 20}',
  prelude: [
    "calls = getattr(feature_engineering, 'calls', 0) + 1",
    'feature_engineering.calls = calls',
    'fut = close.shift(1)',
    'if calls == 1 and len(df) > 1000:',
    '        fut = close.shift(3 - 6)',
    "df['peek'] = fut / close - 1",
  ].join('\n    '),
});

describe('the fit’s features are the analysed ones', () => {
  let runtime: StrategyRuntime;
  let bars: OhlcColumns;

  before(async () => {
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 2 });
    bars = loadBars('EURUSD', '15min', N);
  });
  after(() => runtime.stop());

  it('an honest strategy: the train matrix hashes, column by column, to the analysis’s digests', async () => {
    const code = strategyCode({ params: '{"n_estimators": 20}' });
    const analysis = await runtime.analyze(code, bars, {}, options);
    assert.deepEqual(analysis.problems, []);
    const trained = await runtime.train(code, bars, { warmup: analysis.warmup!, fitRows: FIT_ROWS, trainSplit: 0.7 });
    assert.equal(analysis.columnSha256.length, trained.features.length);
    assert.deepEqual(columnDigests(trained.matrix, trained.features.length), analysis.columnSha256);
    assertAnalysedFeatures(analysis, trained);
  });

  it('a strategy that reads ahead only in the train job passes the analysis and is refused against its digests, naming the column', async () => {
    const analysis = await runtime.analyze(FIRST_CALL_PEEK, bars, {}, options);
    assert.deepEqual(analysis.problems, [], 'the analysis alone cannot see it');
    const trained = await runtime.train(FIRST_CALL_PEEK, bars, { warmup: analysis.warmup!, fitRows: FIT_ROWS, trainSplit: 0.7 });
    assert.throws(
      () => assertAnalysedFeatures(analysis, trained),
      (err: unknown) => {
        assert.ok(err instanceof UnprocessableError);
        assert.match(err.message, /computed other values in the fit than in the look-ahead analysis on the same bars \(columns: peek\)/);
        return true;
      },
    );
  });

  it('refuses a fit whose columns or warm-up are not the analysed ones', () => {
    const matrix = new Float64Array([1, 2, 3, 4]);
    const analysis = { featureColumns: ['a', 'b'], warmup: 5, columnSha256: columnDigests(matrix, 2) };
    assert.doesNotThrow(() => assertAnalysedFeatures(analysis, { features: ['a', 'b'], warmup: 5, matrix }));
    assert.throws(() => assertAnalysedFeatures(analysis, { features: ['b', 'a'], warmup: 5, matrix }), /other columns in the fit \(b, a\)/);
    assert.throws(() => assertAnalysedFeatures(analysis, { features: ['a', 'b'], warmup: 4, matrix }), UnprocessableError);
    assert.throws(
      () => assertAnalysedFeatures(analysis, { features: ['a', 'b'], warmup: 5, matrix: new Float64Array([1, 2, 3, 4.000000001]) }),
      /columns: b\)/,
    );
  });
});
