"""Meta-labelling (López de Prado, AFML ch. 3): the trader's rule proposes, the model confirms.

When strategy_config() sets entry_long and/or entry_short, trainer.py fits the model only on the
bars where a rule fires, with triple-barrier labels from the strategy's own exits, and its
probability is P(win) of the rule's trade. Pure numpy: no strategy code runs here.

Rule bars (rule_sides): a bar is a long candidate where the entry_long column is > 0 and the
strategy trades longs (direction both/long), a short candidate likewise; entry_filter (> 0) and
trend_filter (close above it for longs, below for shorts) apply as in the entry mask. A bar where
both sides fire is skipped (no row, and the decision opens nothing there, decisions.ts toSignals):
one row per side would need a side feature the ONNX model does not have. min_atr, session hours
and skipped days are not applied here (the model also learns from those bars; the engine still
refuses their entries).

Triple-barrier label of a rule bar t with side s (triple_barrier): the trade enters at open[t+1],
as the engine fills a signal. Barriers: take = entry + s * take distance, stop = entry - s * stop
distance (either may be absent: NaN), and a vertical barrier after `horizon` bars (bars t+1 ..
t+horizon, the entry bar included, as the engine checks levels in the bar it opens at). Each bar in
order, as the engine without intrabar data: an open beyond the stop → 0, beyond the take → 1; a bar
reaching the stop → 0 (also when it reaches the take too: the conservative order, the engine's own
without finer bars); reaching the take only → 1. No barrier touched by the vertical one: 1 when the
trade gains at close[t+horizon] (s * (close - entry) > 0), else 0. The label's end is the bar of the
first touch, else t+horizon. A label whose bars run past `limit` (the trained span) is unknown (-1).
Prices are the bars' (bid): the spread the engine adds for fills at ask is not in the train job.

Stop distance: stop_loss × entry; under a trailing stop the initial trail distance (ratio × entry,
pips × pip size, or atr × ATR(period) of the bars before, Wilder) is the lower barrier, the tighter
of both when stop_loss is set too (the engine's stop starts there and only tightens).
"""
import numpy as np

BOTH_SKIPPED = "both"


def meta_mode(config):
    """Whether a strategy_config asks for meta-labels: either entry rule is set."""
    return bool(config.get("entry_long") or config.get("entry_short"))


def _column(key, config, X, names):
    name = config.get(key)
    if not name:
        return None
    if name not in names:
        raise ValueError(f"{key} names {name!r}, which is not a feature column (columns: {', '.join(names)}); name a column feature_engineering adds")
    return X[:, names.index(name)]


def rule_sides(config, X, names, close):
    """Per bar: 1 where a long rule fires, -1 a short one, 0 neither or both; and how many bars had both."""
    direction = config.get("direction", "both")
    with np.errstate(invalid="ignore"):
        long_rule = _column("entry_long", config, X, names)
        short_rule = _column("entry_short", config, X, names)
        n = len(close)
        longs = long_rule > 0 if long_rule is not None and direction != "short" else np.zeros(n, bool)
        shorts = short_rule > 0 if short_rule is not None and direction != "long" else np.zeros(n, bool)
        entry_filter = _column("entry_filter", config, X, names)
        if entry_filter is not None:
            ok = entry_filter > 0
            longs, shorts = longs & ok, shorts & ok
        trend = _column("trend_filter", config, X, names)
        if trend is not None:
            longs, shorts = longs & (close > trend), shorts & (close < trend)
    both = longs & shorts
    side = longs.astype(np.int8) - shorts.astype(np.int8)
    return side, int(both.sum())


def wilder_atr(high, low, close, period):
    """ATR after each bar: true range (high - low on the first bar), ewm alpha 1/period, adjust=False."""
    prev = np.concatenate([[np.nan], close[:-1]])
    tr = np.fmax(high - low, np.fmax(np.abs(high - prev), np.abs(low - prev)))
    tr[0] = high[0] - low[0]
    out = np.empty_like(tr)
    alpha = 1.0 / period
    acc = tr[0]
    for i in range(len(tr)):
        acc = tr[i] if i == 0 else acc + alpha * (tr[i] - acc)
        out[i] = acc
    return out


def stop_take_distances(config, entry, t, high, low, close, pip_size):
    """Stop and take distances (price units, NaN = no barrier) of trades entering at `entry` after bars t."""
    stop = np.full(len(entry), np.nan)
    take = np.full(len(entry), np.nan)
    if config.get("stop_loss"):
        stop = float(config["stop_loss"]) * entry
    if config.get("take_profit"):
        take = float(config["take_profit"]) * entry
    trail = config.get("trailing_stop")
    if trail:
        if isinstance(trail, (int, float)):
            dist = float(trail) * entry
        elif "pips" in trail:
            dist = np.full(len(entry), float(trail["pips"]) * pip_size)
        else:
            # The ATR of the bars up to the signal bar t (the engine's at the entry: the bars before it).
            dist = float(trail["atr"]) * wilder_atr(high, low, close, int(trail.get("period", 14)))[t]
        stop = np.fmin(stop, dist)  # fmin: NaN (no stop_loss) gives the trail's
    return stop, take


def triple_barrier(open_, high, low, close, t, side, stop, take, horizon, limit):
    """Labels (1 win, 0 loss, -1 unknown) and end bars of the trades of rule bars t (see the module docstring)."""
    t = np.asarray(t, dtype=np.int64)
    side = np.asarray(side, dtype=np.float64)
    labels = np.full(len(t), -1, dtype=np.int64)
    ends = np.full(len(t), -1, dtype=np.int64)
    if len(t) == 0:
        return labels, ends
    bars = t[:, None] + 1 + np.arange(horizon)[None, :]
    inside = bars < limit
    j = np.minimum(bars, len(open_) - 1)
    s = side[:, None]
    entry = open_[np.minimum(t + 1, len(open_) - 1)]
    # In side-adjusted prices (a short's prices negated) every trade is a long: stop below, take above.
    o = s * open_[j]
    hi = np.where(s > 0, high[j], -low[j])
    lo = np.where(s > 0, low[j], -high[j])
    e = (side * entry)[:, None]
    stop_at = e - np.asarray(stop, dtype=np.float64)[:, None]
    take_at = e + np.asarray(take, dtype=np.float64)[:, None]
    with np.errstate(invalid="ignore"):
        gap_take = o >= take_at
        stop_hit = ~gap_take & ((o <= stop_at) | (lo <= stop_at))
        take_hit = gap_take | (~stop_hit & (hi >= take_at))
    touched = (stop_hit | take_hit) & inside
    any_touch = touched.any(axis=1)
    first = touched.argmax(axis=1)
    rows = np.arange(len(t))
    labels[any_touch] = take_hit[rows, first][any_touch].astype(np.int64)
    ends[any_touch] = t[any_touch] + 1 + first[any_touch]
    vertical = ~any_touch & (t + horizon < limit)
    last = t[vertical] + horizon
    labels[vertical] = (side[vertical] * (close[last] - entry[vertical]) > 0).astype(np.int64)
    ends[vertical] = last
    return labels, ends


def train_test_rows(t, labels, ends, test_from, fit_to, embargo=0):
    """Masks over rule rows: train = labelled, t before the test and the label ended `embargo` bars
    before it (the purge by each label's end); test = labelled, test_from <= t < fit_to."""
    known = labels >= 0
    train = known & (t < test_from) & (ends + embargo < test_from)
    test = known & (t >= test_from) & (t < fit_to)
    return train, test
