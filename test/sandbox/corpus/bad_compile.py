# expect: forbidden-builtin@7 forbidden-string@7
import numpy as np
import pandas as pd


def feature_engineering(df, close, open_, high, low):
    code = compile("1+1", "<x>", "eval")
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
