import { z } from 'zod';
import { Verdict, type RobustnessReport } from './robustness.ts';

/**
 * The robustness verdict and its headline figures: what one_shot's `done` event, the MCP
 * `one_shot` tool and a community entry carry. The full report (folds, histograms, the Monte
 * Carlo fan) is a few kilobytes and stays with the model: GET /api/v1/results/{model} → robustness.
 */
export const RobustnessSummary = z
  .object({
    verdict: Verdict,
    reasons: z.array(z.string()).describe('Why, in plain words, most important first'),
    dsr: z
      .number()
      .min(0)
      .max(1)
      .describe('Deflated Sharpe Ratio of the out-of-sample returns: P(true Sharpe > the best of N unskilled trials by luck)'),
    dsr_p_value: z.number().min(0).max(1).describe('1 − dsr: how likely a Sharpe this high is luck across the N trials'),
    trials: z
      .number()
      .int()
      .min(1)
      .describe('N: the variants counted for the deflation (GET /api/v1/results/{model} → robustness.sharpe.trials says what counts)'),
    sharpe_annualised: z.number().describe('Out-of-sample Sharpe ratio of bar returns, annualised'),
    random_p_value: z
      .number()
      .min(0)
      .max(1)
      .describe('Share of random-entry runs (same trades, holding times, long/short mix) whose return beat the strategy’s'),
    folds_profitable: z
      .number()
      .int()
      .min(0)
      .nullable()
      .describe('Walk-forward folds with a profitable test; null when the bars were too few for folds'),
    folds: z.number().int().min(0).nullable().describe('Walk-forward folds run; null when the bars were too few for folds'),
  })
  .describe('The robustness verdict and its headline figures; the full report is GET /api/v1/results/{model} → robustness')
  .meta({ id: 'RobustnessSummary' });
export type RobustnessSummary = z.infer<typeof RobustnessSummary>;

/** The summary of a full report (a projection: nothing is computed here). */
export function summariseRobustness(report: RobustnessReport): RobustnessSummary {
  return {
    verdict: report.verdict,
    reasons: report.reasons,
    dsr: report.sharpe.dsr,
    dsr_p_value: report.sharpe.p_value,
    trials: report.sharpe.trials,
    sharpe_annualised: report.sharpe.sharpe_annualised,
    random_p_value: report.random_baseline.return_p_value,
    folds_profitable: report.walk_forward?.profitable ?? null,
    folds: report.walk_forward ? report.walk_forward.folds.length : null,
  };
}
