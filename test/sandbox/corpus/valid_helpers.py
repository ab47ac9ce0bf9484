# expect: ok
"""Bollinger + ATR with a nested helper and a lambda."""
from sklearn.preprocessing import StandardScaler
WINDOW = 14
LEVELS: tuple = (1, -2.5, "x")
import numpy as np
import pandas as pd


def feature_engineering(df, close, open_, high, low):
    def band(series, n, k):
        mid = series.rolling(n).mean()
        sd = series.rolling(n).std()
        return mid + k * sd, mid - k * sd

    up, lo = band(close, 20, 2.0)
    df["bb_up"] = up
    df["bb_lo"] = lo
    tr = pd.concat([high - low, (high - close.shift(1)).abs(), (low - close.shift(1)).abs()], axis=1).max(axis=1)
    df["atr"] = tr.rolling(WINDOW).mean()
    df["sq"] = df["atr"].apply(lambda v: v * v)
    df["zone"] = np.select([close > up, close < lo], [1, -1], 0)
    n = 0
    while True:
        n += 1
        if n > 3:
            break
    df = df.bfill().ffill()
    return df


def strategy_config():
    return {
        "model_type": "RandomForestClassifier",
        "model_params": {"n_estimators": 200, "max_depth": 6},
        "signal_threshold": 0.55,
        "direction": "both",
        "stop_loss": 0.005,
        "take_profit": 0.01,
        "cooldown": 2,
        "max_positions": 1,
        "on_opposite": "reverse",
        "session_filter": None,
        "min_atr": None,
        "trend_filter": None,
        "target_horizon": 4,
        "objective": "Trade RSI extremes",
        "notes": "pandas only",
        "title": "RSI reversion",
    }
