import type { DeployIf } from '../../schemas/oneshot.ts';
import type { RobustnessReport } from '../../schemas/robustness.ts';

/**
 * deploy_if against the trained model's robustness verdict: null when the model may go live,
 * else why not, in plain words with the verdict's own reasons. A model without a report (a
 * trainer from before it existed) falls short of every guard: the caller asked us to check.
 */
export function heldBack(deployIf: DeployIf, report: RobustnessReport | undefined, stem: string, fee: number): string | null {
  if (deployIf === 'always') return null;
  const refund = fee > 0 ? ' The one_shot fee was refunded.' : '';
  const keep = `The model is kept (GET /api/v1/results/${stem}); to put it live anyway, POST /api/v1/deploy with model_name "${stem}".${refund}`;
  if (!report) return `not deployed: deploy_if is ${deployIf} and this model has no robustness verdict to check. ${keep}`;
  const falls = deployIf === 'robust' ? report.verdict !== 'robust' : report.verdict === 'overfit';
  if (!falls) return null;
  const why = report.reasons.length ? ` (${report.reasons.join('; ')})` : '';
  return `not deployed: the robustness verdict is ${report.verdict}${why} and deploy_if is ${deployIf}. ${keep}`;
}

/**
 * The verdict as one_shot's step says it, before the deploy. An overfit verdict is a warning
 * whatever deploy_if is: with `always` the model still goes live, so the trader hears it first.
 */
export function verdictStep(report: RobustnessReport, deployIf: DeployIf): string {
  const reasons = report.reasons.length ? `: ${report.reasons.join('; ')}` : '';
  if (report.verdict !== 'overfit') return `robustness verdict ${report.verdict}${reasons}`;
  const next =
    deployIf === 'always' ? ' — deploying anyway (deploy_if: always); pass deploy_if "not_overfit" to keep such a model off live' : '';
  return `warning: this model looks overfit${reasons}${next}`;
}
