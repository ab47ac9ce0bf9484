/**
 * "Your rule, and what the model adds" on the model page of a meta-labelled model (strategy_config
 * entry_long / entry_short): the report's verdict in words, the rule alone beside the rule + model
 * on the test span, the model's precision against the rule's base rate, its recall, and the P&L
 * uplift with its permutation p-value. "The model adds nothing" is shown as an answer, not an
 * error. Direction models get nothing (the model picks the side; there is no rule to compare with).
 */
import type { Results } from '../../schemas/training.ts';
import type { TradeStats } from '../../schemas/backtest.ts';
import { h, pct, usd } from '../lib/dom.ts';

// As the verdict sentence says it (src/robustness/model-vs-rule.ts): four places below 0.01.
const p = (x: number) => x.toFixed(x < 0.01 ? 4 : 3);
const share = (x: number | null) => (x === null ? '—' : pct(x));
const signedUsd = (x: number) => `${x > 0 ? '+' : ''}${usd(x)}`;
const count = (n: number) => n.toLocaleString('en');

/** The panel, or null for a direction model (or a meta model trained before the report existed). */
export function metaLabelPanel(r: Results): HTMLElement | null {
  const m = r.labels === 'meta' ? r.meta_label : null;
  if (!m) return null;
  // Whether it adds is the robustness report's one reading of the same test (model_vs_rule).
  const adds = r.robustness?.model_vs_rule?.adds ?? false;
  const { labels: l, uplift: u, rows } = m;
  return h(
    'section',
    { class: 'meta-label', id: 'meta-label' },
    h('h2', {}, 'Your rule, and what the model adds'),
    h('p', { class: `meta-verdict ${adds ? 'adds' : 'neutral'}`, id: 'meta-verdict', 'data-adds': String(adds) }, m.verdict),
    h(
      'table',
      { class: 'stats', id: 'meta-compare' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Test span', 'Trades', 'Win rate', 'Net P&L', 'Profit factor', 'Max DD', 'Expectancy'].map((c) => h('th', {}, c)),
        ),
      ),
      h('tbody', {}, statsRow('Rule alone', 'rule', m.rule_alone), statsRow('Rule + model', 'model', m.rule_and_model)),
    ),
    h(
      'table',
      { class: 'figures', id: 'meta-figures' },
      h(
        'tbody',
        {},
        figure(
          'precision',
          'Precision',
          share(l.precision),
          l.chosen
            ? `wins among the ${count(l.chosen)} trades of the rule alone the model confirmed; the rule alone wins ${share(l.base_rate)} of its ${count(u.rule_trades)}`
            : `the model confirmed none of the rule alone's ${count(u.rule_trades)} trades; the rule alone wins ${share(l.base_rate)}`,
        ),
        figure(
          'recall',
          'Recall',
          share(l.recall),
          `of the rule alone's ${count(l.positives)} winning trades, the share the model confirmed`,
        ),
        figure('uplift', 'Uplift', signedUsd(u.pnl), 'net P&L of the rule + model minus the rule alone'),
        figure(
          'confirmed',
          'Confirmed trades',
          `${count(u.chosen_trades)} of ${count(u.rule_trades)}`,
          (u.chosen_trades
            ? `the rule alone's trades whose signal the model confirmed: P&L ${usd(u.chosen_pnl)}, against ${usd(u.random_pnl)} on average for as many picked at random`
            : "none of the rule alone's trades had a signal the model confirmed") +
            // The rule + model row is its own backtest: a slot the model leaves free takes a later signal.
            (m.rule_and_model.n !== u.chosen_trades
              ? ` · the rule + model backtest made ${count(m.rule_and_model.n)}: a position the model skips leaves room for a later signal`
              : ''),
        ),
        figure(
          'p-value',
          'p-value',
          u.p_value === null ? '—' : p(u.p_value),
          u.p_value === null
            ? "no test: the model confirmed none or all of the rule's trades"
            : `share of ${count(u.draws)} random picks of ${count(u.chosen_trades)} of the rule's trades that did at least as well (seed ${u.seed})`,
        ),
      ),
    ),
    h(
      'p',
      { class: 'muted', id: 'meta-rows' },
      `Precision and recall are over the ${count(u.rule_trades)} trades of the rule alone on the test span, a win when its net P&L is above zero; ` +
        `the model was fitted on ${count(rows.train)} rule signals of the train span, each labelled a win or a loss by its stop, target and time limit, ${count(rows.purged)} left out because their outcome ran into the test span` +
        (rows.both_skipped ? `; ${count(rows.both_skipped)} bars where the long and short rules both fired made no trade.` : '.'),
    ),
  );
}

function statsRow(label: string, key: string, s: TradeStats): HTMLElement {
  return h(
    'tr',
    { 'data-row': key },
    h('th', {}, label),
    [String(s.n), pct(s.wr), usd(s.np), s.pf.toFixed(2), pct(s.mdd, 2), usd(s.expect)].map((v) => h('td', {}, v)),
  );
}

function figure(key: string, label: string, value: string, note: string): HTMLElement {
  return h('tr', { 'data-figure': key }, h('th', {}, label), h('td', { class: 'value' }, value), h('td', { class: 'muted' }, note));
}
