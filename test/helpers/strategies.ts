/** Strategy code for tests: valid programs built from a few knobs (the real contract, no stubs). */

export interface StrategyKnobs {
  modelType?: string;
  params?: string;
  threshold?: number;
  direction?: 'both' | 'long' | 'short';
  stopLoss?: number | null;
  takeProfit?: number | null;
  cooldown?: number;
  maxPositions?: number;
  onOpposite?: 'reverse' | 'close_only' | 'ignore';
  horizon?: number;
  trendFilter?: string | null;
  /** strategy_config trailing_stop as Python source (e.g. '{"atr": 1.5}' or '0.002'); absent = no key. */
  trailingStop?: string;
  /** A header line naming the market the code was written for. */
  header?: string;
  /** Extra statements at the top of feature_engineering (e.g. a slow loop). */
  prelude?: string;
}

const py = (v: number | null | string) => (v === null ? 'None' : typeof v === 'string' ? JSON.stringify(v) : String(v));

export function strategyCode(k: StrategyKnobs = {}): string {
  return `${k.header ? `${k.header}\n` : ''}import numpy as np
import pandas as pd


def feature_engineering(df, close, open_, high, low):
${k.prelude ? `    ${k.prelude}\n` : ''}    ret = close.pct_change()
    df["ret_1"] = ret
    df["ret_4"] = close.pct_change(4)
    df["vol_20"] = ret.rolling(20).std()
    df["sma_20"] = close.rolling(20).mean()
    df["dist_sma"] = close / df["sma_20"] - 1
    df["range"] = (high - low) / close
    df = df.bfill().ffill()
    return df


def strategy_config():
    return {
        "model_type": ${py(k.modelType ?? 'RandomForestClassifier')},
        "model_params": ${k.params ?? '{"n_estimators": 30, "max_depth": 5}'},
        "signal_threshold": ${k.threshold ?? 0.5},
        "direction": ${py(k.direction ?? 'both')},
        "stop_loss": ${py(k.stopLoss === undefined ? 0.002 : k.stopLoss)},
        "take_profit": ${py(k.takeProfit === undefined ? 0.003 : k.takeProfit)},
        "cooldown": ${k.cooldown ?? 0},
        "max_positions": ${k.maxPositions ?? 1},
        "on_opposite": ${py(k.onOpposite ?? 'reverse')},
        "session_filter": None,
        "min_atr": None,
        "trend_filter": ${py(k.trendFilter ?? null)},
${k.trailingStop === undefined ? '' : `        "trailing_stop": ${k.trailingStop},\n`}        "target_horizon": ${k.horizon ?? 4},
        "objective": "test strategy",
        "notes": "returns, volatility and distance to the 20-bar mean",
        "title": "Test strategy",
    }
`;
}

/** A plain strategy that passes every check: two features, the default model. */
/** Five programs whose features, models and rules all differ (each smooths the closes its own way): fleets of distinct programs. */
export const DISTINCT_PROGRAMS: readonly string[] = [
  strategyCode(),
  strategyCode({ prelude: 'close = close.ewm(span=3).mean()', params: '{"n_estimators": 20, "max_depth": 3}', horizon: 2 }),
  strategyCode({ prelude: 'close = close.rolling(2).mean().bfill()', trailingStop: '{"atr": 1.5, "period": 14}', takeProfit: null }),
  strategyCode({ prelude: 'close = close.ewm(span=5).mean()', modelType: 'XGBClassifier', params: '{"n_estimators": 30, "max_depth": 3}' }),
  strategyCode({ prelude: 'close = close.shift(1).bfill()', threshold: 0.55, cooldown: 2, onOpposite: 'close_only' }),
];

export const NORMAL_STRATEGY = `
import numpy as np
import pandas as pd

def feature_engineering(df, close, open_, high, low):
    df['sma_3'] = close.rolling(3).mean()
    df['range'] = high - low
    df = df.bfill().ffill()
    return df

def strategy_config():
    return {'model_type': 'RandomForestClassifier', 'title': 'normal'}
`;
