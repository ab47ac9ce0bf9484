/**
 * A deterministic sample of the intent corpus (every 14th prompt, 24 in all, and the issue's
 * prompts) run as a trained model would be: the code passes the sandbox's dynamic analysis on
 * real bars of the market the prompt names (no look-ahead, a finite warm-up), its columns are the
 * intent's, strategy_config() returns the intent's config (roles and day filters included) and
 * the strategy trains.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../../src/log.ts';
import { warmupBars } from '../../../src/indicators/index.ts';
import { withMarket } from '../../../src/generation/market-mention.ts';
import { generateOffline } from '../../../src/generation/offline/index.ts';
import { StrategyRuntime } from '../../../src/sandbox/runtime-pool.ts';
import { barsFor, loadBars } from '../../helpers/strategy-bars.ts';
import { INTENT_CORPUS } from './intent-corpus.ts';

const SAMPLE = [...INTENT_CORPUS.filter((_, i) => i % 14 === 0), ...INTENT_CORPUS.filter((c) => c.category === 'issue').slice(0, 3)];

describe('offline generator: a sample of the intent corpus runs in the sandbox', { concurrency: 2 }, () => {
  let runtime: StrategyRuntime;
  before(async () => {
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 2 });
  });
  after(() => runtime.stop());

  it('samples at most 40 prompts', () => assert.ok(SAMPLE.length <= 40 && SAMPLE.length >= 20, `${SAMPLE.length}`));

  for (const c of SAMPLE) {
    it(`${c.id}: analysis clean, config as understood, trains`, async () => {
      const request = withMarket({ description: c.prompt });
      const { code, intent } = generateOffline(request);
      // Enough bars for the longest warm-up (a day of 1-minute bars for daily levels) and a fit.
      const bars = loadBars(request.symbol, request.timeframe, Math.max(barsFor(warmupBars(intent.indicators)), 4000));
      const analysis = await runtime.analyze(code, bars, { timeoutMs: 180_000 });
      assert.deepEqual(analysis.problems, []);
      assert.ok(analysis.warmup !== null && analysis.warmup < bars.ts.length * 0.75, `warm-up ${analysis.warmup} of ${bars.ts.length}`);
      assert.deepEqual(analysis.featureColumns, intent.features);
      assert.deepEqual(await runtime.config(code), intent.config);
      const trained = await runtime.train(code, bars, { warmup: analysis.warmup }, { timeoutMs: 180_000 });
      assert.deepEqual(trained.features, intent.features);
      assert.ok(trained.rowsTrain > 500 && trained.rowsTest > 100, `${trained.rowsTrain} train / ${trained.rowsTest} test rows`);
      assert.ok(trained.onnx.length > 0);
    });
  }
});
