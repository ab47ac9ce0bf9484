# expect: missing-function@1
import numpy as np
import pandas as pd


def feature_engineering(df, close, open_, high, low):
    df["x"] = 1
    df = df.bfill().ffill()
    return df
