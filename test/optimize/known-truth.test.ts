/**
 * Honest by construction (issue 34 §4): the optimiser and its verdict on markets whose truth we
 * know. The real runner (OptimizeRunner: the sandbox's walk-forward fold models, optuna's sampler,
 * the engine sweep, CSCV, the robustness report) over generated EURUSD-like 1-hour bars, 20 fixed
 * seeds per market, 200 engine trials of a common strategy each:
 *
 *  - no edge: a seeded random walk. The verdict must be `overfit` or `inconclusive` with a
 *    deflated-Sharpe p-value above 0.05 for ≥ 19 of 20 seeds, and PBO centred on its null of 0.5
 *    (the "PBO > 0.5 in 19 of 20" cannot hold honestly: see the test);
 *  - planted edge: each bar drifts the way the bar before moved (the strategy's `ret_1`), so the
 *    next bar's direction is predictable. The verdict must be `robust` with a deflated-Sharpe
 *    p-value below 0.05 for ≥ 19 of 20 seeds.
 *
 * Per seed the verdict, PBO, p-value and what they came from go to the test's diagnostic output,
 * so a failure explains itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { BarSeries } from '../../src/market/index.ts';
import { OptimizeStore } from '../../src/optimize/index.ts';
import { parseObjective } from '../../src/optimize/objective.ts';
import { OptimizeRunner } from '../../src/optimize/runner.ts';
import { checkSearchSpace, type SearchSpace } from '../../src/optimize/search-space.ts';
import { openBucket } from '../../src/bus/index.ts';
import { StrategyRuntime } from '../../src/sandbox/index.ts';
import { configBudget, withinBudget } from '../../src/training/index.ts';
import type { SeriesColumns } from '../../src/store/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { OptimizeJobRequest, type OptimizeRecord } from '../../schemas/optimize.ts';
import { StrategyConfig } from '../../schemas/strategy.ts';
import { log, startNats, type TestNats } from '../helpers/nats.ts';
import { optimizeRecord } from '../helpers/optimize-record.ts';
import { SIGMA, syntheticHours } from '../helpers/synthetic-hours.ts';

const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);
const TRIALS = 200;
/** The planted edge: each bar drifts EDGE·SIGMA the way the bar before moved (its sign follows ret_1's with probability Φ(EDGE)). */
const EDGE = 0.5;
/** 1-hour bars per market: ~6 months of FX hours; the five folds' test blocks are ~470 bars each. */
const BARS = 3_000;

/** A common strategy: EMA crossover distance, RSI, the last bar's return and volatility, a small forest. */
const CODE = `import numpy as np
import pandas as pd


def feature_engineering(df, close, open_, high, low):
    ema_9 = close.ewm(span=9, adjust=False).mean()
    ema_21 = close.ewm(span=21, adjust=False).mean()
    delta = close.diff()
    gain = delta.clip(lower=0).rolling(14).mean()
    loss = (-delta.clip(upper=0)).rolling(14).mean()
    df["ema_gap"] = (ema_9 - ema_21) / close
    df["rsi_14"] = 100 - 100 / (1 + gain / (loss + 1e-12))
    df["ret_1"] = close.pct_change()
    df["ret_3"] = close.pct_change(3)
    df["vol_20"] = df["ret_1"].rolling(20).std()
    df = df.bfill().ffill()
    return df


def strategy_config():
    return {
        "model_type": "RandomForestClassifier",
        "model_params": {"n_estimators": 10, "max_depth": 4},
        "signal_threshold": 0.55,
        "direction": "both",
        "stop_loss": 0.002,
        "take_profit": 0.003,
        "cooldown": 0,
        "max_positions": 1,
        "on_opposite": "reverse",
        "session_filter": None,
        "min_atr": None,
        "trend_filter": None,
        "target_horizon": 1,
        "objective": "EMA crossover and RSI",
        "notes": "EMA 9/21 gap, RSI 14, last returns and volatility",
        "title": "EMA RSI forest",
    }
`;

/** What a trader would tune without refitting: levels, threshold, cooldown and direction. */
const PARAMETERS = {
  stop_loss: { type: 'float', low: 10, high: 60, step: 5 },
  take_profit: { type: 'float', low: 10, high: 90, step: 5 },
  confidence_threshold: { type: 'float', low: 0.5, high: 0.66, step: 0.01 },
  cooldown: { type: 'int', low: 0, high: 8 },
  direction: { type: 'choice', values: ['both', 'long', 'short'] },
} as const;

/**
 * syntheticHours' EURUSD-like 1-hour bars (test/helpers/synthetic-hours.ts), spreads of 0.8–1.4
 * pips. With `edge` > 0 each bar drifts by edge·SIGMA in the direction of the bar before: the sign of the
 * next bar's return follows the sign of `ret_1` with probability Φ(edge).
 */
function syntheticMarket(seed: number, edge: number, count = BARS): SeriesColumns {
  return syntheticHours({
    seed: seed * 7919 + (edge > 0 ? 1 : 0),
    count,
    drift: (_t, last) => edge * SIGMA * Math.sign(last),
    spread: (random) => 0.00008 + 0.00006 * random(),
  });
}

interface Outcome {
  seed: number;
  verdict: string;
  pbo: number | null;
  pValue: number;
  record: OptimizeRecord;
}

describe('known truth: the optimiser’s verdict on markets whose edge we know', () => {
  let nats: TestNats;
  let runtime: StrategyRuntime;
  let store: OptimizeStore;
  let space: SearchSpace;
  let request: OptimizeJobRequest;
  let ids = 0;

  before(async () => {
    nats = await startNats('known-truth');
    const [jobs, chunks, counters] = await Promise.all([
      openBucket(nats.bus, Buckets.optimize),
      openBucket(nats.bus, Buckets.optimizeTrials),
      openBucket(nats.bus, Buckets.counters),
    ]);
    store = new OptimizeStore(jobs, counters, chunks);
    runtime = await StrategyRuntime.start({ log, size: 2, perUser: 2 });
    request = OptimizeJobRequest.parse({
      code: CODE,
      symbol: 'EURUSD',
      timeframe: '1h',
      parameters: PARAMETERS,
      method: 'random',
      trials: TRIALS,
      walk_forward: { folds: 5, scheme: 'anchored', embargo: 0 },
      // Entries and exits pay the bar's spread, as a broker's would.
      fill_at_bid_ask: true,
    });
    const owner = { user: 1, nice: 0, overran: () => undefined };
    const config = StrategyConfig.parse(await withinBudget(configBudget(), (limits) => runtime.config(CODE, limits), owner));
    space = checkSearchSpace(request, { config, indicators: [], riskUnit: request.risk_unit });
  });
  after(async () => {
    await runtime?.stop();
    await nats?.close();
  });

  /** One optimisation of the common strategy over the seed's market, through the real runner. */
  async function optimise(seed: number, edge: number): Promise<Outcome> {
    const series = new BarSeries(syntheticMarket(seed, edge));
    const none = new BarSeries(syntheticMarket(seed, edge, 0));
    const bars = { get: (_symbol: string, timeframe: string) => Promise.resolve(timeframe === '1h' ? series : none) };
    const runner = new OptimizeRunner({ store, runtime, bars, log });
    const id = ++ids;
    const job = optimizeRecord({
      optimize_id: id,
      user_id: 1,
      status: 'running',
      request: { ...request, seed },
      objective: parseObjective('sharpe'),
      trials_planned: TRIALS,
      credits_charged: TRIALS,
    });
    await store.create(job);
    await runner.run(job, { ...space, seed }, { user: 1, nice: 0, overran: () => undefined });
    const record = (await store.get(1, id))!;
    assert.equal(record.status, 'done', `seed ${seed}: ${record.error ?? record.status}`);
    assert.ok(record.robustness, `seed ${seed}: no robustness report`);
    return { seed, verdict: record.robustness.verdict, pbo: record.pbo?.pbo ?? null, pValue: record.robustness.sharpe.p_value, record };
  }

  async function optimiseAll(edge: number): Promise<Outcome[]> {
    const out: Outcome[] = [];
    // Two at a time: the runtime's two sandboxes fit while the other job sweeps.
    for (let i = 0; i < SEEDS.length; i += 2) out.push(...(await Promise.all(SEEDS.slice(i, i + 2).map((s) => optimise(s, edge)))));
    return out;
  }

  const line = (o: Outcome) => {
    const r = o.record.robustness!;
    return (
      `seed ${String(o.seed).padStart(2)}: ${o.verdict.padEnd(12)} PBO ${o.pbo?.toFixed(3) ?? 'none'}  DSR p ${o.pValue.toFixed(4)}  ` +
      `SR/bar ${r.sharpe.sharpe.toFixed(4)} SR0 ${r.sharpe.expected_max_sharpe.toFixed(4)} T ${r.sharpe.observations}  ` +
      `test trades ${r.random_baseline.trades} rand p ${r.random_baseline.return_p_value.toFixed(3)} folds+ ${r.walk_forward?.profitable}/${r.walk_forward?.k} ` +
      `eff ${r.walk_forward?.efficiency?.toFixed(2) ?? 'null'} slope ${o.record.degradation?.slope.toFixed(2) ?? 'null'} trials ${o.record.trials_run} — ${r.reasons[0]}`
    );
  };

  /** Each market's 20 optimisations, run once however many tests read them. */
  const runs = new Map<number, Promise<{ outcomes: Outcome[]; seconds: number }>>();
  const outcomesOf = (edge: number) => {
    let run = runs.get(edge);
    if (!run) {
      const started = Date.now();
      run = optimiseAll(edge).then((outcomes) => ({ outcomes, seconds: (Date.now() - started) / 1000 }));
      runs.set(edge, run);
    }
    return run;
  };
  const report = (t: TestContext, { outcomes, seconds }: { outcomes: Outcome[]; seconds: number }) => {
    for (const o of outcomes) t.diagnostic(line(o));
    t.diagnostic(`${outcomes.length} optimisations of ${TRIALS} trials in ${seconds.toFixed(1)} s`);
  };
  const atLeast = (met: Outcome[], all: Outcome[]) =>
    assert.ok(met.length >= all.length - 1, `${met.length} of ${all.length} seeds met it:\n${all.map(line).join('\n')}`);

  it('no edge (a random walk): overfit or inconclusive, with a deflated-Sharpe p-value above 0.05, for at least 19 of 20 seeds', async (t) => {
    const run = await outcomesOf(0);
    report(t, run);
    atLeast(
      run.outcomes.filter((o) => (o.verdict === 'overfit' || o.verdict === 'inconclusive') && o.pValue > 0.05),
      run.outcomes,
    );
  });

  // The issue asks for PBO > 0.5 in 19 of 20 no-edge seeds. Honest CSCV cannot give that: with
  // no edge the in-sample winner's out-of-sample rank is a coin flip, so PBO is centred on 0.5
  // (its null), not above it (measured: above 0.5 for 10 of 20 seeds, mean 0.46, range 0.16-0.78;
  // a published study of 200 zero-edge strategies at S = 16 reports 0.476 +/- 0.137). What holds,
  // and is asserted: without an edge PBO sits at its null on average (choosing by backtest did no
  // better than choosing at random), and with one it sits near 0 in (nearly) every seed.
  it('no edge (a random walk): PBO is centred on its null of 0.5 (the mean of 20 seeds within 0.35..0.65)', async (t) => {
    const run = await outcomesOf(0);
    const pbos = run.outcomes.map((o) => o.pbo);
    assert.ok(
      pbos.every((p) => p !== null),
      'every optimisation reports a PBO',
    );
    const mean = (pbos as number[]).reduce((a, b) => a + b, 0) / pbos.length;
    t.diagnostic(`mean PBO ${mean.toFixed(3)}; above 0.5 in ${(pbos as number[]).filter((p) => p > 0.5).length} of ${pbos.length} seeds`);
    assert.ok(
      mean >= 0.35 && mean <= 0.65,
      `mean PBO ${mean.toFixed(3)} over ${pbos.length} no-edge seeds:\n${run.outcomes.map(line).join('\n')}`,
    );
  });

  it('planted edge: PBO below 0.5 (the in-sample choice carries forward) for at least 19 of 20 seeds', async () => {
    const run = await outcomesOf(EDGE);
    atLeast(
      run.outcomes.filter((o) => o.pbo !== null && o.pbo < 0.5),
      run.outcomes,
    );
  });

  it('planted edge: robust, with a deflated-Sharpe p-value below 0.05, for at least 19 of 20 seeds', async (t) => {
    const run = await outcomesOf(EDGE);
    report(t, run);
    atLeast(
      run.outcomes.filter((o) => o.verdict === 'robust' && o.pValue < 0.05),
      run.outcomes,
    );
  });
});
