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

def strategy_config():
    return {
        'model_type': '${modelType}', 'model_params': ${params},
        'signal_threshold': 0.55, 'direction': 'both', 'stop_loss': 0.003, 'take_profit': 0.006,
        'cooldown': 2, 'max_positions': 1, 'on_opposite': 'close_only', 'session_filter': None,
        'min_atr': None, 'trend_filter': None, 'target_horizon': 4,
        'objective': 'bench', 'notes': 'bench', 'title': 'bench',
    }
`;
