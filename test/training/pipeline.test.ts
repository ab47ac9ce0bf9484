/**
 * The train pipeline without the service: real HistData EURUSD bars in chdb, real sandboxed
 * Python, a real nats-server for the model store. The stages in order, strategy_config fetched
 * and checked once per job, and the one scoring chain: /predict over the post-cutoff span trades
 * exactly as the pipeline’s post-cutoff backtest did, as its user (their share of the runtime,
 * their penalty). An endless loop ends at its analysis budget.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openBucket } from '../../src/bus/index.ts';
import { RateLimitedError, UnprocessableError } from '../../src/errors.ts';
import { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import {
  JobStore,
  ModelStore,
  OVERRUN_NICE,
  OverrunPenalty,
  StrategyJobError,
  Training,
  TrainQueue,
  trainPipeline,
  type TrainOutcome,
} from '../../src/training/index.ts';
import type { JobLimits } from '../../src/sandbox/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { RobustnessReport } from '../../schemas/robustness.ts';
import { log, openRealMarket, predictOnly, trainJob, type RealMarket } from '../helpers/real-market.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { generateOffline } from '../../src/generation/offline/index.ts';
import { resolveSpan } from '../../src/training/bar-span.ts';
import { ModelRejectedError } from '../../src/scoring/index.ts';

/** Generated code with its long entry rule taken out (entry_long None): a direction model picks the entries. */
function withoutEntryRule(code: string): string {
  const out = code.replace('"entry_long": "entry_long_rule",', '"entry_long": None,');
  assert.notEqual(out, code, 'the generated code names entry_long_rule');
  return out;
}

describe('train pipeline', () => {
  let market: RealMarket;
  let runtime: StrategyRuntime;
  const calls = { config: 0, analyze: 0, train: 0 };
  /** The real runtime, counting the sandbox jobs the pipeline asks for. */
  const counted = () => ({
    config: (code: string) => (calls.config++, runtime.config(code)),
    analyze: (...a: Parameters<StrategyRuntime['analyze']>) => (calls.analyze++, runtime.analyze(...a)),
    train: (...a: Parameters<StrategyRuntime['train']>) => (calls.train++, runtime.train(...a)),
  });
  let outcome: TrainOutcome;
  const stages: string[] = [];

  before(async () => {
    market = await openRealMarket(50_000);
    runtime = await StrategyRuntime.start({ log, size: 2 });
    const job = trainJob({
      code: strategyCode(),
      timeframe: '15min',
      start_date: '2017-01-02',
      end_date: '2017-02-10',
      model_name: 'Pipeline',
    });
    outcome = await trainPipeline({ runtime: counted(), bars: market.cache })(job, async (stage) => void stages.push(stage));
  });
  after(async () => {
    await runtime?.stop();
    await market?.close();
  });

  it('runs its stages in order, fetching strategy_config once, and builds the model and its results', () => {
    assert.deepEqual(stages, ['checking code', 'training', 'backtesting', 'saving']);
    assert.deepEqual(calls, { config: 1, analyze: 1, train: 1 });
    const { record, results } = outcome;
    assert.equal(record.symbol, 'EURUSD');
    assert.equal(record.timeframe, '15min');
    assert.deepEqual(record.features, ['ret_1', 'ret_4', 'vol_20', 'sma_20', 'dist_sma', 'range']);
    assert.ok(record.trained_span.to < Date.parse('2017-02-11T00:00:00Z'));
    assert.ok(record.trained_span.from >= Date.parse('2017-01-02T00:00:00Z'));
    assert.equal(record.test_stats.n, results.metrics.test.n);
    assert.ok(record.test_stats.n > 0 && results.pred_trade_log.length > 0, 'trades in the test and post-cutoff spans');
    assert.equal(results.source, 'import');
  });

  it('carries the robustness report on the model and its results: 5 rolling walk-forward folds inside the trained span, N = 1 alone', () => {
    const { record, results } = outcome;
    const report = RobustnessReport.parse(record.robustness);
    assert.deepEqual(results.robustness, record.robustness);
    const wf = report.walk_forward!;
    assert.deepEqual([wf.k, wf.scheme, wf.purge_bars, wf.folds.length], [5, 'rolling', record.config.target_horizon, 5]);
    assert.ok(wf.embargo_bars > 0);
    const ms = (iso: string) => Date.parse(iso);
    wf.folds.forEach((f, i) => {
      assert.ok(ms(f.train.to) < ms(f.test.from), `fold ${i}: trained before its test`);
      assert.ok(
        ms(f.test.to) <= record.trained_span.to && ms(f.train.from) >= record.trained_span.from,
        `fold ${i}: inside the trained span`,
      );
      if (i > 0) assert.ok(ms(f.test.from) > ms(wf.folds[i - 1]!.test.to), 'tests follow each other');
    });
    assert.equal(wf.profitable, wf.folds.filter((f) => f.stats.ret > 0).length);
    assert.equal(report.sharpe.trials, 1, 'no trial counter: the job alone');
    assert.equal(report.random_baseline.trades, results.metrics.test.n);
  });

  it('wf_folds and wf_scheme reach the folds; the trial count reaches the deflated Sharpe', async () => {
    const job = trainJob({
      code: strategyCode(),
      timeframe: '15min',
      start_date: '2017-01-02',
      end_date: '2017-02-10',
      wf_folds: 3,
      wf_scheme: 'anchored',
    });
    const seen: number[] = [];
    const { record } = await trainPipeline({ runtime, bars: market.cache, trials: async (j) => (seen.push(j.job_id), 7) })(
      job,
      async () => undefined,
    );
    const report = RobustnessReport.parse(record.robustness);
    assert.deepEqual(seen, [job.job_id]);
    assert.equal(report.sharpe.trials, 7);
    const wf = report.walk_forward!;
    assert.deepEqual([wf.k, wf.scheme, wf.folds.length], [3, 'anchored', 3]);
    assert.ok(
      wf.folds.every((f) => f.train.from === wf.folds[0]!.train.from),
      'anchored: every fold trains from the first bar',
    );
  });

  it('refuses an invalid strategy_config at "checking code", before any fit', async () => {
    const before = { ...calls };
    const job = trainJob({ code: strategyCode({ threshold: 0.3 }), timeframe: '15min', start_date: '2017-01-02', end_date: '2017-02-10' });
    const seen: string[] = [];
    await assert.rejects(
      trainPipeline({ runtime: counted(), bars: market.cache })(job, async (s) => void seen.push(s)),
      (err: unknown) => {
        assert.ok(err instanceof UnprocessableError);
        assert.match(err.message, /strategy_config\(\) is invalid/);
        return true;
      },
    );
    assert.deepEqual(seen, ['checking code']);
    assert.deepEqual(calls, { ...before, config: before.config + 1 });
  });

  it('ends an endless loop in feature_engineering at its analysis budget, saying which budget and why', async () => {
    const job = trainJob({
      code: strategyCode({ prelude: 'while True:\n        pass' }),
      timeframe: '15min',
      start_date: '2017-01-02',
      end_date: '2017-02-10',
    });
    const seen: string[] = [];
    await assert.rejects(
      trainPipeline({ runtime, bars: market.cache })(job, async (s) => void seen.push(s)),
      (err: unknown) => {
        assert.ok(err instanceof StrategyJobError);
        assert.equal(err.kind, 'timeout');
        assert.match(
          err.message,
          /^the strategy used up its CPU time budget of 5 s for [\d,]+ bars \(the floor of 5 s: 2 s \+ 5 feature passes of 0\.08 ms per bar come to less\); an endless loop/,
        );
        return true;
      },
    );
    assert.deepEqual(seen, ['checking code'], 'stopped before the fit');
  });

  it('refuses the red team’s forged backtest at "checking code": reading 3 bars ahead only when len(df) exceeds the trained span', async () => {
    // The train job computes features on the trained span and the post-cutoff bars at once; the
    // analysis used to see the trained span only, so this code read ahead in the fit alone.
    const request = { timeframe: '15min', start_date: '2017-01-02', end_date: '2017-01-20' } as const;
    const span = resolveSpan(await market.cache.get('EURUSD', '15min'), request);
    const fitRows = span.fitEnd - span.from;
    assert.ok(span.to - span.fitEnd > 100, 'post-cutoff bars after the trained span');
    const peek = `fut = close.shift(1)\n    if len(df) > ${fitRows}:\n        fut = close.shift(3 - 6)\n    df['peek'] = fut / close - 1`;
    const job = trainJob({ code: strategyCode({ prelude: peek }), ...request });
    const seen: string[] = [];
    await assert.rejects(
      trainPipeline({ runtime, bars: market.cache })(job, async (s) => void seen.push(s)),
      (err: unknown) => {
        assert.ok(err instanceof UnprocessableError);
        assert.match(
          err.message,
          /^the features failed a check: features on a truncated history differ from the same rows on the full history of \d+ bars, so they use future bars.*\(columns: peek\)/,
        );
        return true;
      },
    );
    assert.deepEqual(seen, ['checking code'], 'refused before the fit');
  });

  it('refuses, after the fit, code that reads ahead only in the train job (its first call there is the full span)', async () => {
    const prelude = [
      "calls = getattr(feature_engineering, 'calls', 0) + 1",
      'feature_engineering.calls = calls',
      'fut = close.shift(1)',
      'if calls == 1 and len(df) > 1000:',
      '        fut = close.shift(3 - 6)',
      "df['peek'] = fut / close - 1",
    ].join('\n    ');
    const job = trainJob({ code: strategyCode({ prelude }), timeframe: '15min', start_date: '2017-01-02', end_date: '2017-01-20' });
    const seen: string[] = [];
    await assert.rejects(
      trainPipeline({ runtime, bars: market.cache })(job, async (s) => void seen.push(s)),
      (err: unknown) => {
        assert.ok(err instanceof UnprocessableError);
        assert.match(err.message, /computed other values in the fit than in the look-ahead analysis on the same bars \(columns: peek\)/);
        return true;
      },
    );
    assert.deepEqual(seen, ['checking code', 'training'], 'refused before any backtest');
  });

  it('refuses a model the sandbox hands back that our exporter does not make, before anything loads it', async () => {
    // The sandbox is the attacker's: here its answer is a real trained model with one field
    // appended that no part of our exporter writes (field 99, a varint) — enough to be refused.
    const forged = {
      ...runtime,
      config: runtime.config.bind(runtime),
      analyze: runtime.analyze.bind(runtime),
      train: async (...a: Parameters<StrategyRuntime['train']>) => {
        const trained = await runtime.train(...a);
        return { ...trained, onnx: Buffer.concat([trained.onnx, Buffer.from([0x98, 0x06, 0x01])]) };
      },
    };
    const job = trainJob({ code: strategyCode(), timeframe: '15min', start_date: '2017-01-02', end_date: '2017-01-20' });
    const seen: string[] = [];
    await assert.rejects(
      trainPipeline({ runtime: forged, bars: market.cache })(job, async (s) => void seen.push(s)),
      (err: unknown) => {
        assert.ok(err instanceof ModelRejectedError, String(err));
        assert.match(err.message, /not one this service's exporter makes/);
        assert.doesNotMatch(err.message, /field|99|wire/, 'the user is not told what the check looked at');
        assert.match(err.reason, /./);
        return true;
      },
    );
    assert.deepEqual(seen, ['checking code', 'training', 'backtesting'], 'refused when the backtest loads it, never saved');
  });

  it('runs the next jobs of a user whose strategy overran at the lowest CPU priority; other users’ at normal', async () => {
    const penalty = new OverrunPenalty();
    const niceness: Array<[number, number | undefined]> = [];
    /** The real runtime, noting the niceness each job of a user was given. */
    const noted = (userId: number) => ({
      config: (code: string, limits?: JobLimits) => (niceness.push([userId, limits?.nice]), runtime.config(code, limits)),
      analyze: (...a: Parameters<StrategyRuntime['analyze']>) => (niceness.push([userId, a[2]?.nice]), runtime.analyze(...a)),
      train: (...a: Parameters<StrategyRuntime['train']>) => (niceness.push([userId, a[3]?.nice]), runtime.train(...a)),
    });
    const run = (userId: number, code: string) => {
      const job = { ...trainJob({ code, timeframe: '15min', start_date: '2017-01-02', end_date: '2017-01-20' }), user_id: userId };
      return trainPipeline({ runtime: noted(userId), bars: market.cache, penalty })(job, async () => undefined);
    };
    const loop = strategyCode({ prelude: 'while True:\n        pass' });
    await assert.rejects(run(1, loop), StrategyJobError);
    await assert.rejects(run(1, loop), StrategyJobError);
    await run(2, strategyCode());
    assert.deepEqual(niceness, [
      [1, undefined],
      [1, undefined], // the first loop: normal priority, until it overran
      [1, OVERRUN_NICE],
      [1, OVERRUN_NICE], // the next: nice 19
      [2, undefined],
      [2, undefined],
      [2, undefined], // another user: normal
    ]);
  });

  it('trains generated code with an exit rule and a day filter: no entry after a Friday signal bar, long only, exits at the next open', async () => {
    const generated = generateOffline({
      description: "Go long when RSI 14 crosses above 30, exit on a close below the 20 EMA, don't trade on Fridays",
      symbol: 'EURUSD',
      timeframe: '15min',
    });
    assert.equal(generated.intent.config.exit_long, 'exit_long_rule');
    // The RSI rule fires on ~20 bars of these weeks and its trades lose: a meta-labelled model confirms none of
    // them (see the meta-label tests). Without the entry rule the model picks the entries, which the filters judge here.
    const code = withoutEntryRule(generated.code);
    const job = trainJob({ code, timeframe: '15min', start_date: '2017-01-02', end_date: '2017-02-10', model_name: 'Roles' });
    const { record, results } = await trainPipeline({ runtime, bars: market.cache })(job, async () => {});
    assert.deepEqual(record.config.skip_days, ['fri']);
    const trades = [...results.trade_log, ...results.pred_trade_log];
    assert.ok(trades.length > 0, 'it trades');
    for (const t of trades) {
      assert.equal(t.side, 'long');
      // The signal bar is the one before the entry's open: never a Friday (UTC).
      assert.notEqual(new Date(Date.parse(t.entry_time) - 15 * 60_000).getUTCDay(), 5, `entry ${t.entry_time} after a Friday signal`);
    }
    assert.ok(
      trades.some((t) => t.exit_reason === 'signal'),
      'exit rules (or opposite signals) close trades at an open',
    );
  });

  it('trains generated code with a trailing stop: strategy_config trailing_stop reaches the engine, stops trail into profit', async () => {
    const generated = generateOffline({
      description: 'Go long when RSI 14 crosses above 30, trail by 2 ATR',
      symbol: 'EURUSD',
      timeframe: '15min',
    });
    const { intent } = generated;
    assert.deepEqual(intent.config.trailing_stop, { atr: 2, period: 14 });
    assert.equal(intent.config.stop_loss, null, 'the trail is the only stop');
    // With its entry rule the job is meta-labelled: the rule's trades, judged by the model, reported beside the rule alone.
    const meta = await trainPipeline({ runtime, bars: market.cache })(
      trainJob({ code: generated.code, timeframe: '15min', start_date: '2017-01-02', end_date: '2017-02-10', model_name: 'Meta' }),
      async () => {},
    );
    assert.equal(meta.results.labels, 'meta');
    assert.ok(meta.results.meta_label!.rule_alone.n > 0, 'the rule alone trades on the test span');
    for (const t of meta.results.trade_log) assert.equal(t.side, 'long');
    // Without it the model picks the entries, so the trail has trades to act on.
    const code = withoutEntryRule(generated.code);
    const job = trainJob({ code, timeframe: '15min', start_date: '2017-01-02', end_date: '2017-02-10', model_name: 'Trailing' });
    const { record, results } = await trainPipeline({ runtime, bars: market.cache })(job, async () => {});
    assert.deepEqual(record.config.trailing_stop, { atr: 2, period: 14 }, 'the config Python returned keeps the key');
    const trades = [...results.trade_log, ...results.pred_trade_log];
    const stopped = trades.filter((t) => t.exit_reason === 'SL');
    assert.ok(stopped.length >= 5, `${stopped.length} stop exits of ${trades.length} trades`);
    for (const t of stopped) {
      assert.equal(t.side, 'long');
      // A stop exit fills at the trailed level, or below it on a gap: never above.
      assert.ok(
        t.stop_loss !== null && t.exit_price <= t.stop_loss + 1e-12,
        `${t.exit_time}: exit ${t.exit_price} above the stop ${t.stop_loss}`,
      );
    }
    // Without a fixed stop, a stop above the entry can only be the trail having moved up.
    assert.ok(
      stopped.some((t) => t.stop_loss! > t.entry_price),
      'some stops trailed above the entry',
    );
    assert.ok(
      stopped.some((t) => t.pnl > 0),
      'a trailed stop locked in a profit',
    );
  });

  it('/predict over the post-cutoff span trades exactly as the pipeline’s post-cutoff backtest', async () => {
    const { record, results } = outcome;
    const training = await predictOnly(market, runtime, outcome, strategyCode());
    const predicted = await training.predict(record.user_id, { model_name: 'Pipeline' });
    assert.equal(predicted.start, results.spans.post_cutoff!.from);
    const view = (t: { side: string; entry_time: string; exit_time: string; exit_reason: string; pnl: number }) => [
      t.side,
      t.entry_time,
      t.exit_time,
      t.exit_reason,
      t.pnl,
    ];
    assert.deepEqual(predicted.trades.map(view), results.pred_trade_log.map(view));
  });

  it('/predict runs as its user: their share of the runtime and their priority; an overrun counts against them; a full queue is 429 with Retry-After', async () => {
    const { bus } = market;
    const models = await ModelStore.open(bus, await openBucket(bus, Buckets.models), await openBucket(bus, Buckets.signals));
    const { record, results, onnx } = outcome;
    const loop = strategyCode({ prelude: 'while True:\n        pass' });
    await models.save(record, { onnx, code: strategyCode(), results });
    await models.save(
      { ...record, model_name: 'Spin', stem: `${record.user_id}_EURUSD_15min_Spin`, artifact: 'spin' },
      { onnx, code: loop, results },
    );
    const penalty = new OverrunPenalty();
    const seen: Array<JobLimits | undefined> = [];
    // One zygote, one job of a user waiting at most: the real pool's refusal.
    const small = await StrategyRuntime.start({ log, size: 1, maxWaitingPerUser: 1 });
    const unused = () => Promise.reject(new Error('not used by predict'));
    const training = new Training({
      jobs: new JobStore(await openBucket(bus, Buckets.jobs), await openBucket(bus, Buckets.counters)),
      models,
      queue: await TrainQueue.open(bus, { ackWaitMs: 30_000 }),
      metering: { useCap: unused, releaseCap: unused },
      bars: market.cache,
      runtime: { features: (...a: Parameters<StrategyRuntime['features']>) => (seen.push(a[2]), small.features(...a)) },
      log,
      penalty,
    });
    try {
      const user = record.user_id;
      await training.predict(user, { model_name: 'Pipeline' });
      assert.deepEqual([seen[0]?.user, seen[0]?.nice], [user, undefined], 'the user’s share, at normal priority');
      await assert.rejects(
        training.predict(user, { model_name: 'Spin' }),
        (err: unknown) => err instanceof UnprocessableError && /budget/.test(err.message),
      );
      assert.ok(penalty.penalized(user), 'the overrun counts against the user, as a train job’s does');
      await training.predict(user, { model_name: 'Pipeline' });
      assert.equal(seen.at(-1)?.nice, OVERRUN_NICE, 'their next /predict runs at the lowest priority');

      // The user's queue full (one running, one waiting): their next /predict is refused at once.
      const slow = strategyCode({ prelude: 'x = 0\n    for i in range(60_000_000):\n        x += i' });
      const bars = (await market.cache.get('EURUSD', '15min')).columns();
      const held = [0, 1].map(() => small.features(slow, bars, { user, timeoutMs: 60_000 }));
      await assert.rejects(training.predict(user, { model_name: 'Pipeline' }), (err: unknown) => {
        assert.ok(err instanceof RateLimitedError, String(err));
        assert.equal(err.status, 429);
        assert.ok(Number(err.headers['retry-after']) >= 1);
        return true;
      });
      await Promise.all(held);
    } finally {
      small.stop();
    }
  });
});
