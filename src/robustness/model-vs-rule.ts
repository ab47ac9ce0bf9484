/**
 * Does a meta-labelled model earn its place beside the trader's rule? The one reading of the
 * uplift test (src/training/meta-label-report.ts measures it): the model adds only when the rule
 * trades it confirms beat random picks of as many of the rule's trades at the verdict's
 * significance AND the strategy as traded (rule + model) made more than the rule alone on the
 * test span. Both, because they can disagree: a trade the model skips frees the position for a
 * later signal the rule alone never took, so a good pick of the rule's trades can still trade worse.
 * Said in the meta-label report and among the robustness verdict's reasons.
 */
import type { ModelVsRule } from '../../schemas/robustness.ts';
import { SIGNIFICANCE_P } from './verdict.ts';

/** The uplift figures the reading needs (MetaLabelReport.uplift has them). */
export interface RuleUplift {
  rule_trades: number;
  chosen_trades: number;
  p_value: number | null;
  /** USD: rule + model minus the rule alone, on the test span. */
  pnl: number;
}

const usd = (x: number): string => `$${Math.abs(x).toLocaleString('en-US', { maximumFractionDigits: 2, minimumFractionDigits: 2 })}`;

export function modelVsRule(u: RuleUplift): ModelVsRule {
  const { rule_trades: all, chosen_trades: chosen, p_value: p } = u;
  const base = { p_value: p, rule_trades: all, chosen_trades: chosen };
  if (all === 0) return { ...base, adds: false, words: "the trader's rule made no trade on the test span: nothing to judge the model on" };
  if (chosen === 0)
    return {
      ...base,
      adds: false,
      words: `the model confirmed none of the rule's ${all} test trades: it adds nothing here (lower the confidence threshold, or trade the rule alone)`,
    };
  if (p === null)
    return {
      ...base,
      adds: false,
      words: `the model confirmed every one of the rule's ${all} test trades: it adds nothing over the rule alone`,
    };
  const shown = p.toFixed(p < 0.01 ? 4 : 3);
  if (p < SIGNIFICANCE_P && u.pnl > 0)
    return {
      ...base,
      adds: true,
      words: `the model adds to the trader's rule: the ${chosen} of its ${all} test trades it confirmed beat random picks of as many (p = ${shown}), and the strategy made ${usd(u.pnl)} more than the rule alone`,
    };
  if (p < SIGNIFICANCE_P) {
    return {
      ...base,
      adds: false,
      words: `the model adds nothing as traded: the ${chosen} of the rule's ${all} test trades it confirmed beat random picks of as many (p = ${shown}), but the strategy made ${usd(-u.pnl)} less than the rule alone on the test span`,
    };
  }
  return {
    ...base,
    adds: false,
    words: `the model adds nothing over the trader's rule: the ${chosen} of its ${all} test trades it confirmed did no better than random picks of as many (p = ${shown} ≥ ${SIGNIFICANCE_P})`,
  };
}
