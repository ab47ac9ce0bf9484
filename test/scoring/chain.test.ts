/**
 * The one scoring chain on a model trained in the real sandbox over real HistData EURUSD 15-min
 * bars: warm-up rows stay unscored, the feature-column check refuses a strategy that changed, the
 * threshold and trend_filter decide signals and entries, and the model's settings become engine
 * options the same way for every caller.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BadRequestError, UnprocessableError } from '../../src/errors.ts';
import { toBarColumns } from '../../src/backtest/index.ts';
import { StrategyRuntime, type TrainResult } from '../../src/sandbox/runtime-pool.ts';
import {
  engineOptions,
  featureColumn,
  loadModel,
  scoreWindow,
  scoringShare,
  sliceBars,
  strategyMask,
  toSignals,
  type BarColumns,
  type FeatureComputer,
  type OnnxModel,
  type ScoringSpec,
} from '../../src/scoring/index.ts';
import { modelSettings } from '../../src/training/index.ts';
import { TrainRequest } from '../../schemas/training.ts';
import { log } from '../helpers/nats.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { loadBars } from '../helpers/strategy-bars.ts';

describe('scoring chain', () => {
  const code = strategyCode({ trendFilter: 'sma_20' });
  let runtime: StrategyRuntime;
  let trained: TrainResult;
  let scorer: OnnxModel;
  let bars: BarColumns;
  let spec: ScoringSpec;
  let compute: FeatureComputer;

  before(async () => {
    runtime = await StrategyRuntime.start({ log, size: 1 });
    const m = loadBars('EURUSD', '15min', 3000);
    bars = toBarColumns(Array.from(m.ts, (ts, i) => ({ ts, open: m.open[i]!, high: m.high[i]!, low: m.low[i]!, close: m.close[i]! })));
    trained = await runtime.train(code, bars, { trainSplit: 0.7 });
    scorer = await loadModel(trained.onnx);
    const settings = modelSettings(TrainRequest.parse({ code, timeframe: '15min' }), trained.config);
    spec = { symbol: 'EURUSD', timeframe: '15min', features: trained.features, config: trained.config, settings };
    compute = (window) => runtime.features(code, window);
  });
  after(async () => {
    await scorer?.close();
    await runtime?.stop();
  });

  it('scores a window from its warm-up on: earlier rows have no p(up) and no signal', async () => {
    const window = sliceBars(bars, 2000, 2400);
    // The strategy's longest look-back is 20 bars: 60 bars of warm-up are plenty.
    const lead = 60;
    const scored = await scoreWindow(compute, scorer, spec, window, lead);
    assert.equal(scored.pUp.length, 400);
    for (let i = 0; i < lead; i++) {
      assert.ok(Number.isNaN(scored.pUp[i]!));
      assert.equal(scored.signals[i], 0);
    }
    for (let i = lead; i < 400; i++) assert.ok(scored.pUp[i]! >= 0 && scored.pUp[i]! <= 1);
    assert.deepEqual(scored.signals, toSignals(scored.pUp, spec.settings.confidence_threshold));
    // A warmed-up bar scores as the fit scored it on the whole history (sklearn vs ONNX float32).
    const row = 2000 + lead - trained.warmup;
    assert.ok(Math.abs(scored.pUp[lead]! - trained.probaUp[row]!) < 1e-5, `${scored.pUp[lead]} vs ${trained.probaUp[row]}`);
  });

  it('trend_filter allows longs only above the column and shorts only below it', async () => {
    const window = sliceBars(bars, 1000, 1300);
    const scored = await scoreWindow(compute, scorer, spec, window, 60);
    const trend = featureColumn(scored.features, 'sma_20', 300)!;
    for (let i = 0; i < 60; i++) assert.equal(scored.mask[i], 0, 'no trend value yet: no entry');
    for (let i = 60; i < 300; i++) {
      const close = window.close[i]!;
      assert.equal(scored.mask[i]! & 1, close > trend[i]! ? 1 : 0);
      assert.equal(scored.mask[i]! & 2, close < trend[i]! ? 2 : 0);
    }
    const unknown = { ...spec, config: { ...spec.config, trend_filter: 'no_such_column' } };
    await assert.rejects(scoreWindow(compute, scorer, unknown, window, trained.warmup), UnprocessableError);
  });

  it("entry_long / entry_short and exit_long / exit_short come from strategy_config: entries only where a side's rule is > 0, exit bits where the column is > 0", async () => {
    const window = sliceBars(bars, 1000, 1300);
    const config = {
      ...spec.config,
      trend_filter: null,
      entry_long: 'ret_4',
      entry_short: 'range',
      exit_long: 'dist_sma',
      exit_short: 'ret_1',
    };
    const scored = await scoreWindow(compute, scorer, { ...spec, config }, window, 60);
    const [up4, range, dist, ret] = ['ret_4', 'range', 'dist_sma', 'ret_1'].map((name) => featureColumn(scored.features, name, 300)!);
    let exits = 0;
    let longs = 0;
    for (let i = 60; i < 300; i++) {
      const m = scored.mask[i]!;
      assert.equal(m & 4, dist![i]! > 0 ? 4 : 0, `bar ${i}: exit long`);
      assert.equal(m & 8, ret![i]! > 0 ? 8 : 0, `bar ${i}: exit short`);
      assert.equal(m & 1, up4![i]! > 0 && !(dist![i]! > 0) ? 1 : 0, `bar ${i}: long entry`);
      assert.equal(m & 2, range![i]! > 0 && !(ret![i]! > 0) ? 2 : 0, `bar ${i}: short entry`);
      exits += m >> 2 ? 1 : 0;
      longs += m & 1;
    }
    assert.ok(exits > 0 && longs > 0, 'the window has exit bars and long entries');
    // a long rule alone: no short opens anywhere
    const longOnly = await scoreWindow(
      compute,
      scorer,
      { ...spec, config: { ...spec.config, trend_filter: null, entry_long: 'ret_4' } },
      window,
      60,
    );
    assert.ok(longOnly.mask.every((m) => (m & 2) === 0));
    await assert.rejects(
      scoreWindow(compute, scorer, { ...spec, config: { ...config, exit_short: 'no_such_column' } }, window, 60),
      /exit_short names "no_such_column"/,
    );
    await assert.rejects(
      scoreWindow(compute, scorer, { ...spec, config: { ...config, entry_long: 'no_such_column' } }, window, 60),
      (err: unknown) => {
        assert.ok(err instanceof UnprocessableError);
        assert.match(err.message, /entry_long names "no_such_column", which is not a feature column/);
        return true;
      },
    );
  });

  it("skip_days and session_filter are not in the mask: they become the engine's entry times, judged on the fill bar", async () => {
    const window = sliceBars(bars, 1000, 1300);
    const config = { ...spec.config, trend_filter: null, skip_days: ['wed' as const], session_filter: [7, 20] as [number, number] };
    const scored = await scoreWindow(compute, scorer, { ...spec, config }, window, 60);
    assert.ok(
      scored.mask.subarray(60).every((m) => m === 3),
      'every bar of the window allows both sides by the mask',
    );
    assert.deepEqual(engineOptions({ ...spec, config }, null).entryTimes, { session: [7, 20], skipDays: ['wed'] });
    assert.deepEqual(engineOptions(spec, null).entryTimes, { session: null, skipDays: [] }, 'no filter: any time');
  });

  it('deployments sharing one features answer share its rows and masks, read-only, and each config still gets its own mask', async () => {
    const window = sliceBars(bars, 1500, 1800);
    const answer = await runtime.features(code, window);
    // FeatureSources hands every deployment of a program the same answer for a bar's window.
    const shared: FeatureComputer = async () => answer;
    const configs = [
      spec.config,
      { ...spec.config, trend_filter: null, entry_long: 'ret_4', exit_short: 'ret_1' },
      { ...spec.config, min_atr: 0.05 },
      { ...spec.config, trend_filter: null },
    ];
    const first = await Promise.all(configs.map((config) => scoreWindow(shared, scorer, { ...spec, config }, window, 60)));
    const again = await Promise.all(configs.map((config) => scoreWindow(shared, scorer, { ...spec, config }, window, 60)));
    // Each alone, on an answer of its own: what the shared masks must equal.
    const alone = await Promise.all(configs.map((config) => scoreWindow(compute, scorer, { ...spec, config }, window, 60)));
    for (let c = 0; c < configs.length; c++) {
      assert.deepEqual(first[c]!.mask, alone[c]!.mask, `config ${c}: the mask it gets alone`);
      assert.equal(again[c]!.mask, first[c]!.mask, `config ${c}: worked out once`);
      assert.equal(again[c]!.features, first[c]!.features, 'the rows are cut once');
      assert.notEqual(again[c]!.pUp, first[c]!.pUp, 'probabilities are each caller’s own');
    }
    assert.equal(new Set(first.map((s) => s.mask)).size, configs.length, 'one mask per config');
    assert.notDeepEqual(first[0]!.mask, first[3]!.mask, 'the trend filter changes it');
    assert.notDeepEqual(first[0]!.mask, first[2]!.mask, 'min_atr changes it');
    // Another span of the same rows is another mask.
    const shorter = sliceBars(window, 0, 299);
    const rows = first[0]!.features;
    assert.notEqual(strategyMask(shorter, spec, rows), first[0]!.mask);
    // An optimiser's sweep of min_atr on one set of rows keeps a bounded number of masks.
    for (let i = 0; i < 20; i++) strategyMask(window, { ...spec, config: { ...spec.config, min_atr: 0.01 * i } }, rows);
    const again0 = strategyMask(window, spec, rows);
    assert.notEqual(again0, first[0]!.mask, 'the oldest masks were let go');
    assert.deepEqual(again0, first[0]!.mask, 'and are worked out again the same');
  });

  it('with `share`, deployments of one model and spec on one features answer step on one scoring; another spec, owner or lead gets its own', async () => {
    const window = sliceBars(bars, 1500, 1800);
    const answer = await runtime.features(code, window);
    const shared: FeatureComputer = async () => answer;
    // Another handle of the same bytes for the same owner (another deployment of the model), and one for another owner.
    const twin = await loadModel(trained.onnx);
    const stranger = await loadModel(trained.onnx, { owner: 999 });
    try {
      const share = scoringShare(scorer, spec);
      assert.equal(scoringShare(twin, spec), share, 'a handle of the same bytes and owner: the same share');
      assert.notEqual(scoringShare(stranger, spec), share, 'another owner: another share');
      const first = await scoreWindow(shared, scorer, spec, window, 60, share);
      assert.equal(await scoreWindow(shared, twin, spec, window, 60, share), first, 'the same model and spec: one scoring');
      const alone = await scoreWindow(compute, scorer, spec, window, 60);
      assert.notEqual(alone, first);
      assert.deepEqual([first.pUp, first.signals, first.mask], [alone.pUp, alone.signals, alone.mask], 'what each scores alone');

      const stricter = { ...spec, settings: { ...spec.settings, confidence_threshold: 0.9 } };
      const strict = await scoreWindow(shared, scorer, stricter, window, 60, scoringShare(scorer, stricter));
      assert.notEqual(strict, first, 'another threshold: its own scoring');
      assert.deepEqual(strict.signals, toSignals(strict.pUp, 0.9), 'with its own signals');
      assert.notEqual(await scoreWindow(shared, stranger, spec, window, 60, scoringShare(stranger, spec)), first, 'another owner: its own');
      assert.notEqual(await scoreWindow(shared, twin, spec, window, 80, share), first, 'another lead: its own');
      assert.notEqual(await scoreWindow(shared, twin, spec, window, 60), first, 'no share asked: its own');

      // A scoring that failed is not kept: the next caller scores again.
      const closed = await loadModel(trained.onnx);
      await closed.close();
      const other = sliceBars(bars, 1400, 1700);
      const otherAnswer = await runtime.features(code, other);
      await assert.rejects(
        scoreWindow(async () => otherAnswer, closed, spec, other, 60, share),
        /closed/,
      );
      const retried = await scoreWindow(async () => otherAnswer, scorer, spec, other, 60, share);
      assert.equal(retried.pUp.length, 300);
    } finally {
      await twin.close();
      await stranger.close();
    }
  });

  it('refuses features whose columns are not the model’s, naming them', async () => {
    const other = { ...spec, features: [...spec.features].reverse() };
    await assert.rejects(scoreWindow(compute, scorer, other, sliceBars(bars, 0, 300), trained.warmup), (err: unknown) => {
      assert.ok(err instanceof BadRequestError);
      assert.match(err.message, /other feature columns than at training \(ret_1, ret_4, vol_20, sma_20, dist_sma, range\)/);
      return true;
    });
  });

  it('engine options: the request’s levels in its unit, else strategy_config’s as a fraction of price', () => {
    const resolver = { firstTouch: () => 'TP' as const };
    const fromConfig = engineOptions(spec, resolver);
    assert.deepEqual(fromConfig.stop, { unit: 'pct', value: 0.002 });
    assert.deepEqual(fromConfig.take, { unit: 'pct', value: 0.003 });
    assert.equal(fromConfig.resolver, resolver, 'finer bars settle SL vs TP by default');
    const settings = { ...spec.settings, stop_loss: 15, take_profit: null, risk_unit: 'pips' as const, intrabar: 'stop_first' as const };
    const fromRequest = engineOptions({ ...spec, settings }, resolver);
    assert.deepEqual(fromRequest.stop, { unit: 'pips', value: 15 });
    assert.equal(fromRequest.take, null);
    assert.equal(fromRequest.resolver, null);
  });

  it("engine options: strategy_config trailing_stop becomes the engine's trail (absent = none)", () => {
    assert.equal(engineOptions(spec, null).trail, null, 'code without the key trades as before');
    const withTrail = (trailing_stop: typeof spec.config.trailing_stop) =>
      engineOptions({ ...spec, config: { ...spec.config, trailing_stop } }, null).trail;
    assert.deepEqual(withTrail(0.01), { unit: 'pct', value: 0.01 });
    assert.deepEqual(withTrail({ atr: 2, period: 14 }), { unit: 'atr', value: 2, period: 14 });
    assert.deepEqual(withTrail({ pips: 30 }), { unit: 'pips', value: 30 });
    assert.equal(withTrail(null), null);
  });
});
