/**
 * Does a meta-labelled model earn its place beside the trader's rule? The one reading of the
 * uplift test (src/training/meta-label-report.ts measures it): the model adds only when the rule
 * trades it confirms beat random picks of as many of the rule's trades at the verdict's
 * significance. Said in the meta-label report and among the robustness verdict's reasons.
 */
import type { ModelVsRule } from '../../schemas/robustness.ts';
import { SIGNIFICANCE_P } from './verdict.ts';

/** The uplift figures the reading needs (MetaLabelReport.uplift has them). */
export interface RuleUplift {
  rule_trades: number;
  chosen_trades: number;
  p_value: number | null;
}

export function modelVsRule(u: RuleUplift): ModelVsRule {
  const { rule_trades: all, chosen_trades: chosen, p_value: p } = u;
  const base = { p_value: p, rule_trades: all, chosen_trades: chosen };
  if (all === 0) return { ...base, adds: false, words: "the trader's rule made no trade on the test span: nothing to judge the model on" };
  if (chosen === 0) return { ...base, adds: false, words: `the model confirmed none of the rule's ${all} test trades: it adds nothing here (lower the confidence threshold, or trade the rule alone)` };
  if (p === null) return { ...base, adds: false, words: `the model confirmed every one of the rule's ${all} test trades: it adds nothing over the rule alone` };
  const shown = p.toFixed(p < 0.01 ? 4 : 3);
  if (p < SIGNIFICANCE_P) return { ...base, adds: true, words: `the model adds to the trader's rule: the ${chosen} of its ${all} test trades it confirmed beat random picks of as many (p = ${shown})` };
  return { ...base, adds: false, words: `the model adds nothing over the trader's rule: the ${chosen} of its ${all} test trades it confirmed did no better than random picks of as many (p = ${shown} ≥ ${SIGNIFICANCE_P})` };
}
