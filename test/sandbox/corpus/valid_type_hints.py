# expect: ok
import numpy as np
import pandas as pd


def feature_engineering(df: pd.DataFrame, close: pd.Series, open_: pd.Series, high: pd.Series, low: pd.Series) -> pd.DataFrame:
    """Type hints, iloc with negative indices, try/except and a comprehension are fine."""
    delta = close.diff()
    last = close.iloc[-1]
    lags = {f"lag_{k}": close.shift(k) for k in range(1, 4)}
    try:
        df = df.assign(**lags)
    except ValueError:
        pass
    gain = delta.clip(lower=0).rolling(14).mean()
    loss = (-delta.clip(upper=0)).rolling(14).mean()
    df["rsi"] = 100 - 100 / (1 + gain / loss.replace(0, np.nan))
    df = df.bfill().ffill()
    return df


def strategy_config() -> dict:
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
