/**
 * A robustness report with a chosen verdict, reasons and deflated Sharpe, parsed by the schema:
 * for the tests of what one_shot, the MCP tools and the community do with a verdict (the
 * statistics behind it are src/robustness's, tested there).
 */
import type { TradeStats } from '../../schemas/backtest.ts';
import { RobustnessReport, type Verdict } from '../../schemas/robustness.ts';

const stats = (n: number, ret: number): TradeStats => ({
  n,
  wins: Math.ceil(n / 2),
  losses: Math.floor(n / 2),
  wr: n ? Math.ceil(n / 2) / n : 0,
  ret,
  pf: ret > 0 ? 1.4 : 0.7,
  rr: 1,
  expect: n ? (ret * 10_000) / n : 0,
  mdd: -0.05,
  np: ret * 10_000,
  avg: n ? ret / n : 0,
  best: 0.01,
  worst: -0.01,
});

export interface ReportOptions {
  reasons?: string[];
  dsr?: number;
  trials?: number;
}

export const OVERFIT_REASON = 'test return −27 % against +289 % in training: the model learned the training period';

export function robustnessReport(verdict: Verdict, options: ReportOptions = {}): RobustnessReport {
  const dsr = options.dsr ?? (verdict === 'robust' ? 0.98 : verdict === 'overfit' ? 0.12 : 0.6);
  const reasons =
    options.reasons ?? (verdict === 'overfit' ? [OVERFIT_REASON, '1 of 5 walk-forward folds profitable'] : [`${verdict}: a reason`]);
  const returns = [0.03, -0.02, -0.04, 0.01, -0.01];
  return RobustnessReport.parse({
    verdict,
    reasons,
    walk_forward: {
      scheme: 'rolling',
      k: returns.length,
      purge_bars: 5,
      embargo_bars: 2,
      folds: returns.map((ret, index) => ({
        index,
        train: { from: '2026-01-01T00:00:00.000Z', to: '2026-01-05T00:00:00.000Z', bars: 400 },
        test: { from: '2026-01-06T00:00:00.000Z', to: '2026-01-07T00:00:00.000Z', bars: 100 },
        stats: stats(12, ret),
        train_stats: stats(40, 0.3),
      })),
      profitable: returns.filter((r) => r > 0).length,
      efficiency: 0.2,
    },
    sharpe: {
      returns: 'bar',
      observations: 2_000,
      sharpe: 0.01,
      sharpe_annualised: 1.2,
      skewness: -0.3,
      kurtosis: 4.2,
      psr: 0.8,
      trials: options.trials ?? 3,
      expected_max_sharpe: 0.02,
      dsr,
      p_value: 1 - dsr,
    },
    random_baseline: {
      runs: 1_000,
      seed: 7,
      trades: 60,
      return_p_value: 0.31,
      pf_p_value: 0.28,
      strategy_return: 0.02,
      strategy_pf: 1.1,
      returns: { edges: [-0.1, 0, 0.1], counts: [480, 520] },
    },
    monte_carlo: {
      runs: 1_000,
      seed: 11,
      final_return: { p5: -0.2, p50: 0.02, p95: 0.3 },
      max_drawdown: { p5: -0.3, p50: -0.1, p95: -0.04 },
      prob_half_loss: 0.01,
      fan: [{ trade: 0, p5: 10_000, p50: 10_000, p95: 10_000 }],
    },
    min_track_record: { bars: 9_000, days: 31.3 },
  });
}
