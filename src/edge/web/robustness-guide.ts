/**
 * "Is the edge real?" in words, for /api/v1/docs and /llms.txt: the robustness report, one_shot's
 * deploy_if, the leaderboard by deflated Sharpe and the optimiser. The verdict's thresholds are
 * src/robustness's own constants, so the text cannot drift from the rule.
 */
import { BASELINE_RUNS, MIN_PROFITABLE_FOLDS, MIN_TRADES, MONTE_CARLO_RUNS, SIGNIFICANCE_P } from '../../robustness/index.ts';
import type { CatalogueGuide } from '../../../schemas/discovery.ts';

/** A guide, shown only when the document has every route it names. */
interface GuideSource extends CatalogueGuide {
  needs: readonly string[];
}

const GUIDES: readonly GuideSource[] = [
  {
    topic: 'Is the edge real? The robustness report on every model',
    needs: ['GET /api/v1/results/{model}'],
    text:
      'Every trained model (POST /api/v1/train, one_shot, a fork’s training, a saved optimisation trial) carries a robustness ' +
      'report: GET /api/v1/results/{model} → `robustness`, GET /api/v1/train/{job_id} once done, and one_shot’s `done` → ' +
      '`robustness` (the verdict, its reasons and the headline figures). It holds: walk-forward folds (k out-of-sample folds, ' +
      'default 5, rolling or anchored, purged and embargoed like the train/test split; each fold’s test TradeStats, the ' +
      'walk-forward efficiency and how many folds were profitable); the Probabilistic and Deflated Sharpe Ratios of the ' +
      'out-of-sample bar returns (their skewness and kurtosis, N = the variants your account trained on the same symbol and ' +
      `timeframe from the same code lineage); a random-entry baseline (the same trades, holding times and long/short mix at ` +
      `random bars, ${BASELINE_RUNS} seeded runs) with the p-values of return and profit factor; a bootstrap Monte Carlo of ` +
      `the out-of-sample trades (${MONTE_CARLO_RUNS} runs: 5/50/95 % of final return and max drawdown, the probability of ` +
      'losing half the account); the minimum track record (bars and days of live trading before the Sharpe is significant); ' +
      'and a verdict with reasons in plain words. `overfit`: the out-of-sample record contradicts the in-sample one (e.g. the ' +
      'test lost what training made while random entries did as well, or most walk-forward folds lost). `robust`: at least ' +
      `${MIN_TRADES} test trades, a deflated-Sharpe p-value below ${SIGNIFICANCE_P}, a random-entry p-value below ` +
      `${SIGNIFICANCE_P} and at least ${Math.round(MIN_PROFITABLE_FOLDS * 100)} % of the walk-forward folds profitable. ` +
      '`inconclusive`: anything between. Schemas: RobustnessReport, RobustnessSummary in /openapi.json.',
  },
  {
    topic: 'one_shot deploys only what you trust: deploy_if',
    needs: ['POST /api/v1/one_shot'],
    text:
      'POST /api/v1/one_shot says the verdict in a `step` before the deploy (an overfit one as a warning, with its reasons). ' +
      '`deploy_if`: `always` (the default, as the contract has it), `not_overfit` or `robust`. When the verdict falls short, ' +
      'the model is trained and kept (GET /api/v1/models; deploy it yourself later with POST /api/v1/deploy) but not ' +
      'deployed, the pipeline fee is refunded (generation’s price is not: the code was written), and `done` has ' +
      '`deployed: false`, `not_deployed_reason`, and `deployment_id` and `live_url` null. GET /api/v1/train/{job_id} → ' +
      '`one_shot.status` is then `not_deployed`. The MCP tool one_shot takes deploy_if too and returns the verdict.',
  },
  {
    topic: 'The leaderboard by deflated Sharpe',
    needs: ['GET /api/v1/leaderboard'],
    text:
      'GET /api/v1/leaderboard?metric=dsr ranks community entries by the Deflated Sharpe Ratio frozen at share (the ' +
      'probability that the out-of-sample Sharpe beats what the author’s N variants would show by luck). Every row, GET ' +
      '/api/v1/community/{id} and /api/v1/community.json show each entry’s `verdict` (and `dsr`), beside its live record; ' +
      'both are null for entries shared before the report existed, which rank last by dsr.',
  },
  {
    topic: 'Optimise without fooling yourself: POST /api/v1/optimize',
    needs: ['POST /api/v1/optimize', 'GET /api/v1/optimize/{optimize_id}'],
    text:
      'POST /api/v1/optimize searches a strategy’s parameters (stops, targets, trailing stop, confidence threshold, pos_rules, ' +
      'session and day filters, model class and hyperparameters, indicator periods — indicators.<key>, for a strategy whose feature_engineering reads ' +
      'them from strategy_config()["indicators"], as generated strategies do) by grid, random or TPE search against ' +
      'an objective (a metric name or plain language such as "maximise profit factor with drawdown under 10 %", parsed and ' +
      'echoed back), walk-forward: chosen in-sample, tested on the next out-of-sample window. Poll GET /api/v1/optimize/{optimize_id}, ' +
      'follow GET /api/v1/optimize/{optimize_id}/stream (SSE), cancel with DELETE /api/v1/optimize/{optimize_id} (the trials ' +
      'not run are refunded); save the chosen trial as a model (and deploy it) with save_as in the request or POST ' +
      '/api/v1/optimize/{optimize_id}/save later. The result has every trial’s in-sample and out-of-sample metrics, the chosen trial, the Probability of ' +
      'Backtest Overfitting (CSCV), the degradation slope and the chosen trial’s robustness report with N = the trials. ' +
      'The MCP tool optimize starts one.',
  },
];

/** The guides whose routes are all in the document (`METHOD /path` keys). */
export function robustnessGuides(operations: ReadonlySet<string>): CatalogueGuide[] {
  return GUIDES.filter((g) => g.needs.every((op) => operations.has(op))).map(({ topic, text }) => ({ topic, text }));
}
