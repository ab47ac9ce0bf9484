/**
 * A strategy whose feature_engineering reads its RSI period from strategy_config()["indicators"]
 * (what makes indicators.rsi_period tunable), its column named without the period.
 */
import type { JobRecord } from '../../schemas/training.ts';
import { trainJob } from './real-market.ts';
import { strategyCode } from './strategies.ts';

export function rsiStrategy(period = 14): string {
  const code = strategyCode();
  return code
    .replace(
      '    df = df.bfill().ffill()\n',
      [
        '    p = strategy_config()["indicators"]["rsi_period"]',
        '    d = close.diff()',
        '    g = d.clip(lower=0).ewm(alpha=1 / p, adjust=False).mean()',
        '    l = (-d).clip(lower=0).ewm(alpha=1 / p, adjust=False).mean()',
        '    df["rsi"] = (100 * g / (g + l)).mask(g + l == 0, 50.0)',
        '    df = df.bfill().ffill()',
        '',
      ].join('\n'),
    )
    .replace('        "target_horizon":', `        "indicators": {"rsi_period": ${period}},\n        "target_horizon":`);
}

/** A train job of rsiStrategy(14) on real 15-min EURUSD (early 2017) as an optimisation's saved trial with rsi_period 21 runs it. */
export function tunedRsiJob(modelName?: string): JobRecord {
  const request = {
    code: rsiStrategy(14),
    timeframe: '15min' as const,
    start_date: '2017-01-02',
    end_date: '2017-02-10',
    ...(modelName ? { model_name: modelName } : {}),
  };
  return { ...trainJob(request), overrides: { model: { indicators: { rsi_period: 21 } } } };
}
