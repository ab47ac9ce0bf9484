/**
 * Meta-labelling on markets whose truth we know (issue 35): the train pipeline (real sandboxed
 * trainer, ONNX scoring, the position engine, the report) on generated EURUSD-like 1-hour bars.
 *
 * The trader's rule: go long at every bar whose hour is a multiple of 5 (the `rule` column). The
 * market: after a rule bar, price drifts for the next HOLD bars, up on even days (since the epoch)
 * and down on odd ones; the `regime` column (+1 / −1) says which day it is, and the rule does not
 * read it. So the rule alone wins about half its trades, and a secondary model that learns
 * `regime` confirms the winners: precision lifts over the rule's base rate and the trades it
 * confirms beat random picks of the rule's with p < 0.05, on every seed. On a random walk (no
 * drift) the model has nothing to learn: p ≥ 0.05 (or no test: the model took none or all of the
 * rule's trades) on at least 8 of 10 seeds — the test's own false-positive rate is 5 %.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { BarSeries } from '../../src/market/index.ts';
import { StrategyRuntime } from '../../src/sandbox/index.ts';
import { trainPipeline, type TrainOutcome } from '../../src/training/index.ts';
import type { SeriesColumns } from '../../src/store/index.ts';
import { log, trainJob } from '../helpers/real-market.ts';
import { HOUR, SIGMA, syntheticHours } from '../helpers/synthetic-hours.ts';

const DAY = 86_400_000;
const BARS = 3_000;
/** Bars after a rule bar that drift with the day's regime, and by how much per bar (in SIGMA). */
const HOLD = 4;
const DRIFT = 0.6;

const CODE = `import numpy as np
import pandas as pd


def feature_engineering(df, close, open_, high, low):
    day = df.index.asi8 // (86400 * 10**9)
    df["rule"] = (df.index.hour % 5 == 0).astype(float)
    df["regime"] = np.where(day % 2 == 0, 1.0, -1.0)
    df["ret_1"] = close.pct_change().fillna(0.0)
    return df


def strategy_config():
    return {
        "model_type": "RandomForestClassifier",
        "model_params": {"n_estimators": 50, "max_depth": 4},
        "signal_threshold": 0.55,
        "direction": "long",
        "stop_loss": 0.003,
        "take_profit": 0.003,
        "cooldown": 0,
        "max_positions": 1,
        "on_opposite": "ignore",
        "session_filter": None,
        "min_atr": None,
        "trend_filter": None,
        "entry_long": "rule",
        "target_horizon": ${HOLD},
        "objective": "the rule's trades, confirmed",
        "notes": "long every fifth hour; the model sees the day's regime",
        "title": "Meta-label known truth",
    }
`;

/** 1-hour bars from a Sunday evening, weekends skipped; with `edge`, the regime drift after each rule bar. */
function market(seed: number, edge: boolean, count = BARS): SeriesColumns {
  let pending = 0;
  let direction = 0;
  return syntheticHours({
    seed: seed * 7919 + (edge ? 1 : 0),
    count,
    drift: () => (edge && pending > 0 ? direction * DRIFT * SIGMA : 0),
    after: (t) => {
      pending = Math.max(0, pending - 1);
      // A rule bar (its open hour a multiple of 5): the next HOLD bars drift with its day's regime.
      if (new Date(t).getUTCHours() % 5 === 0) {
        pending = HOLD;
        direction = Math.floor(t / DAY) % 2 === 0 ? 1 : -1;
      }
    },
    spread: () => 0.00002,
  });
}

describe('meta-labelling on known data (real sandbox, 1-hour synthetic bars)', () => {
  let runtime: StrategyRuntime;
  before(async () => {
    runtime = await StrategyRuntime.start({ log, size: 2 });
  });
  after(async () => {
    await runtime?.stop();
  });

  async function train(seed: number, edge: boolean): Promise<TrainOutcome> {
    const series = new BarSeries(market(seed, edge));
    // No 1-minute bars: the engine's conservative order when a bar reaches both levels, as the labels'.
    const none = new BarSeries(market(seed, edge, 0));
    const bars = { get: (_symbol: string, timeframe: string) => Promise.resolve(timeframe === '1h' ? series : none) };
    const job = trainJob({
      code: CODE,
      symbol: 'EURUSD',
      timeframe: '1h',
      start_date: '2024-01-07',
      end_date: '2024-12-31',
      model_name: `Meta ${seed} ${edge}`,
    });
    return trainPipeline({ runtime, bars })(job, async () => undefined);
  }

  const line = (seed: number, o: TrainOutcome) => {
    const m = o.results.meta_label!;
    return (
      `seed ${String(seed).padStart(2)}: rows ${m.rows.train}/${m.rows.test} purged ${m.rows.purged}  base ${m.labels.base_rate?.toFixed(3)} ` +
      `precision ${m.labels.precision?.toFixed(3) ?? 'none'} recall ${m.labels.recall?.toFixed(3) ?? 'none'}  rule trades ${m.uplift.rule_trades} chosen ${m.uplift.chosen_trades} ` +
      `pnl rule ${m.rule_alone.np.toFixed(0)} rule+model ${m.rule_and_model.np.toFixed(0)}  p ${m.uplift.p_value?.toFixed(4) ?? 'null'} — ${m.verdict}`
    );
  };

  it('learns the condition the rule does not read: precision lifts and the confirmed trades beat random picks (p < 0.05) on every seed', async (t: TestContext) => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const outcome = await train(seed, true);
      const { results } = outcome;
      t.diagnostic(line(seed, outcome));
      assert.equal(results.labels, 'meta');
      const m = results.meta_label!;
      assert.ok(m.rows.train >= 50 && m.rows.test > 0, `seed ${seed}: rule rows`);
      assert.ok(
        m.labels.precision! > m.labels.base_rate! + 0.1,
        `seed ${seed}: precision ${m.labels.precision} over the rule's ${m.labels.base_rate}`,
      );
      assert.ok(m.uplift.p_value !== null && m.uplift.p_value < 0.05, `seed ${seed}: p ${m.uplift.p_value}`);
      assert.match(m.verdict, /adds to the trader's rule/);
      // The robustness report says the same, last among its reasons, without moving the verdict.
      const judged = results.robustness!.model_vs_rule!;
      assert.equal(judged.adds, true);
      assert.equal(judged.p_value, m.uplift.p_value);
      assert.equal(results.robustness!.reasons.at(-1), judged.words);
      assert.ok(m.uplift.pnl > 0, `seed ${seed}: the strategy beats its rule alone`);
      // Every trade of the strategy is one of the rule's (a rule bar before its entry), long only.
      assert.equal(outcome.record.config.entry_long, 'rule');
      for (const trade of results.trade_log) {
        assert.equal(trade.side, 'long');
        const signalHour = new Date(Date.parse(trade.entry_time) - HOUR).getUTCHours();
        assert.equal(signalHour % 5, 0, `an entry at ${trade.entry_time} follows a rule bar`);
      }
    }
  });

  it('adds nothing significant on a random walk: p ≥ 0.05 (or no test) on at least 8 of 10 seeds', async (t: TestContext) => {
    let nothing = 0;
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) {
      const outcome = await train(seed, false);
      t.diagnostic(line(seed, outcome));
      const p = outcome.results.meta_label!.uplift.p_value;
      if (p === null || p >= 0.05) {
        nothing++;
        assert.match(outcome.results.meta_label!.verdict, /adds nothing|none|no trade/);
        assert.equal(outcome.results.robustness!.model_vs_rule!.adds, false);
        assert.match(outcome.results.robustness!.reasons.at(-1)!, /adds nothing|none|no trade/);
      }
    }
    t.diagnostic(`the model added nothing significant on ${nothing} of 10 random walks`);
    assert.ok(nothing >= 8, `${nothing} of 10`);
  });
});
