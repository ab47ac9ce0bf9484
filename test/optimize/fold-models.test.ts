/**
 * The optimisation's probabilities on real bars through the real sandbox: every fold bar is scored
 * by a fold model fitted before it, and a model variant's fold models are the same fit as the base
 * when the variant changes nothing — so an engine trial and a model trial of the same model agree.
 * The probabilities are scored here from the fold models' ONNX: code in the sandbox cannot choose
 * them, and a fold model that fails the model check fails the trial (422).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { foldProbabilities, prepare, type Prepared } from '../../src/optimize/fold-models.ts';
import { StrategyRuntime } from '../../src/sandbox/index.ts';
import { UnprocessableError } from '../../src/errors.ts';
import { OptimizeJobRequest } from '../../schemas/optimize.ts';
import { log, openRealMarket, type RealMarket } from '../helpers/real-market.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { FORGE_PROBA, GARBLE_FOLD_MODELS } from '../helpers/forged-folds.ts';

const owner = { user: 3, nice: 0, overran: () => undefined };

describe('fold models', () => {
  let market: RealMarket;
  let runtime: StrategyRuntime;
  let request: OptimizeJobRequest;
  let prepared: Prepared;

  before(async () => {
    market = await openRealMarket(30_000);
    runtime = await StrategyRuntime.start({ log, size: 2 });
    request = OptimizeJobRequest.parse({
      code: strategyCode({ params: '{"n_estimators": 15, "max_depth": 4}' }),
      symbol: 'EURUSD',
      timeframe: '15min',
      parameters: { 'model_params.max_depth': { type: 'int', low: 2, high: 6 } },
      walk_forward: { folds: 4, scheme: 'anchored', embargo: 5 },
    });
    prepared = await prepare({ runtime, bars: market.cache }, request, owner);
  });
  after(async () => {
    await runtime?.stop();
    await market?.close();
  });

  it('cuts k folds after the first block, in order, and scores exactly their bars', () => {
    const { folds, bars, baseProbabilities: p } = prepared;
    assert.equal(folds.length, 4);
    for (let i = 1; i < folds.length; i++) assert.ok(folds[i]!.from >= folds[i - 1]!.to, 'folds follow one another');
    assert.ok(folds[0]!.from > prepared.warmup + (bars.ts.length - prepared.warmup) / 6, 'the first block only trains');
    const inFold = (i: number) => folds.some((f) => i >= f.from && i < f.to);
    for (let i = 0; i < bars.ts.length; i++) assert.equal(Number.isNaN(p[i]!), !inFold(i), `bar ${i}`);
  });

  it('a variant that changes nothing gives the base’s fold probabilities; another variant other ones', async () => {
    const same = await foldProbabilities({ runtime, bars: market.cache }, request, prepared, { model_params: { max_depth: 4 } }, owner);
    assert.deepEqual(same, prepared.baseProbabilities);
    const shallow = await foldProbabilities({ runtime, bars: market.cache }, request, prepared, { model_params: { max_depth: 2 } }, owner);
    assert.notDeepEqual(shallow, prepared.baseProbabilities);
    for (let i = 0; i < shallow.length; i++) assert.equal(Number.isNaN(shallow[i]!), Number.isNaN(prepared.baseProbabilities[i]!));
  });

  it('code that forges predict_proba in the sandbox gets the honest fold probabilities: they are scored here from the fold models', async () => {
    const hostile = OptimizeJobRequest.parse({ ...request, code: request.code + FORGE_PROBA });
    const forged = await prepare({ runtime, bars: market.cache }, hostile, owner);
    assert.deepEqual(forged.baseProbabilities, prepared.baseProbabilities);
    assert.ok(forged.baseProbabilities.some((p) => !Number.isNaN(p) && p !== Math.fround(0.99)));
    const variant = await foldProbabilities({ runtime, bars: market.cache }, hostile, forged, { model_params: { max_depth: 4 } }, owner);
    assert.deepEqual(variant, prepared.baseProbabilities);
  });

  it('a fold model that is not one our exporter makes fails the optimisation or the trial with a 422', async () => {
    const hostile = OptimizeJobRequest.parse({ ...request, code: request.code + GARBLE_FOLD_MODELS });
    const refused = (err: unknown) => err instanceof UnprocessableError && /refused/.test(err.message);
    await assert.rejects(prepare({ runtime, bars: market.cache }, hostile, owner), refused);
    // Fold 0 comes back whole, the later fold models cut short: the variant's trial fails alike.
    await assert.rejects(
      foldProbabilities({ runtime, bars: market.cache }, hostile, prepared, { model_params: { max_depth: 3 } }, owner),
      refused,
    );
  });

  it('refuses a variant strategy_config would refuse, naming the field, before any fit', async () => {
    await assert.rejects(
      foldProbabilities({ runtime, bars: market.cache }, request, prepared, { model_params: { max_depth: -3 } }, owner),
      (err: unknown) => err instanceof UnprocessableError && /max_depth/.test(err.message),
    );
  });
});
