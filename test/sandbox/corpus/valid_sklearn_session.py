# expect: ok
"""Z-scored returns with a session filter that wraps past midnight."""
import numpy as np
import pandas as pd
from sklearn.preprocessing import StandardScaler  # imported, unused: allowed


def feature_engineering(df, close, open_, high, low):
    """Trailing z-score of returns; ñ non-ASCII in a docstring is fine."""
    ret = np.log(close / close.shift(1))
    mu = ret.rolling(50).mean()
    sd = ret.rolling(50).std()
    df["z"] = (ret - mu) / sd
    df["sma_50"] = close.rolling(50).mean()
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
        "session_filter": [22, 6],
        "min_atr": None,
        "trend_filter": "sma_50",
        "target_horizon": 4,
        "objective": "Trade RSI extremes",
        "notes": "pandas only",
        "title": "RSI reversion",
    }
