/**
 * A robustness report built by hand from schemas/robustness.ts, for the web pages' browser tests:
 * known folds, fan, histogram and figures, so a test can check what the page draws against them.
 * Its reasons carry markup, which a page must show as text.
 */
import { RobustnessReport } from '../../schemas/robustness.ts';
import type { TradeStats } from '../../schemas/backtest.ts';

const stats = (n: number, ret: number, pf: number, mdd: number): TradeStats => ({
  n,
  wins: Math.round(n * 0.5),
  losses: n - Math.round(n * 0.5),
  wr: Math.round(n * 0.5) / Math.max(1, n),
  ret,
  pf,
  rr: 1,
  expect: (ret * 10_000) / Math.max(1, n),
  mdd,
  np: ret * 10_000,
  avg: ret / Math.max(1, n),
  best: 0.01,
  worst: -0.01,
});

/** Each fold's test return: two profitable of five. */
export const FOLD_RETURNS = [0.042, -0.031, -0.058, 0.007, -0.012];
/** Random-entry runs per bin: a hump around 0. */
export const BASELINE_COUNTS = [3, 9, 24, 61, 118, 190, 214, 168, 109, 62, 27, 10, 4];
export const BASELINE_EDGES = BASELINE_COUNTS.map((_, i) => -0.13 + i * 0.02).concat(-0.13 + BASELINE_COUNTS.length * 0.02);
/** The strategy's out-of-sample return: in bin 7 ([0.01, 0.03)). */
export const STRATEGY_RETURN = 0.018;
export const STRATEGY_BIN = 7;
export const HOSTILE_REASON =
  'test return −27 % against +289 % in training: <img src=x onerror=alert(1)> the model learned the training period';

export function robustnessFixture(verdict: RobustnessReport['verdict'] = 'overfit', capital = 10_000): RobustnessReport {
  const day = (d: number) => new Date(Date.UTC(2026, 9, 1 + d)).toISOString();
  const fan = Array.from({ length: 41 }, (_, i) => {
    const trade = i * 2;
    return { trade, p5: capital * (1 - 0.004 * trade), p50: capital * (1 + 0.0005 * trade), p95: capital * (1 + 0.005 * trade) };
  });
  return RobustnessReport.parse({
    verdict,
    reasons: [HOSTILE_REASON, '2 of 5 walk-forward folds profitable', 'deflated-Sharpe p-value 0.41 across 12 variants tried'],
    walk_forward: {
      scheme: 'rolling',
      k: FOLD_RETURNS.length,
      purge_bars: 5,
      embargo_bars: 2,
      folds: FOLD_RETURNS.map((ret, index) => ({
        index,
        train: { from: day(index * 6), to: day(index * 6 + 4), bars: 5_760 },
        test: { from: day(index * 6 + 5), to: day(index * 6 + 6), bars: 1_440 },
        stats: stats(20 + index, ret, ret > 0 ? 1.3 : 0.8, -0.02 - index * 0.004),
        train_stats: stats(80, 0.2 + index * 0.01, 2.1, -0.03),
      })),
      profitable: FOLD_RETURNS.filter((r) => r > 0).length,
      efficiency: 0.31,
    },
    sharpe: {
      returns: 'bar',
      observations: 7_200,
      sharpe: 0.0123,
      sharpe_annualised: 1.87,
      skewness: -0.42,
      kurtosis: 5.1,
      psr: 0.861,
      trials: 12,
      expected_max_sharpe: 0.0187,
      dsr: 0.412,
      p_value: 0.588,
    },
    random_baseline: {
      runs: BASELINE_COUNTS.reduce((a, b) => a + b, 0),
      seed: 7,
      trades: 84,
      return_p_value: 0.274,
      pf_p_value: 0.301,
      strategy_return: STRATEGY_RETURN,
      strategy_pf: 1.08,
      returns: { edges: BASELINE_EDGES, counts: BASELINE_COUNTS },
    },
    monte_carlo: {
      runs: 1_000,
      seed: 11,
      final_return: { p5: -0.31, p50: 0.04, p95: 0.42 },
      max_drawdown: { p5: -0.38, p50: -0.14, p95: -0.06 },
      prob_half_loss: 0.023,
      fan,
    },
    min_track_record: { bars: 18_432.4, days: 12.8 },
  });
}
