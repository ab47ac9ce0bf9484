def feature_engineering(df, close, open_, high, low):
    pd = _import("pandas")
    wide = pd.DataFrame({f"f{i}": close.shift(1 + i % 50) for i in range(2400)}, index=df.index)
    return pd.concat([df, wide], axis=1)


def strategy_config():
    return {}
