/**
 * A meta-labelled model's report against strategy code that forges what the sandbox says of its
 * meta-labels (test/helpers/forged-meta-labels.ts), through the train pipeline with the real
 * sandboxed trainer, ONNX scoring and the position engine. Labels that claim every trade won change
 * nothing the results say: precision, recall, the uplift and its p-value, the win/loss confusion
 * matrix are the honest run's, judged on the engine's trades. Labels naming a bar outside the
 * scored rows, or counts that cannot be, refuse the job and say what was wrong.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BarSeries } from '../../src/market/index.ts';
import { StrategyRuntime, type TrainResult } from '../../src/sandbox/index.ts';
import { trainPipeline, type TrainOutcome } from '../../src/training/index.ts';
import { FORGE_ALL_WIN, FORGE_BAR_OUTSIDE, FORGE_COUNTS, FORGE_TEST_ROWS } from '../helpers/forged-meta-labels.ts';
import { log, trainJob } from '../helpers/real-market.ts';
import { syntheticHours } from '../helpers/synthetic-hours.ts';

/** Long at every bar whose hour is a multiple of 5, the model sees two returns: its trades win and lose. */
const CODE = `import numpy as np
import pandas as pd


def feature_engineering(df, close, open_, high, low):
    df["rule"] = (df.index.hour % 5 == 0).astype(float)
    df["ret_1"] = close.pct_change().fillna(0.0)
    df["ret_4"] = close.pct_change(4).fillna(0.0)
    return df


def strategy_config():
    return {
        "model_type": "RandomForestClassifier",
        "model_params": {"n_estimators": 30, "max_depth": 4},
        "signal_threshold": 0.5,
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
        "target_horizon": 4,
        "objective": "the rule's trades, confirmed",
        "notes": "long every fifth hour",
        "title": "Meta-label forgery",
    }
`;

describe('a meta-labelled model against forged meta-labels (real sandbox, 1-hour synthetic bars)', () => {
  let runtime: StrategyRuntime;
  let honest: TrainOutcome;
  let honestTrained: TrainResult;
  /** What the sandbox answered each train job (the pipeline's own runtime, passed through). */
  const answered: TrainResult[] = [];

  const train = (code: string): Promise<TrainOutcome> => {
    const series = new BarSeries(syntheticHours({ seed: 38, count: 2500, drift: () => 0, spread: () => 0.00002 }));
    const none = new BarSeries(syntheticHours({ seed: 38, count: 0, drift: () => 0, spread: () => 0 }));
    const bars = { get: (_symbol: string, timeframe: string) => Promise.resolve(timeframe === '1h' ? series : none) };
    const seen: Parameters<typeof trainPipeline>[0]['runtime'] = {
      config: (...a) => runtime.config(...a),
      analyze: (...a) => runtime.analyze(...a),
      train: async (...a) => {
        const trained = await runtime.train(...a);
        answered.push(trained);
        return trained;
      },
    };
    const job = trainJob({ code, symbol: 'EURUSD', timeframe: '1h', start_date: '2024-01-07', end_date: '2024-12-31', wf_folds: 2 });
    return trainPipeline({ runtime: seen, bars })(job, async () => undefined);
  };

  before(async () => {
    runtime = await StrategyRuntime.start({ log, size: 2 });
    honest = await train(CODE);
    honestTrained = answered.at(-1)!;
  });
  after(async () => {
    await runtime?.stop();
  });

  it("labels claiming every trade won: the report is the honest run's, judged on the engine's trades", async () => {
    const forged = await train(CODE + FORGE_ALL_WIN);
    const said = answered.at(-1)!.meta!;
    assert.ok(said.labels.length > 0 && said.labels.every((l) => l === 1), 'the forgery ran: the sandbox says every test trade won');
    assert.ok(
      honestTrained.meta!.labels.some((l) => l === 0),
      'honestly, some lost',
    );
    const h = honest.results;
    const f = forged.results;
    assert.equal(f.labels, 'meta');
    assert.ok(
      h.meta_label!.labels.precision !== null && h.meta_label!.labels.precision < 1,
      `honest precision ${h.meta_label!.labels.precision}`,
    );
    assert.deepEqual(f.meta_label, h.meta_label);
    assert.deepEqual(f.confusion_matrix, h.confusion_matrix);
    assert.deepEqual(f.rolling_accuracy, h.rolling_accuracy);
    assert.deepEqual(f.robustness!.model_vs_rule, h.robustness!.model_vs_rule);
    // The confusion matrix counts the rule alone's trades, as the report does.
    const [[lossLoss, lossWin], [winLoss, winWin]] = f.confusion_matrix.matrix as [[number, number], [number, number]];
    assert.equal(lossLoss! + lossWin! + winLoss! + winWin!, f.meta_label!.uplift.rule_trades);
    assert.equal(winLoss! + winWin!, f.meta_label!.labels.positives);
  });

  it('a label naming a bar outside the scored rows: refused, naming the bar', async () => {
    await assert.rejects(
      train(CODE + FORGE_BAR_OUTSIDE),
      /train answer does not match its layout: its meta-labels name bar \d+ \(ending at \d+\), outside the scored rows/,
    );
  });

  it('absurd counts: refused, saying which', async () => {
    await assert.rejects(
      train(CODE + FORGE_COUNTS),
      /train answer does not match its layout: its meta-labels count more rows \(1000000000 fitted, 1000000000 purged/,
    );
    await assert.rejects(
      train(CODE + FORGE_TEST_ROWS),
      /train answer does not match its layout: its meta-labels count \d+ test rows but list \d+/,
    );
  });
});
