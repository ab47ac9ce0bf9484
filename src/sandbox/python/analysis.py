"""The `analyze` job: dynamic checks of a strategy's features on real bars, the look-ahead test and
the warm-up length, all in the one child forked for the job.

Imported by sandbox_runtime.py in the zygote, before any fork: once the audit hook is installed a
child may not import from /sandbox, so everything this module needs is loaded here.

Request (framed like "features"):
  {"op": "analyze", "code", "columns": [...], "rows": n}
  payload: float64 little-endian, column-major (ts, open, high, low, close)
Response header (the job itself succeeded; `passed` says whether the strategy did):
  {"passed": bool, "problems": [{"check", "columns", "message"}], "warmup": int | null,
   "feature_columns": [names]}
  checks: type, rows, ohlc, numeric, finite, truncated, lookahead, warmup_unbounded.

How it works (features are computed on many slices of the bars, so each step is kept cheap):
- full: features on all n bars; the static checks (rows, OHLC, numeric, finite) run on it.
- prefixes [0, c) for c = 10 %, 25 %, 50 %, 75 %, n-1, n-10: a causal feature has exactly the
  same history at every row of a prefix as in the full run, so every row must match, the warm-up
  rows included. The contract's bfill copies a column's first valid value backwards over its
  leading NaNs; before the fill a causal column is identical on rows < c, so its first valid row,
  and the value copied, are the same in both runs. Nothing needs excluding, except a column that
  is still all NaN in the prefix (its first valid row lies beyond the cut): skipped for that cut.
  Excluding the leading run of equal values instead would hide a whole-series quantile flag
  (0 for thousands of rows on the full history, 1 on some of them in a prefix).
- warm-up: the last row of a window of the last W bars is compared with the full run's last row
  (and with the 75 % prefix's last row, so one lucky bar cannot end the search, and with the last
  bar of the UTC day past the middle that, with the day before, has most bars: where a level of
  the previous day needs most), W = 50, 100, 200,
  … up to WARMUP_CAP, then a binary search between the last unstable and first stable W.
  Columns still unstable at the cap are reported as warmup_unbounded (e.g. an expanding mean).
- windows [c - 2·warmup - 64, c) ending at many cut points c: rows after twice the warm-up must
  equal the full run (the window's own warm-up and leading bfill are skipped; twice, because the
  warm-up is measured on two bars only and decaying (EWM) differences square when doubled). The cuts include, per column, the starts of runs of repeated values: that
  is where an interior bfill copied a later value backwards, and cutting just after the first
  row of the run makes that row the last one, which the truncated run can only ffill.
  A window whose difference goes away when it starts earlier (its warm-up doubled, up to the cap)
  was short of history, not reading the future: the warm-up reported is the one that settled it.
"""
import numpy as np
import pandas as pd

from protocol import check_width

TOL = 1e-9
WARMUP_START = 50
WARMUP_CAP = 5000
WINDOW_TAIL = 64  # rows compared per windowed cut
UNIFORM_CUTS = 16
TARGETED_CUTS_PER_COLUMN = 6
OHLC = ("open", "high", "low", "close")


class _Bars:
    """The job's bars as arrays, and the strategy run on any slice of them."""

    def __init__(self, namespace, header, payload):
        columns = header["columns"]
        rows = int(header["rows"])
        data = np.frombuffer(payload, dtype="<f8").reshape(len(columns), rows)
        self.arrays = {name: data[i] for i, name in enumerate(columns)}
        self.index = pd.to_datetime(self.arrays["ts"].astype("int64"), unit="ms", utc=True)
        self.n = rows
        self.fe = namespace["feature_engineering"]

    def frame(self, start, stop):
        # A fresh copy per run: strategies assign into df and the Series they are given.
        data = {name: self.arrays[name][start:stop].copy() for name in OHLC}
        return pd.DataFrame(data, index=self.index[start:stop])

    def call(self, start, stop):
        df = self.frame(start, stop)
        return self.fe(df, df["close"], df["open"], df["high"], df["low"])

    def features(self, start, stop, names):
        """The named columns as a (rows, columns) float matrix, or an error message."""
        try:
            result = self.call(start, stop)
        except Exception as e:  # noqa: BLE001
            # The sandbox's refusals and memory exhaustion end the job; anything else the
            # strategy raises on a short history is a finding about the strategy.
            if isinstance(e, (MemoryError, PermissionError)) or type(e).__name__ == "Refused":
                raise
            return None, f"{type(e).__name__}: {e}"[:300]
        if not isinstance(result, pd.DataFrame) or len(result) != stop - start:
            return None, f"returned {len(result) if hasattr(result, '__len__') else '?'} rows for {stop - start} bars"
        return to_matrix(result, names), None


def to_matrix(result, names):
    out = np.full((len(result), len(names)), np.nan)
    for j, name in enumerate(names):
        if name in result.columns:
            column = result[name]
            if isinstance(column, pd.DataFrame):  # duplicated name: the first one counts
                column = column.iloc[:, 0]
            out[:, j] = pd.to_numeric(column, errors="coerce").to_numpy(dtype="f8", na_value=np.nan)
    return out


def differs(a, b):
    """Element-wise: not equal within TOL (relative or absolute); NaN equals NaN."""
    return ~np.isclose(a, b, rtol=TOL, atol=TOL, equal_nan=True)


def prefix_skip(matrix):
    """Rows to skip per column in a prefix run: all of a column still NaN there, else none."""
    return np.where(np.isnan(matrix).all(axis=0), len(matrix), 0)


def problem(check, columns, message):
    return {"check": check, "columns": [str(c) for c in columns], "message": message}


def static_checks(bars, result):
    """Checks on the full run. Returns (problems, numeric feature names, fatal)."""
    if not isinstance(result, pd.DataFrame):
        return [problem("type", [], f"feature_engineering must return the DataFrame, not {type(result).__name__}")], [], True
    problems = []
    if len(result) != bars.n or not result.index.equals(bars.index):
        problems.append(problem("rows", [], f"rows were dropped or reordered: {bars.n} bars in, {len(result)} rows out "
                                            "(fill the warm-up with bfill().ffill() instead of dropping it)"))
        return problems, [], True
    changed = [c for c in OHLC if c not in result.columns or not np.array_equal(
        pd.to_numeric(result[c], errors="coerce").to_numpy(dtype="f8", na_value=np.nan), bars.arrays[c])]
    if changed:
        problems.append(problem("ohlc", changed, f"{', '.join(changed)} changed: open/high/low/close must be left as given"))
    new = [c for c in result.columns if c not in OHLC]
    non_numeric = [c for c in new if not pd.api.types.is_numeric_dtype(result[c]) or pd.api.types.is_complex_dtype(result[c])]
    if non_numeric:
        problems.append(problem("numeric", non_numeric, "feature columns must be numeric (or bool): "
                                + ", ".join(f"{c} ({result[c].dtype})" for c in non_numeric)))
    names = [c for c in new if c not in non_numeric]
    matrix = to_matrix(result, names)
    bad = [names[j] for j in np.flatnonzero(~np.isfinite(matrix).all(axis=0))]
    if bad:
        counts = ", ".join(f"{c}: {int((~np.isfinite(matrix[:, names.index(c)])).sum())} rows" for c in bad)
        problems.append(problem("finite", bad, f"NaN or inf left after the fill ({counts})"))
    return problems, names, False


class _Analysis:
    def __init__(self, bars, names, full):
        self.bars, self.names, self.full = bars, names, full
        self.first_diff = {}  # column → (first differing row, cut) over every comparison
        self.truncated_errors = []

    def differing(self, start, stop, matrix, skip):
        """Per row and column: rows start+skip[j] … stop-1 of a truncated run that differ from the full run."""
        rows = np.arange(start, stop)[:, None]
        return differs(matrix, self.full[start:stop]) & (rows >= start + skip[None, :])

    def window(self, c, warmup, bounded):
        """
        Compares the window ending at c, past twice the warm-up. A difference that a longer history
        before the window removes is no look-ahead (future bars are never in a window): the warm-up
        was measured short, as for a day-anchored level whose partial first day happened to hold
        the day's extremes at the measured ends. The window then grows until it settles, and that
        warm-up is returned; one that never settles (up to the cap or the first bar) is reported.
        """
        w = warmup
        while True:
            start = max(0, c - (2 * w + WINDOW_TAIL))
            matrix = self.run(start, c)
            if matrix is None:
                return warmup
            inner = np.full(len(self.names), 2 * w) if start > 0 else prefix_skip(matrix)
            # Columns whose warm-up never settles cannot be compared on a window.
            skip = np.where(bounded, inner, c)
            bad = self.differing(start, c, matrix, skip).any(axis=0)
            known = np.array([name in self.first_diff for name in self.names])
            if start == 0 or w >= WARMUP_CAP or not (bad & ~known).any():
                self.compare(start, c, matrix, skip)
                return w
            w = min(2 * w, WARMUP_CAP)

    def compare(self, start, stop, matrix, skip):
        """Rows start+skip[j] … stop-1 of a truncated run against the full run."""
        bad = self.differing(start, stop, matrix, skip)
        for j in np.flatnonzero(bad.any(axis=0)):
            row = start + int(np.argmax(bad[:, j]))
            name = self.names[j]
            if name not in self.first_diff or row < self.first_diff[name][0]:
                self.first_diff[name] = (row, (start, stop))

    def run(self, start, stop):
        matrix, error = self.bars.features(start, stop, self.names)
        if error and len(self.truncated_errors) < 3:
            self.truncated_errors.append(f"bars {start}..{stop}: {error}")
        return matrix

    def stable(self, width, ends):
        """Per column: is the last row of every width-bar window equal to its reference?"""
        ok = np.ones(len(self.names), dtype=bool)
        for end, ref in ends:
            matrix, _ = self.bars.features(end - width, end, self.names)
            ok &= False if matrix is None else ~differs(matrix[-1], ref)
        return ok

    def warmup(self, ends):
        """(warm-up over the columns that settle, the columns that never do)."""
        limit = min(WARMUP_CAP, min(end for end, _ in ends) - 1)
        if limit < 1:
            return None, list(self.names)
        tried = []  # (width, stable columns)
        width = min(WARMUP_START, limit)
        while True:
            ok = self.stable(width, ends)
            tried.append((width, ok))
            if ok.all() or width >= limit:
                break
            width = min(width * 2, limit)
        settled = tried[-1][1]
        unbounded = [self.names[j] for j in np.flatnonzero(~settled)]
        if not settled.any():
            return None, unbounded
        k = next(i for i, (_, ok) in enumerate(tried) if ok[settled].all())
        lo, hi = (tried[k - 1][0] if k > 0 else 0), tried[k][0]
        while hi - lo > 1:  # invariant: lo unstable (or 0), hi stable
            mid = (lo + hi) // 2
            if self.stable(mid, ends)[settled].all():
                hi = mid
            else:
                lo = mid
        return hi, unbounded


def hungriest_day_end(ts_ms, lo, hi):
    """
    The c in [lo, hi) whose bar c - 1 ends a UTC day and has the most bars in that day and the one
    before (what a level of the previous day needs there: a whole trading day, not a Sunday's
    opening hours), or None. Ties go to the latest.
    """
    day = np.floor_divide(ts_ms, 86_400_000)
    starts = np.flatnonzero(day[1:] != day[:-1]) + 1  # the first bar of each day but the first
    ends = np.flatnonzero((starts >= lo) & (starts < hi))
    ends = ends[ends >= 2]  # the day before needs a start of its own
    if not len(ends):
        return None
    need = starts[ends] - starts[ends - 2]
    return int(starts[ends[len(need) - 1 - int(np.argmax(need[::-1]))]])


def cut_points(full, n, low, names_mask):
    """Uniform cuts plus, per column, the cut just after the first row of runs of repeats."""
    cuts = set(np.linspace(low, n - 1, UNIFORM_CUTS).astype(int).tolist()) if n - 1 > low else set()
    for j in np.flatnonzero(names_mask):
        col = full[:, j]
        repeat = ~differs(col[1:], col[:-1])  # row i equals row i + 1
        starts = np.flatnonzero(repeat & np.concatenate(([False], ~repeat[:-1])))
        starts = starts[(starts >= low - 1) & (starts + 1 < n)]
        if len(starts):
            pick = starts[np.linspace(0, len(starts) - 1, min(TARGETED_CUTS_PER_COLUMN, len(starts))).astype(int)]
            cuts.update((pick + 1).tolist())
    return sorted(c for c in cuts if low <= c < n)


def run_analyze(namespace, header, payload):
    bars = _Bars(namespace, header, payload)
    result = bars.call(0, bars.n)
    problems, names, fatal = static_checks(bars, result)
    feature_columns = [str(c) for c in result.columns if c not in OHLC] if isinstance(result, pd.DataFrame) else []
    check_width(len(feature_columns), bars.n)
    if fatal or not names or bars.n < 20:
        # No usable features: nothing to measure; too few bars: the warm-up cannot be measured.
        warmup = 1 if not fatal and not names else None
        return {"passed": not problems, "problems": problems, "warmup": warmup,
                "feature_columns": feature_columns}, b""
    n = bars.n
    full = to_matrix(result, names)
    a = _Analysis(bars, names, full)

    prefixes = {}
    for c in sorted({n // 10, n // 4, n // 2, (3 * n) // 4, n - 1, n - 10}):
        if c >= 10:
            prefixes[c] = a.run(0, c)
    c75 = (3 * n) // 4
    ends = [(n, full[-1])] + ([(c75, prefixes[c75][-1])] if prefixes.get(c75) is not None else [])
    # A feature anchored to the UTC day (the previous day's levels) needs the most history at the
    # last bar of a full day after a full day: a window ends there too, or the warm-up is measured
    # short whenever the other ends fall early in their days (and a live window that long would
    # compute other levels).
    day_end = hungriest_day_end(bars.arrays["ts"], max(n // 2, 1), n)
    if day_end is not None and day_end >= 10:
        if day_end not in prefixes:
            prefixes[day_end] = a.run(0, day_end)
        if prefixes[day_end] is not None:
            ends.append((day_end, prefixes[day_end][-1]))
    warmup, unbounded = a.warmup(ends)

    bounded = np.array([name not in unbounded for name in names])
    for c, matrix in prefixes.items():
        if matrix is not None:
            a.compare(0, c, matrix, prefix_skip(matrix))

    if warmup is not None and bounded.any():
        measured = warmup
        for c in cut_points(full, n, min(2 * measured + WINDOW_TAIL, n - 1), bounded):
            warmup = max(warmup, a.window(c, measured, bounded))

    if a.truncated_errors:
        problems.append(problem("truncated", [], "feature_engineering failed on a truncated history: "
                                + "; ".join(a.truncated_errors)))
    if a.first_diff:
        leaked = sorted(a.first_diff, key=lambda name: a.first_diff[name][0])
        details = ", ".join(f"{name} (row {a.first_diff[name][0]} = {bars.index[a.first_diff[name][0]].isoformat()}, "
                            f"bars {a.first_diff[name][1][0]}..{a.first_diff[name][1][1]})" for name in leaked)
        problems.append(problem("lookahead", leaked, "features on a truncated history differ from the same rows on "
                                "the full history, so they use future bars: " + details))
    if unbounded:
        problems.append(problem("warmup_unbounded", unbounded, "the last row still depends on bars more than "
                                f"{min(WARMUP_CAP, n)} bars back (an expanding or whole-series statistic?)"))
    return {"passed": not problems, "problems": problems, "warmup": None if unbounded else warmup,
            "feature_columns": feature_columns}, b""
