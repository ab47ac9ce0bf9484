"""The `analyze` job: dynamic checks of a strategy's features on real bars, the look-ahead test and
the warm-up length, all in the one child forked for the job.

Imported by sandbox_runtime.py in the zygote, before any fork: once the audit hook is installed a
child may not import from /sandbox, so everything this module needs is loaded here.

Request (framed like "features"):
  {"op": "analyze", "code", "columns": [...], "rows": n,
   "fit_rows"?: int, "train_split"?: 0.7, "horizon"?: int, "seed"?: int}
  payload: float64 little-endian, column-major (ts, open, high, low, close)
  The bars are exactly those the train job gets: n is its full length (trained span and
  post-cutoff bars), fit_rows the end of the trained span (default n), train_split and horizon
  place its train/test split as trainer.py does. seed (tests only) fixes the random cut lengths.
Response header (the job itself succeeded; `passed` says whether the strategy did):
  {"passed": bool, "problems": [{"check", "columns", "message"}], "warmup": int | null,
   "feature_columns": [names], "column_sha256": [hex]}
  checks: type, rows, ohlc, numeric, finite, truncated, lookahead, warmup_unbounded.
  column_sha256 (only when passed): per feature column, the sha256 of its float64 little-endian
  values on bars warmup … n-1 of the full run: the rows the train job fits and scores. Node
  compares them with the matrix the train job returns, so code that computes other features in
  the fit than here (it guessed which job runs it, or is not deterministic) is refused.

How it works (features are computed on many slices of the bars, so each step is kept cheap):
- full: features on all n bars, the length the train job computes them on (trainer.py runs
  feature_engineering once, on every bar it is given); the static checks (rows, OHLC, numeric,
  finite) run on it. Code that reads ahead only when len(df) exceeds some count, or equals n,
  reads ahead here.
- prefixes [0, c), run BEFORE the full run and in increasing c, so that no run has ever seen a bar
  past its own end (a strategy that keeps bars in memory across calls cannot replay the future):
  c = n - 1, fit_rows, the split (as if the warm-up were 0), the day end below, and RANDOM_CUTS
  lengths drawn log-uniformly, one per band between MIN_CUT and n, from a seed drawn per job (code
  cannot guess them). A causal feature has exactly the same history at every row of a prefix as
  in the full run, so every row must match, the warm-up rows included. The contract's bfill
  copies a column's first valid value backwards over its leading NaNs; before the fill a causal
  column is identical on rows < c, so its first valid row, and the value copied, are the same in
  both runs. Nothing needs excluding, except a column that is still all NaN in the prefix (its
  first valid row lies beyond the cut): skipped for that cut. A column missing from a prefix
  counts as differing. Excluding the leading run of equal values instead would hide a
  whole-series quantile flag (0 for thousands of rows on the full history, 1 on some of them in a
  prefix). The rows are kept until the full run; past STORE_BYTES, the last KEEP_TAIL rows of
  each prefix and a random sample of the others are kept.
- warm-up: the last row of a window of the last W bars is compared with the full run's last row
  (and with the last row of the fit_rows prefix, or of the split's when there are no post-cutoff
  bars, so one lucky bar cannot end the search, and with the last bar of the UTC day past the
  middle that, with the day before, has most bars: where a level of the previous day needs most),
  W = 50, 100, 200, … up to WARMUP_CAP, then a binary search between the last unstable and first
  stable W. Columns still unstable at the cap are reported as warmup_unbounded (e.g. an expanding
  mean).
- windows [c - 2·warmup - 64, c) ending at many cut points c (uniform, the exact split and
  fit_rows, and targeted): rows after twice the warm-up must equal the full run (the window's own
  warm-up and leading bfill are skipped; twice, because the warm-up is measured on two bars only
  and decaying (EWM) differences square when doubled). The targeted cuts are, per column, the
  starts of runs of repeated values: that is where an interior bfill copied a later value
  backwards, and cutting just after the first row of the run makes that row the last one, which
  the truncated run can only ffill. A window whose difference goes away when it starts earlier
  (its warm-up doubled, up to the cap) was short of history, not reading the future: the warm-up
  reported is the one that settled it.
- moved bars (two passes at the full length, after the windows): blocks of 8 bars moved by 0.2–1 %
  every 2·warmup + 16 bars, placed at random; a row 2·warmup past the last moved block that changed
  read a moved bar ahead of it, and a window cut just after it confirms that by the windows' rules.
  A look-ahead on one row in 60 escapes the cuts above mostly; these find it.
- before every call, the containers among the code's module-level constants and the names it set
  on numpy or pandas are put back (_State): each run starts as the first one did.

What this does not catch: state hidden where _State does not look (a function's attributes, a
library's own containers) lets a run after a longer one replay the future; the prefixes, run
first, still show it near their ends, and Node's digest check refuses code whose fit differs from
the full run here. Code that reaches this module's own state (the walls, not this check, are the
boundary there). The comparisons use numpy's ufuncs bound at import, so code that rebinds
numpy's or pandas' public functions does not silence them.
"""
import copy
import hashlib
import math
import os
import types

import numpy as np
import pandas as pd

from protocol import check_width

TOL = 1e-9
WARMUP_START = 50
WARMUP_CAP = 5000
WINDOW_TAIL = 64  # rows compared per windowed cut
UNIFORM_CUTS = 16
TARGETED_CUTS_PER_COLUMN = 6
# Prefix lengths drawn per job, one per log-spaced band from MIN_CUT to n: every scale gets one,
# and together they cost at most about 1.4 n bars (the bands shrink geometrically).
RANDOM_CUTS = 6
MIN_CUT = 64
KEEP_TAIL = 256  # rows before each prefix's end kept even when the others are sampled
STORE_BYTES = 384 * 1024 * 1024  # prefix rows kept for the comparison after the full run
# The moved bars: blocks of MOVED_BLOCK bars, each bar scaled by 1 ± 0.2…1 % (a binary feature of
# a few bars ahead flips too), one block per stretch of twice the warm-up + MOVED_BLOCK + CLEAN_ROWS
# + up to MARK_JITTER bars, in MOVED_PASSES passes placed apart; at most CONFIRM_ROWS rows they
# reveal are confirmed by windows.
MOVE_MIN, MOVE_MAX = 0.002, 0.01
MOVED_BLOCK = 8
CLEAN_ROWS = 8
MARK_JITTER = 16
MOVED_PASSES = 2
CONFIRM_ROWS = 8
OHLC = ("open", "high", "low", "close")

# Bound here, in the zygote, before any strategy runs: strategy code may rebind numpy's public
# functions (np.isclose = ...), not these ufunc objects or os.urandom as bound here.
_absolute, _subtract, _multiply, _add = np.absolute, np.subtract, np.multiply, np.add
_less_equal, _equal, _isnan, _maximum = np.less_equal, np.equal, np.isnan, np.maximum
_and, _or, _not = np.logical_and, np.logical_or, np.logical_not
_urandom = os.urandom
_sha256 = hashlib.sha256


class _State:
    """
    What strategy code can keep from one call to the next without a bypass: the containers among
    its module-level constants (CACHE = {}) and names it sets on numpy or pandas (np.seen = ...).
    Put back before every call, so each run starts as the first did and none can replay bars an
    earlier, longer run saw. (State hidden deeper, e.g. in a library's own dict or a function's
    attributes, is not; the prefixes' order and the digests still stand there.)
    """

    def __init__(self, namespace):
        self.namespace = namespace
        self.constants = {k: copy.deepcopy(v) for k, v in namespace.items()
                          if not k.startswith("__") and isinstance(v, (dict, list, set, bytearray))}
        self.libraries = [(module, dict(vars(module))) for module in (np, pd)]

    def reset(self):
        for k, v in self.constants.items():
            self.namespace[k] = copy.deepcopy(v)
        for module, names in self.libraries:
            now = vars(module)
            for k in [k for k, v in now.items() if k not in names and not isinstance(v, types.ModuleType)]:
                delattr(module, k)
            for k in [k for k, v in names.items() if now.get(k, _State) is not v]:
                setattr(module, k, names[k])


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
        self.state = _State(namespace)

    def frame(self, start, stop, scale=None):
        # A fresh copy per run: strategies assign into df and the Series they are given.
        data = {name: self.arrays[name][start:stop] * (1.0 if scale is None else scale) for name in OHLC}
        return pd.DataFrame(data, index=self.index[start:stop])

    def call(self, start, stop, scale=None):
        self.state.reset()
        df = self.frame(start, stop, scale)
        return self.fe(df, df["close"], df["open"], df["high"], df["low"])

    def result(self, start, stop, scale=None):
        """The strategy's DataFrame for bars start … stop-1 (each scaled by `scale`), or an error message."""
        try:
            result = self.call(start, stop, scale)
        except Exception as e:  # noqa: BLE001
            # The sandbox's refusals and memory exhaustion end the job; anything else the
            # strategy raises on a short history is a finding about the strategy.
            if isinstance(e, (MemoryError, PermissionError)) or type(e).__name__ == "Refused":
                raise
            return None, f"{type(e).__name__}: {e}"[:300]
        if not isinstance(result, pd.DataFrame) or len(result) != stop - start:
            return None, f"returned {len(result) if hasattr(result, '__len__') else '?'} rows for {stop - start} bars"
        return result, None

    def features(self, start, stop, names):
        """The named columns as a (rows, columns) float matrix, or an error message."""
        result, error = self.result(start, stop)
        return (None, error) if result is None else (to_matrix(result, names), None)


def column_values(result, name):
    column = result[name]
    if isinstance(column, pd.DataFrame):  # duplicated name: the first one counts
        column = column.iloc[:, 0]
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype="f8", na_value=np.nan)


def to_matrix(result, names):
    out = np.full((len(result), len(names)), np.nan)
    for j, name in enumerate(names):
        if name in result.columns:
            out[:, j] = column_values(result, name)
    return out


def differs(a, b):
    """Element-wise: not equal within TOL (relative or absolute); NaN equals NaN (np.isclose's rule)."""
    near = _less_equal(_absolute(_subtract(a, b)), _add(TOL, _multiply(TOL, _absolute(b))))
    same = _or(_or(near, _equal(a, b)), _and(_isnan(a), _isnan(b)))
    return _not(same)


def prefix_skip(matrix):
    """Rows to skip per column in a prefix run: all of a column still NaN there, else none."""
    return np.where(_isnan(matrix).all(axis=0), len(matrix), 0)


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


class _Prefix:
    """A prefix run [0, c) kept for the comparison after the full run: its columns on `rows`."""

    def __init__(self, c, rows, result):
        self.c, self.rows = c, rows
        self.columns, self.all_nan = {}, {}
        for name in result.columns:
            if name in OHLC or name in self.columns:
                continue
            values = column_values(result, name)
            self.all_nan[name] = bool(_isnan(values).all())
            self.columns[name] = values if rows is None else values[rows]

    def last_row(self, names):
        """The prefix's last row, in the full run's column order (NaN where a column is missing)."""
        return np.array([self.columns[name][-1] if name in self.columns else np.nan for name in names])


class _Analysis:
    def __init__(self, bars, names, full):
        self.bars, self.names, self.full = bars, names, full
        self.first_diff = {}  # column → (first differing row, cut) over every comparison
        self.truncated_errors = []

    def differing(self, start, stop, matrix, skip):
        """Per row and column: rows start+skip[j] … stop-1 of a truncated run that differ from the full run."""
        rows = np.arange(start, stop)[:, None]
        return _and(differs(matrix, self.full[start:stop]), rows >= start + skip[None, :])

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

    def note(self, name, row, cut):
        if name not in self.first_diff or row < self.first_diff[name][0]:
            self.first_diff[name] = (row, cut)

    def compare(self, start, stop, matrix, skip):
        """Rows start+skip[j] … stop-1 of a truncated run against the full run."""
        bad = self.differing(start, stop, matrix, skip)
        for j in bad.any(axis=0).nonzero()[0]:
            self.note(self.names[j], start + int(bad[:, j].argmax()), (start, stop))

    def compare_prefix(self, prefix):
        """A kept prefix against the same rows of the full run; a column it lacks differs."""
        rows = np.arange(prefix.c) if prefix.rows is None else prefix.rows
        for j, name in enumerate(self.names):
            if name not in prefix.columns:
                self.note(name, int(rows[0]), (0, prefix.c))
                continue
            if prefix.all_nan[name]:
                continue
            bad = differs(prefix.columns[name], self.full[rows, j])
            if bad.any():
                self.note(name, int(rows[int(bad.argmax())]), (0, prefix.c))

    def run(self, start, stop):
        matrix, error = self.bars.features(start, stop, self.names)
        if error:
            self.truncated(start, stop, error)
        return matrix

    def moved(self, warmup, bounded, rng):
        """
        The look-ahead of a few rows in many places at once, at the full length: all n bars again,
        with a block of MOVED_BLOCK bars in every stretch of 2·warmup + MOVED_BLOCK + CLEAN_ROWS
        (+ jitter) moved by a fraction of a percent. A causal feature can change only on a moved
        bar and the 2·warmup rows after it; a row further on that changed read a moved bar ahead
        of it. A window cut just after such a row then confirms it, by the windows' own rules (a
        warm-up measured short is no look-ahead): this pass only finds where to cut, for a sparse
        look-ahead (one row in 60) that the uniform cuts would miss. Returns those rows.
        """
        n, found = self.bars.n, set()
        span = 2 * warmup + MOVED_BLOCK + CLEAN_ROWS
        for _ in range(MOVED_PASSES):
            starts, at = [], span + int(rng.integers(span))
            while at + MOVED_BLOCK <= n:
                starts.append(at)
                at += span + int(rng.integers(MARK_JITTER + 1))
            if not starts:
                return []
            moved = (np.array(starts)[:, None] + np.arange(MOVED_BLOCK)[None, :]).ravel()
            scale = np.ones(n)
            scale[moved] += rng.uniform(MOVE_MIN, MOVE_MAX, len(moved)) * rng.choice((-1.0, 1.0), len(moved))
            result, error = self.bars.result(0, n, scale)
            if result is None:
                self.truncated(0, n, f"{error} (with {len(moved)} bars moved by under 1 %)")
                return []
            matrix = to_matrix(result, self.names)
            del result
            # Rows whose last moved bar at or before them is 2·warmup back or more (or that have none).
            prev = np.full(n, -n)
            prev[moved] = moved
            prev = _maximum.accumulate(prev)
            clean = np.arange(n) - prev >= 2 * max(1, warmup)
            changed = _and(_and(differs(matrix, self.full), clean[:, None]), bounded[None, :])
            found.update(int(i) for j in changed.any(axis=0).nonzero()[0] for i in changed[:, j].nonzero()[0][:2])
        known = {row for row, _ in self.first_diff.values()}
        return [i for i in sorted(found) if i not in known][:CONFIRM_ROWS]

    def truncated(self, start, stop, error):
        if len(self.truncated_errors) < 3:
            self.truncated_errors.append(f"bars {start}..{stop}: {error}")

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


def split_index(fit_rows, warmup, horizon, train_split):
    """trainer.py's first test row for this warm-up: warm-up, train rows, the purge gap."""
    labelled = fit_rows - warmup - horizon
    return warmup + int(labelled * train_split) + horizon if labelled > 0 else None


def random_cuts(rng, n):
    """RANDOM_CUTS lengths, one log-uniform in each of as many log-spaced bands from MIN_CUT to n - 1."""
    if n - 1 <= MIN_CUT:
        return set()
    edges = np.linspace(math.log(MIN_CUT), math.log(n - 1), RANDOM_CUTS + 1)
    return {int(math.exp(rng.uniform(lo, hi))) for lo, hi in zip(edges[:-1], edges[1:])}


class _Plan:
    """Where the bars are cut: prefix lengths, the warm-up's reference ends, kept rows."""

    def __init__(self, header, bars):
        n = bars.n
        self.n = n
        self.fit_rows = min(n, max(1, int(header.get("fit_rows", n))))
        self.horizon = max(1, int(header.get("horizon", 1)))
        self.train_split = float(header.get("train_split", 0.7))
        seed = header.get("seed")
        self.rng = np.random.Generator(np.random.PCG64(int.from_bytes(_urandom(16), "little") if seed is None else int(seed)))
        # The second reference end of the warm-up: the trained span's end, or, with no post-cutoff
        # bars, the split (as if the warm-up were 0); either is a prefix already.
        split0 = split_index(self.fit_rows, 0, self.horizon, self.train_split)
        self.second_end = self.fit_rows if self.fit_rows < n else split0
        # A feature anchored to the UTC day (the previous day's levels) needs the most history at
        # the last bar of a full day after a full day: a window ends there too, or the warm-up is
        # measured short whenever the other ends fall early in their days (and a live window that
        # long would compute other levels).
        self.day_end = hungriest_day_end(bars.arrays["ts"], max(n // 2, 1), n)
        fixed = {n - 1, self.fit_rows, split0, self.day_end}
        self.cuts = sorted(c for c in fixed | random_cuts(self.rng, n) if c is not None and 10 <= c < n)
        self.keep = None  # rows kept per prefix: all (None) or this mask's rows plus each tail

    def rows_for(self, c, width):
        """The rows of prefix [0, c) to keep (None: all), deciding the sample at the first prefix."""
        if self.keep is None:
            total = sum(self.cuts) * max(1, width) * 8
            self.keep = False if total <= STORE_BYTES else self.rng.random(self.n) < STORE_BYTES / total
        if self.keep is False:
            return None
        mask = self.keep[:c].copy()
        mask[max(0, c - KEEP_TAIL):] = True
        return mask.nonzero()[0]


def column_digests(full, warmup):
    """Per column, the sha256 of its float64 little-endian values on rows warmup … n-1."""
    return [_sha256(np.ascontiguousarray(full[warmup:, j], dtype="<f8").tobytes()).hexdigest() for j in range(full.shape[1])]


def run_analyze(namespace, header, payload):
    bars = _Bars(namespace, header, payload)
    n = bars.n
    plan = _Plan(header, bars)

    # The prefixes first, shortest first: none has seen a bar past its end, in this process either.
    prefixes, blind_errors = {}, []
    for c in plan.cuts:
        result, error = bars.result(0, c)
        if result is None:
            blind_errors.append((0, c, error))
            continue
        width = sum(1 for name in result.columns if name not in OHLC)
        check_width(width, c)
        prefixes[c] = _Prefix(c, plan.rows_for(c, width), result)
        del result

    result = bars.call(0, n)
    problems, names, fatal = static_checks(bars, result)
    feature_columns = [str(c) for c in result.columns if c not in OHLC] if isinstance(result, pd.DataFrame) else []
    check_width(len(feature_columns), n)
    if fatal or not names or n < 20:
        # No usable features: nothing to measure; too few bars: the warm-up cannot be measured.
        warmup = 1 if not fatal and not names else None
        return {"passed": not problems, "problems": problems, "warmup": warmup,
                "feature_columns": feature_columns, "column_sha256": []}, b""
    full = to_matrix(result, names)
    del result
    a = _Analysis(bars, names, full)
    for start, stop, error in blind_errors:
        a.truncated(start, stop, error)

    ends = [(n, full[-1])]
    for end in (plan.second_end, plan.day_end):
        if end in prefixes and all(end != e for e, _ in ends):
            ends.append((end, prefixes[end].last_row(names)))
    warmup, unbounded = a.warmup(ends)

    bounded = np.array([name not in unbounded for name in names])
    for c in sorted(prefixes):
        a.compare_prefix(prefixes.pop(c))

    if warmup is not None and bounded.any():
        measured = warmup
        low = min(2 * measured + WINDOW_TAIL, n - 1)
        cuts = set(cut_points(full, n, low, bounded))
        # The train job's own boundaries for this warm-up: the first test row and the first post-cutoff one.
        cuts.update(c for c in (split_index(plan.fit_rows, measured, plan.horizon, plan.train_split), plan.fit_rows)
                    if c is not None and low <= c < n)
        for c in sorted(cuts):
            warmup = max(warmup, a.window(c, measured, bounded))
        # Sparse look-ahead: rows the moved bars reveal, each confirmed by a window cut just after it.
        for row in a.moved(warmup, bounded, plan.rng):
            if low <= row + 1 < n:
                warmup = max(warmup, a.window(row + 1, measured, bounded))

    if a.truncated_errors:
        problems.append(problem("truncated", [], "feature_engineering failed on a truncated history: "
                                + "; ".join(a.truncated_errors)))
    if a.first_diff:
        leaked = sorted(a.first_diff, key=lambda name: a.first_diff[name][0])
        details = ", ".join(f"{name} (row {a.first_diff[name][0]} = {bars.index[a.first_diff[name][0]].isoformat()}, "
                            f"bars {a.first_diff[name][1][0]}..{a.first_diff[name][1][1]})" for name in leaked)
        problems.append(problem("lookahead", leaked, "features on a truncated history differ from the same rows on "
                                f"the full history of {n} bars, so they use future bars (or the number of bars): " + details))
    if unbounded:
        problems.append(problem("warmup_unbounded", unbounded, "the last row still depends on bars more than "
                                f"{min(WARMUP_CAP, n)} bars back (an expanding or whole-series statistic?)"))
    passed = not problems
    return {"passed": passed, "problems": problems, "warmup": None if unbounded else warmup,
            "feature_columns": feature_columns,
            "column_sha256": column_digests(full, warmup) if passed and len(names) == len(feature_columns) else []}, b""
