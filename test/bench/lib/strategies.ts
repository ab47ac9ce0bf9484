/** strategy_config() with the model and the settings (Python dict items) given; the rest the benchmarks' usual. */
const strategyConfig = (modelType: string, params: string, settings: string, title: string) => `def strategy_config():
    return {
        'model_type': '${modelType}', 'model_params': ${params}, ${settings},
        'direction': 'both', 'max_positions': 1, 'session_filter': None, 'min_atr': None,
        'trend_filter': None, 'target_horizon': 4, 'objective': 'bench', 'notes': 'bench', 'title': '${title}',
    }
`;

/**
 * The strategy the benchmarks train: features as the generator writes them, the model class under
 * test. `variant` makes another program with the same feature columns (a comment and the SMA length
 * differ), for benchmarks that need many distinct programs one model can score.
 */
export const trainableStrategy = (modelType: string, params: string, variant?: number) => `
import numpy as np
import pandas as pd

${variant === undefined ? '' : `# program ${variant}\n`}def feature_engineering(df, close, open_, high, low):
    ret = close.pct_change()
    df['ret_1'] = ret
    df['ret_4'] = close.pct_change(4)
    df['sma_gap'] = close / close.rolling(${variant === undefined ? 20 : 16 + (variant % 9)}).mean() - 1
    df['ema_gap'] = close / close.ewm(span=50, adjust=False).mean() - 1
    df['vol_20'] = ret.rolling(20).std()
    df['range'] = (high - low) / close
    df['body'] = (close - open_) / close
    df['hour'] = df.index.hour
    df = df.bfill().ffill()
    return df

${strategyConfig(modelType, params, "'signal_threshold': 0.55, 'stop_loss': 0.003, 'take_profit': 0.006, 'cooldown': 2, 'on_opposite': 'close_only'", 'bench')}`;

const FLEET_MODELS = [
  ['LogisticRegression', '{"C": 1.0, "max_iter": 200}'],
  ['RandomForestClassifier', '{"n_estimators": 8, "max_depth": 4}'],
  ['ExtraTreesClassifier', '{"n_estimators": 8, "max_depth": 4}'],
] as const;

/**
 * Program `variant` of a fleet of distinct strategies (actor-fleet): the indicators' lengths, the
 * feature set and the model class vary with it, so no two variants below 10,000 share code. The
 * settings make a model signal on (nearly) every bar: p(up) against 0.5 always picks a side,
 * stops and targets a hundredth of a pip away close each position within the bar after its
 * entry, and a one-bar cooldown makes that bar's signal a close and the next one's an entry.
 */
export function fleetStrategy(variant: number): string {
  const [modelType, params] = FLEET_MODELS[variant % FLEET_MODELS.length]!;
  const sma = 8 + (variant % 23);
  const ema = 20 + ((variant * 7) % 61);
  const vol = 10 + ((variant * 3) % 17);
  const lag = 2 + (Math.floor(variant / 23) % 7);
  const extra = [
    `df['rsi_gap'] = (close.diff().clip(lower=0).rolling(${lag + 6}).mean() / (close.diff().abs().rolling(${lag + 6}).mean() + 1e-12)) - 0.5`,
    `df['hl_mean'] = ((high - low) / close).rolling(${lag + 3}).mean()`,
    `df['mom'] = close / close.shift(${lag}) - 1`,
    `df['body'] = (close - open_) / close`,
  ].filter((_, i) => (Math.floor(variant / 3) >> i) & 1);
  return `# fleet program ${variant}
import numpy as np
import pandas as pd


def feature_engineering(df, close, open_, high, low):
    ret = close.pct_change()
    df['ret_1'] = ret
    df['ret_${lag}'] = close.pct_change(${lag})
    df['sma_gap'] = close / close.rolling(${sma}).mean() - 1
    df['ema_gap'] = close / close.ewm(span=${ema}, adjust=False).mean() - 1
    df['vol'] = ret.rolling(${vol}).std()
${extra.map((line) => `    ${line}\n`).join('')}    df = df.bfill().ffill()
    return df


${strategyConfig(modelType, params, "'signal_threshold': 0.5, 'stop_loss': 0.00001, 'take_profit': 0.00001, 'cooldown': 1, 'on_opposite': 'reverse'", `fleet ${variant}`)}`;
}
