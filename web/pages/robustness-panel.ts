/**
 * "Is the edge real?" on the model page (and the optimisation page's chosen trial): the verdict
 * with its reasons, the walk-forward folds, the Monte Carlo fan of the equity, the random-entry
 * baseline with the strategy's mark, and the Sharpe significance figures (deflated Sharpe, PSR,
 * N trials, minimum track record). Everything shown goes in as text.
 */
import type { RobustnessReport, Verdict, WalkForward } from '../../schemas/robustness.ts';
import { barPlot, fanPlot, histogramPlot } from '../lib/charts.ts';
import { h, pct, usd } from '../lib/dom.ts';

/** What each verdict means, in a trader's words (the rule is in src/robustness/verdict.ts). */
const VERDICT_WORDS: Record<Verdict, [string, string]> = {
  robust: ['Robust', 'The out-of-sample record holds up against luck, random entries and the number of variants tried.'],
  inconclusive: ['Inconclusive', 'Not enough evidence either way: treat the backtest as unproven.'],
  overfit: ['Overfit', 'The out-of-sample record contradicts the training record: the model learned its training period.'],
};

/** The verdict as a badge (its meaning as the tooltip); also used by the community pages. */
export function verdictBadge(verdict: Verdict): HTMLElement {
  const [label, meaning] = VERDICT_WORDS[verdict];
  return h('span', { class: `verdict verdict-${verdict}`, title: meaning, 'data-verdict': verdict }, label);
}

const p = (x: number) => (x < 0.001 ? '< 0.001' : x.toFixed(3));
const signedPct = (x: number, digits = 1) => `${x > 0 ? '+' : ''}${pct(x, digits)}`;
const day = (iso: string) => iso.slice(0, 10);

/** The robustness panel; a short note instead when the model has no report (trained before it existed). */
export function robustnessPanel(report: RobustnessReport | undefined, capital: number): HTMLElement {
  if (!report) {
    return h(
      'section',
      { class: 'robustness', id: 'robustness' },
      h('h2', {}, 'Is the edge real?'),
      h(
        'p',
        { class: 'muted', id: 'robustness-missing' },
        'This model was trained before robustness reports existed: retrain it to get its walk-forward folds, deflated Sharpe, random-entry baseline, Monte Carlo and verdict.',
      ),
    );
  }
  const [, meaning] = VERDICT_WORDS[report.verdict];
  return h(
    'section',
    { class: 'robustness', id: 'robustness' },
    h('h2', {}, 'Is the edge real? ', verdictBadge(report.verdict)),
    h('p', { class: 'muted' }, meaning),
    h(
      'ul',
      { class: 'reasons', id: 'verdict-reasons' },
      report.reasons.map((r) => h('li', {}, r)),
    ),
    significance(report),
    walkForward(report.walk_forward),
    monteCarlo(report, capital),
    randomBaseline(report),
  );
}

function figures(rows: [string, string, string][]): HTMLElement {
  return h(
    'table',
    { class: 'figures' },
    h(
      'tbody',
      {},
      rows.map(([label, value, note]) =>
        h('tr', {}, h('th', {}, label), h('td', { class: 'value' }, value), h('td', { class: 'muted' }, note)),
      ),
    ),
  );
}

function significance(r: RobustnessReport): HTMLElement {
  const s = r.sharpe;
  const mtr = r.min_track_record;
  return h(
    'div',
    { id: 'significance' },
    h('h3', {}, 'Sharpe, deflated for the variants tried'),
    figures([
      [
        'Sharpe (annualised)',
        s.sharpe_annualised.toFixed(2),
        `${s.sharpe.toFixed(4)} per bar over ${s.observations.toLocaleString('en')} out-of-sample bars`,
      ],
      [
        'Deflated Sharpe',
        s.dsr.toFixed(3),
        `probability the true Sharpe beats ${s.expected_max_sharpe.toFixed(4)} per bar, ${s.trials === 1 ? 'what one unskilled variant' : `what the best of ${s.trials} unskilled variants`} would show by luck · p-value ${p(s.p_value)}`,
      ],
      ['Probabilistic Sharpe', s.psr.toFixed(3), 'probability the true Sharpe is above 0, given the skewness and kurtosis of the returns'],
      ['N trials', String(s.trials), 'variants of this strategy tried on this symbol and timeframe (this one included)'],
      [
        'Skewness · kurtosis',
        `${s.skewness.toFixed(2)} · ${s.kurtosis.toFixed(2)}`,
        'of the per-bar returns (a normal distribution: 0 · 3)',
      ],
      [
        'Minimum track record',
        mtr.bars === null
          ? 'never'
          : `${Math.ceil(mtr.bars).toLocaleString('en')} bars${mtr.days === null ? '' : ` · ${Math.ceil(mtr.days).toLocaleString('en')} days`}`,
        mtr.bars === null
          ? 'the observed Sharpe is not above 0: no length of live trading would make it significant'
          : 'of live trading before the observed Sharpe would be significant at 95 %',
      ],
    ]),
  );
}

function walkForward(wf: WalkForward | null): HTMLElement {
  if (!wf)
    return h(
      'div',
      { id: 'walk-forward' },
      h('h3', {}, 'Walk-forward folds'),
      h('p', { class: 'muted' }, 'Too few bars for walk-forward folds.'),
    );
  const efficiency = wf.efficiency === null ? 'not defined (in-sample return ≤ 0)' : wf.efficiency.toFixed(2);
  return h(
    'div',
    { id: 'walk-forward' },
    h('h3', {}, 'Walk-forward folds'),
    h(
      'p',
      { id: 'walk-forward-summary' },
      `${wf.profitable} of ${wf.folds.length} folds profitable · walk-forward efficiency ${efficiency}`,
      h('span', { class: 'muted' }, ` · ${wf.scheme}, ${wf.purge_bars} bars purged and ${wf.embargo_bars} embargoed before each test`),
    ),
    barPlot(
      wf.folds.map((f) => ({
        label: `#${f.index + 1}`,
        value: f.stats.ret,
        title: `fold ${f.index + 1}: test ${signedPct(f.stats.ret, 2)} over ${f.stats.n} trades`,
      })),
      { label: 'Test return of each walk-forward fold', yFormat: (v) => pct(v, 0), xTitle: 'fold (out-of-sample return)' },
    ),
    h(
      'table',
      { class: 'stats folds' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Fold', 'Test span', 'Trades', 'Test return', 'PF', 'Max DD', 'In-sample return'].map((c) => h('th', {}, c)),
        ),
      ),
      h(
        'tbody',
        {},
        wf.folds.map((f) =>
          h(
            'tr',
            { class: f.stats.ret > 0 ? 'profitable' : 'unprofitable' },
            h('td', {}, `#${f.index + 1}`),
            h('td', {}, `${day(f.test.from)} → ${day(f.test.to)}`),
            h('td', {}, f.stats.n),
            h('td', { class: f.stats.ret > 0 ? 'up' : 'down' }, signedPct(f.stats.ret, 2)),
            h('td', {}, f.stats.pf.toFixed(2)),
            h('td', {}, pct(f.stats.mdd, 2)),
            h('td', {}, signedPct(f.train_stats.ret, 2)),
          ),
        ),
      ),
    ),
  );
}

function monteCarlo(r: RobustnessReport, capital: number): HTMLElement {
  const mc = r.monte_carlo;
  return h(
    'div',
    { id: 'monte-carlo' },
    h('h3', {}, 'Monte Carlo of the out-of-sample trades'),
    h(
      'p',
      { class: 'muted' },
      `${mc.runs.toLocaleString('en')} bootstrap runs (seed ${mc.seed}): the trades drawn again with replacement, in another order.`,
    ),
    mc.fan.length > 1
      ? fanPlot(
          mc.fan.map((f) => ({ x: f.trade, p5: f.p5, p50: f.p50, p95: f.p95 })),
          {
            label: 'Equity after each trade: 5th, 50th and 95th percentile of the bootstrap runs',
            xTitle: 'trade',
            yTitle: 'equity (USD)',
            yFormat: (v) => `$${Math.round(v).toLocaleString('en')}`,
            baseline: capital,
          },
        )
      : h('p', { class: 'muted' }, 'Too few trades to draw the fan.'),
    figures([
      [
        'Final return',
        `${signedPct(mc.final_return.p5)} · ${signedPct(mc.final_return.p50)} · ${signedPct(mc.final_return.p95)}`,
        '5th · 50th · 95th percentile',
      ],
      [
        'Max drawdown',
        `${pct(mc.max_drawdown.p5)} · ${pct(mc.max_drawdown.p50)} · ${pct(mc.max_drawdown.p95)}`,
        '5th (deepest) · 50th · 95th percentile',
      ],
      ['Losing half the account', pct(mc.prob_half_loss), `share of runs whose equity fell to ${usd(capital / 2)} or below`],
    ]),
  );
}

function randomBaseline(r: RobustnessReport): HTMLElement {
  const b = r.random_baseline;
  return h(
    'div',
    { id: 'random-baseline' },
    h('h3', {}, 'Against random entries'),
    h(
      'p',
      { class: 'muted' },
      `${b.runs.toLocaleString('en')} runs of ${b.trades} trades each, entered at random bars of the test span with the same holding times and long/short mix (seed ${b.seed}).`,
    ),
    histogramPlot(b.returns, {
      label: 'Final return of the random-entry runs, with the strategy’s',
      xTitle: 'return of a random-entry run',
      xFormat: (v) => pct(v, 0),
      mark: { value: b.strategy_return, label: `this strategy ${signedPct(b.strategy_return)}` },
    }),
    figures([
      ['Return p-value', p(b.return_p_value), `share of random runs that returned at least the strategy’s ${signedPct(b.strategy_return)}`],
      ['Profit factor p-value', p(b.pf_p_value), `the same for its profit factor ${b.strategy_pf.toFixed(2)}`],
    ]),
  );
}
