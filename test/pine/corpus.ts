/**
 * Pine indicators in the styles real scripts use, each with its expected outputs written
 * independently in pandas (`py` sets `out[title] = Series` and optionally `sig[title] = bool
 * Series`). The Python sees o, h, l, c, v (Series), hour/dow (UTC), np, pd, and two textbook
 * helpers (rma = Wilder's average as ewm(alpha=1/n, adjust=False), wma = linearly weighted mean).
 */
export interface CorpusCase {
  name: string;
  pine: string;
  py: string;
}

const v5 = (title: string, overlay: boolean, body: string) => `//@version=5\nindicator("${title}", overlay=${overlay})\n${body.trim()}\n`;

export const CORPUS: CorpusCase[] = [
  {
    name: 'SMA ribbon (multi-plot overlay)',
    pine: v5(
      'SMA ribbon',
      true,
      `
plot(ta.sma(close, 10), "SMA 10", color=color.blue)
plot(ta.sma(close, 20), "SMA 20", color=color.orange)
plot(ta.sma(hl2, 50), "SMA 50 hl2", color=color.red)`,
    ),
    py: `out['SMA 10'] = c.rolling(10).mean(); out['SMA 20'] = c.rolling(20).mean(); out['SMA 50 hl2'] = ((h + l) / 2).rolling(50).mean()`,
  },
  {
    name: 'EMA cross with inputs',
    pine: v5(
      'EMA cross',
      true,
      `
fastLen = input.int(9, "Fast")
slowLen = input.int(21, "Slow")
fast = ta.ema(close, fastLen)
slow = ta.ema(close, slowLen)
plot(fast, "Fast EMA")
plot(slow, "Slow EMA")
plotshape(ta.crossover(fast, slow), "Bull cross", style=shape.triangleup, location=location.belowbar)
plotshape(ta.crossunder(fast, slow), "Bear cross", style=shape.triangledown, location=location.abovebar)`,
    ),
    py: `f = c.ewm(span=9, adjust=False).mean(); s = c.ewm(span=21, adjust=False).mean()
out['Fast EMA'] = f; out['Slow EMA'] = s
sig['Bull cross'] = (f > s) & (f.shift() <= s.shift()); sig['Bear cross'] = (f < s) & (f.shift() >= s.shift())`,
  },
  {
    name: 'WMA and Hull MA (user function, nested windows)',
    pine: v5(
      'Hull',
      true,
      `
hma(src, len) =>
    ta.wma(2 * ta.wma(src, math.floor(len / 2)) - ta.wma(src, len), math.round(math.sqrt(len)))
plot(ta.wma(close, 14), "WMA")
plot(hma(close, 16), "HMA")`,
    ),
    py: `out['WMA'] = wma(c, 14); out['HMA'] = wma(2 * wma(c, 8) - wma(c, 16), 4)`,
  },
  {
    name: 'RMA and VWMA',
    pine: v5(
      'Averages',
      true,
      `
plot(ta.rma(close, 14), "RMA")
plot(ta.vwma(close, 20), "VWMA")`,
    ),
    py: `out['RMA'] = rma(c, 14); out['VWMA'] = (c * v).rolling(20).mean() / v.rolling(20).mean()`,
  },
  {
    name: 'RSI with overbought/oversold levels',
    pine: v5(
      'RSI',
      false,
      `
len = input.int(14, "RSI Length", minval=1)
src = input.source(close, "Source")
r = ta.rsi(src, len)
plot(r, "RSI", color=#7E57C2)
hline(70, "Upper Band", color=#787B86)
hline(30, "Lower Band", color=#787B86)
alertcondition(ta.crossunder(r, 30), "Oversold", "RSI crossed below 30")`,
    ),
    py: `d = c.diff(); g = rma(d.clip(lower=0), 14); lo = rma((-d).clip(lower=0), 14)
rsi = (100 * g / (g + lo)).mask(g + lo == 0, 50.0)
out['RSI'] = rsi; sig['Oversold'] = (rsi < 30) & (rsi.shift() >= 30)`,
  },
  {
    name: 'MACD tuple with histogram',
    pine: v5(
      'MACD',
      false,
      `
[macdLine, signalLine, hist] = ta.macd(close, 12, 26, 9)
plot(hist, "Histogram", style=plot.style_columns, color=(hist >= 0 ? color.teal : color.red))
plot(macdLine, "MACD", color=#2962FF)
plot(signalLine, "Signal", color=#FF6D00)
hline(0, "Zero")`,
    ),
    py: `m = c.ewm(span=12, adjust=False).mean() - c.ewm(span=26, adjust=False).mean(); s = m.ewm(span=9, adjust=False).mean()
out['MACD'] = m; out['Signal'] = s; out['Histogram'] = m - s`,
  },
  {
    name: 'Stochastic %K %D',
    pine: v5(
      'Stoch',
      false,
      `
periodK = input.int(14, "%K Length", minval=1)
smoothK = input.int(1, "%K Smoothing", minval=1)
periodD = input.int(3, "%D Smoothing", minval=1)
k = ta.sma(ta.stoch(close, high, low, periodK), smoothK)
d = ta.sma(k, periodD)
plot(k, "%K", color=#2962FF)
plot(d, "%D", color=#FF6D00)
h0 = hline(80, "Upper Band")
h1 = hline(20, "Lower Band")
fill(h0, h1, color=color.rgb(33, 150, 243, 90), title="Background")`,
    ),
    py: `hh = h.rolling(14).max(); ll = l.rolling(14).min()
k = (100 * (c - ll) / (hh - ll)).mask(hh == ll, 50.0)
out['%K'] = k; out['%D'] = k.rolling(3).mean()`,
  },
  {
    name: 'ATR and true range',
    pine: v5(
      'ATR',
      false,
      `
plot(ta.atr(14), "ATR")
plot(ta.tr, "TR")
plot(ta.tr(true), "TR na-handled")`,
    ),
    py: `pc = c.shift(); tr = pd.concat([h - l, (h - pc).abs(), (l - pc).abs()], axis=1).max(axis=1)
out['ATR'] = rma(tr, 14); out['TR'] = tr; out['TR na-handled'] = tr`,
  },
  {
    name: 'Bollinger Bands tuple',
    pine: v5(
      'BB',
      true,
      `
length = input.int(20, minval=1)
mult = input.float(2.0, minval=0.001, maxval=50)
[basis, upper, lower] = ta.bb(close, length, mult)
plot(basis, "Basis", color=#FF6D00)
p1 = plot(upper, "Upper", color=#2962FF)
p2 = plot(lower, "Lower", color=#2962FF)
fill(p1, p2, title="Background", color=color.rgb(33, 150, 243, 95))`,
    ),
    py: `m = c.rolling(20).mean(); sd = c.rolling(20).std(ddof=0)
out['Basis'] = m; out['Upper'] = m + 2 * sd; out['Lower'] = m - 2 * sd`,
  },
  {
    name: 'Bollinger %B and bandwidth from stdev (sample and population)',
    pine: v5(
      'BB %B',
      false,
      `
basis = ta.sma(close, 20)
dev = 2 * ta.stdev(close, 20)
plot((close - (basis - dev)) / (2 * dev), "%B")
plot(ta.stdev(close, 20, false), "Sample stdev")
plot(ta.variance(close, 10), "Variance")`,
    ),
    py: `b = c.rolling(20).mean(); dv = 2 * c.rolling(20).std(ddof=0)
out['%B'] = (c - (b - dv)) / (2 * dv); out['Sample stdev'] = c.rolling(20).std(ddof=1); out['Variance'] = c.rolling(10).std(ddof=0) ** 2`,
  },
  {
    name: 'Donchian channel',
    pine: v5(
      'Donchian',
      true,
      `
length = input.int(20, minval=1)
lower = ta.lowest(length)
upper = ta.highest(length)
basis = math.avg(upper, lower)
plot(basis, "Basis", color=#FF6D00)
plot(upper, "Upper", color=#2962FF)
plot(lower, "Lower", color=#2962FF)`,
    ),
    py: `up = h.rolling(20).max(); lo = l.rolling(20).min(); out['Upper'] = up; out['Lower'] = lo; out['Basis'] = (up + lo) / 2`,
  },
  {
    name: 'Aroon from highestbars/lowestbars',
    pine: v5(
      'Aroon',
      false,
      `
length = input.int(14, minval=1)
upper = 100 * (ta.highestbars(high, length + 1) + length) / length
lower = 100 * (ta.lowestbars(low, length + 1) + length) / length
plot(upper, "Aroon Up", color=#FB8C00)
plot(lower, "Aroon Down", color=#2962FF)`,
    ),
    py: `hb = h.rolling(15).apply(lambda w: -np.argmax(w[::-1]), raw=True); lb = l.rolling(15).apply(lambda w: -np.argmin(w[::-1]), raw=True)
out['Aroon Up'] = 100 * (hb + 14) / 14; out['Aroon Down'] = 100 * (lb + 14) / 14`,
  },
  {
    name: 'Momentum, change and rate of change',
    pine: v5(
      'Momentum',
      false,
      `
plot(ta.mom(close, 10), "Mom")
plot(ta.change(close), "Change 1")
plot(ta.change(close, 5), "Change 5")
plot(ta.roc(close, 9), "ROC")`,
    ),
    py: `out['Mom'] = c - c.shift(10); out['Change 1'] = c.diff(); out['Change 5'] = c - c.shift(5); out['ROC'] = 100 * (c - c.shift(9)) / c.shift(9)`,
  },
  {
    name: 'CCI and mean deviation',
    pine: v5(
      'CCI',
      false,
      `
length = input.int(20, minval=1)
src = input(hlc3, title="Source")
plot(ta.cci(src, length), "CCI")
plot(ta.dev(src, length), "Dev")
hline(100, "Upper Band")
hline(-100, "Lower Band")`,
    ),
    py: `tp = (h + l + c) / 3; md = tp.rolling(20).apply(lambda w: np.mean(np.abs(w - w.mean())), raw=True)
out['CCI'] = (tp - tp.rolling(20).mean()) / (0.015 * md); out['Dev'] = md`,
  },
  {
    name: 'Williams %R',
    pine: v5(
      'Williams %R',
      false,
      `
length = input(14, "Length")
_pr(length) =>
    max = ta.highest(length)
    min = ta.lowest(length)
    100 * (close - max) / (max - min)
percentR = _pr(length)
plot(percentR, "%R", color=#7E57C2)
hline(-20, "Upper Band")
hline(-80, "Lower Band")`,
    ),
    py: `mx = h.rolling(14).max(); mn = l.rolling(14).min(); out['%R'] = (100 * (c - mx) / (mx - mn)).mask(mx == mn)`,
  },
  {
    name: 'DMI / ADX tuple',
    pine: v5(
      'DMI',
      false,
      `
[diplus, diminus, adx] = ta.dmi(14, 14)
plot(adx, "ADX", color=#F50057)
plot(diplus, "+DI", color=#2962FF)
plot(diminus, "-DI", color=#FF6D00)`,
    ),
    py: `up = h.diff(); dn = -l.diff()
pdm = np.where(up.isna(), np.nan, np.where((up > dn) & (up > 0), up, 0.0)); mdm = np.where(dn.isna(), np.nan, np.where((dn > up) & (dn > 0), dn, 0.0))
pc = c.shift(); tr = pd.concat([h - l, (h - pc).abs(), (l - pc).abs()], axis=1).max(axis=1); trur = rma(tr, 14)
p = (100 * rma(pd.Series(pdm, index=c.index), 14) / trur).ffill(); m = (100 * rma(pd.Series(mdm, index=c.index), 14) / trur).ffill()
s = p + m; adx = 100 * rma((p - m).abs() / s.mask(s == 0, 1), 14)
out['+DI'] = p; out['-DI'] = m; out['ADX'] = adx`,
  },
  {
    name: 'On-balance volume',
    pine: v5(
      'OBV',
      false,
      `
plot(ta.obv, "OBV")
plot(ta.cum(volume), "Cum volume")`,
    ),
    py: `out['OBV'] = (np.sign(c.diff()) * v).fillna(0).cumsum(); out['Cum volume'] = v.cumsum()`,
  },
  {
    name: 'Parabolic SAR',
    pine: v5(
      'SAR',
      true,
      `
start = input(0.02)
increment = input(0.02)
maximum = input(0.2, "Max Value")
out = ta.sar(start, increment, maximum)
plot(out, "ParabolicSAR", style=plot.style_cross, color=#2962FF)`,
    ),
    py: `H = h.to_numpy(); L = l.to_numpy(); C = c.to_numpy(); n = len(C); res = np.full(n, np.nan)
result = np.nan; mm = np.nan; acc = np.nan; below = False
for i in range(n):
    first = False
    if i == 1:
        if C[i] > C[i-1]: below, mm, result = True, H[i], L[i-1]
        else: below, mm, result = False, L[i], H[i-1]
        first = True; acc = 0.02
    result = result + acc * (mm - result)
    if below:
        if result > L[i]: first, below, result, mm, acc = True, False, max(H[i], mm), L[i], 0.02
    else:
        if result < H[i]: first, below, result, mm, acc = True, True, min(L[i], mm), H[i], 0.02
    if not first:
        if below:
            if H[i] > mm: mm = H[i]; acc = min(acc + 0.02, 0.2)
        else:
            if L[i] < mm: mm = L[i]; acc = min(acc + 0.02, 0.2)
    if i >= 1:
        if below:
            result = min(result, L[i-1])
            if i > 1: result = min(result, L[i-2])
        else:
            result = max(result, H[i-1])
            if i > 1: result = max(result, H[i-2])
    res[i] = result
out['ParabolicSAR'] = res`,
  },
  {
    name: 'Supertrend tuple',
    pine: v5(
      'Supertrend',
      true,
      `
atrPeriod = input.int(10, "ATR Length", minval=1)
factor = input.float(3.0, "Factor", minval=0.01, step=0.01)
[supertrend, direction] = ta.supertrend(factor, atrPeriod)
upTrend = plot(direction < 0 ? supertrend : na, "Up Trend", color=color.green, style=plot.style_linebr)
downTrend = plot(direction < 0 ? na : supertrend, "Down Trend", color=color.red, style=plot.style_linebr)
plot(direction, "Direction", display=display.none)`,
    ),
    py: `pc = c.shift(); tr = pd.concat([h - l, (h - pc).abs(), (l - pc).abs()], axis=1).max(axis=1); atr = rma(tr, 10).to_numpy()
src = ((h + l) / 2).to_numpy(); C = c.to_numpy(); n = len(C)
st = np.full(n, np.nan); dr = np.full(n, np.nan); pl = np.nan; pu = np.nan; ps = np.nan
for i in range(n):
    up = src[i] + 3 * atr[i]; lo = src[i] - 3 * atr[i]
    plo = 0.0 if np.isnan(pl) else pl; pup = 0.0 if np.isnan(pu) else pu
    cprev = C[i-1] if i > 0 else np.nan
    lo = lo if (lo > plo or cprev < plo) else plo
    up = up if (up < pup or cprev > pup) else pup
    if i == 0: d = 1
    elif ps == pup: d = -1 if C[i] > up else 1
    else: d = 1 if C[i] < lo else -1
    s = lo if d == -1 else up
    st[i] = s; dr[i] = d; pl, pu, ps = lo, up, s
out['Up Trend'] = np.where(dr < 0, st, np.nan); out['Down Trend'] = np.where(dr < 0, np.nan, st); out['Direction'] = dr`,
  },
  {
    name: 'Keltner channel (EMA ± ATR)',
    pine: v5(
      'Keltner',
      true,
      `
length = input.int(20, minval=1)
mult = input(2.0, "Multiplier")
ma = ta.ema(close, length)
rangema = ta.atr(10)
upper = ma + rangema * mult
lower = ma - rangema * mult
plot(upper, "Upper", color=#2962FF)
plot(ma, "Basis", color=#2962FF)
plot(lower, "Lower", color=#2962FF)`,
    ),
    py: `pc = c.shift(); tr = pd.concat([h - l, (h - pc).abs(), (l - pc).abs()], axis=1).max(axis=1); ma = c.ewm(span=20, adjust=False).mean(); a = rma(tr, 10)
out['Upper'] = ma + a * 2.0; out['Basis'] = ma; out['Lower'] = ma - a * 2.0`,
  },
  {
    name: 'var state machine (breakout regime)',
    pine: v5(
      'Regime',
      false,
      `
var int regime = 0
hi = ta.highest(high, 20)[1]
lo = ta.lowest(low, 20)[1]
if close > hi
    regime := 1
else if close < lo
    regime := -1
plot(regime, "Regime")`,
    ),
    py: `hi = h.rolling(20).max().shift(); lo = l.rolling(20).min().shift(); r = 0; res = []
for x, a, b in zip(c, hi, lo):
    if x > a: r = 1
    elif x < b: r = -1
    res.append(r)
out['Regime'] = res`,
  },
  {
    name: 'var counters and varip',
    pine: v5(
      'Counters',
      false,
      `
var count = 0
varip ups = 0.0
if close > open
    count += 1
    ups := ups + (close - open)
plot(count, "Up bars")
plot(ups, "Up sum")`,
    ),
    py: `u = (c > o); out['Up bars'] = u.cumsum().astype(float); out['Up sum'] = ((c - o) * u).cumsum()`,
  },
  {
    name: 'z-score user function',
    pine: v5(
      'Z-score',
      false,
      `
zscore(src, len) =>
    mean = ta.sma(src, len)
    sd = ta.stdev(src, len)
    (src - mean) / sd
plot(zscore(close, 20), "Z close")
plot(zscore(volume, 50), "Z volume")
hline(2)
hline(-2)`,
    ),
    py: `out['Z close'] = (c - c.rolling(20).mean()) / c.rolling(20).std(ddof=0)
zv = (v - v.rolling(50).mean()) / v.rolling(50).std(ddof=0); out['Z volume'] = zv.mask(v.rolling(50).std(ddof=0) == 0)`,
  },
  {
    name: 'user function called at two sites keeps separate state',
    pine: v5(
      'Two sites',
      true,
      `
smooth(src, len = 10) =>
    e1 = ta.ema(src, len)
    ta.ema(e1, len)
plot(smooth(close), "DEMA-ish close")
plot(smooth(open, 30), "DEMA-ish open")`,
    ),
    py: `e = lambda s, n: s.ewm(span=n, adjust=False).mean(); out['DEMA-ish close'] = e(e(c, 10), 10); out['DEMA-ish open'] = e(e(o, 30), 30)`,
  },
  {
    name: 'tuple-returning user function',
    pine: v5(
      'Range',
      true,
      `
channel(len) =>
    [ta.highest(high, len), ta.lowest(low, len)]
[top, bottom] = channel(30)
plot(top, "Top")
plot(bottom, "Bottom")
plot((top + bottom) / 2, "Mid")`,
    ),
    py: `t = h.rolling(30).max(); b = l.rolling(30).min(); out['Top'] = t; out['Bottom'] = b; out['Mid'] = (t + b) / 2`,
  },
  {
    name: 'history references on variables and expressions',
    pine: v5(
      'History',
      false,
      `
x = close - open
plot(close - close[3], "Close diff 3")
plot(x[1], "Body prev")
plot(ta.sma(close, 5)[2], "SMA lag 2")
plot((high - low)[4], "Range lag 4")`,
    ),
    py: `out['Close diff 3'] = c - c.shift(3); out['Body prev'] = (c - o).shift(1); out['SMA lag 2'] = c.rolling(5).mean().shift(2); out['Range lag 4'] = (h - l).shift(4)`,
  },
  {
    name: 'na, nz and na()',
    pine: v5(
      'na handling',
      false,
      `
x = bar_index % 3 == 0 ? na : close
plot(nz(x, open), "nz")
plot(na(x) ? 1 : 0, "is na")
plot(nz(x[1]), "nz lag")
plot(x * 2, "na propagates")`,
    ),
    py: `i = np.arange(len(c)); x = c.where(i % 3 != 0)
out['nz'] = x.fillna(o); out['is na'] = x.isna().astype(float); out['nz lag'] = x.shift(1).fillna(0); out['na propagates'] = x * 2`,
  },
  {
    name: 'for loop manual average',
    pine: v5(
      'Loop SMA',
      true,
      `
len = input.int(12)
sum = 0.0
for i = 0 to len - 1
    sum += close[i]
plot(sum / len, "Loop SMA")`,
    ),
    py: `out['Loop SMA'] = c.rolling(12).mean()`,
  },
  {
    name: 'while loop scanning back',
    pine: v5(
      'Scan back',
      false,
      `
n = 0
while n < 50 and close[n + 1] <= close
    n += 1
plot(n, "Bars since higher close")`,
    ),
    py: `C = c.to_numpy(); res = []
for i in range(len(C)):
    n = 0
    while n < 50 and i - (n + 1) >= 0 and C[i - (n + 1)] <= C[i]: n += 1
    res.append(n)
out['Bars since higher close'] = res`,
  },
  {
    name: 'switch on a string input',
    pine: v5(
      'MA type',
      true,
      `
maType = input.string("EMA", "MA type", options=["SMA", "EMA", "WMA"])
len = input.int(25)
ma = switch maType
    "SMA" => ta.sma(close, len)
    "EMA" => ta.ema(close, len)
    => ta.wma(close, len)
plot(ma, "MA")`,
    ),
    py: `out['MA'] = c.ewm(span=25, adjust=False).mean()`,
  },
  {
    name: 'if / else if / else as a value',
    pine: v5(
      'RSI regime',
      false,
      `
r = ta.rsi(close, 14)
regime = if r > 60
    1
else if r < 40
    -1
else
    0
plot(regime, "Regime")`,
    ),
    py: `d = c.diff(); g = rma(d.clip(lower=0), 14); lo = rma((-d).clip(lower=0), 14); r = (100 * g / (g + lo)).mask(g + lo == 0, 50.0)
out['Regime'] = np.where(r > 60, 1, np.where(r < 40, -1, 0)).astype(float)`,
  },
  {
    name: 'math functions and ternaries',
    pine: v5(
      'Math',
      false,
      `
body = math.abs(close - open)
rng = high - low
ratio = rng == 0 ? 0 : body / rng
plot(ratio, "Body ratio")
plot(math.log(close / close[1]) * 10000, "Log return bp")
plot(math.sqrt(math.pow(high - low, 2) + math.pow(close - open, 2)), "Hypot")
plot(math.max(high - low, math.abs(high - close[1]), math.abs(low - close[1])), "TR by hand")`,
    ),
    py: `b = (c - o).abs(); rg = h - l; out['Body ratio'] = (b / rg).mask(rg == 0, 0.0); out['Log return bp'] = np.log(c / c.shift()) * 10000
out['Hypot'] = np.sqrt((h - l) ** 2 + (c - o) ** 2)
pc = c.shift(); out['TR by hand'] = pd.Series(np.fmax.reduce([h - l, (h - pc).abs(), (l - pc).abs()])).where(pc.notna())`,
  },
  {
    name: 'barssince and valuewhen',
    pine: v5(
      'Since',
      false,
      `
up = ta.crossover(close, ta.sma(close, 20))
plot(ta.barssince(up), "Bars since cross")
plot(ta.valuewhen(up, close, 0), "Close at last cross")
plot(ta.valuewhen(up, close, 1), "Close at cross before")`,
    ),
    py: `s = c.rolling(20).mean(); up = ((c > s) & (c.shift() <= s.shift())).to_numpy(); C = c.to_numpy()
last = -1; vals = []; a = []; b0 = []; b1 = []
for i in range(len(C)):
    if up[i]: last = i; vals.append(C[i])
    a.append(np.nan if last < 0 else i - last); b0.append(vals[-1] if vals else np.nan); b1.append(vals[-2] if len(vals) > 1 else np.nan)
out['Bars since cross'] = a; out['Close at last cross'] = b0; out['Close at cross before'] = b1`,
  },
  {
    name: 'pivot highs and lows',
    pine: v5(
      'Pivots',
      true,
      `
ph = ta.pivothigh(5, 5)
pl = ta.pivotlow(low, 5, 5)
plot(ph, "Pivot high", style=plot.style_circles)
plot(pl, "Pivot low", style=plot.style_circles)`,
    ),
    py: `def piv(x, hi):
    X = x.to_numpy(); r = np.full(len(X), np.nan)
    for i in range(10, len(X)):
        cnd = X[i - 5]; w = np.delete(X[i - 10:i + 1], 5)
        if (hi and np.all(cnd > w)) or (not hi and np.all(cnd < w)): r[i] = cnd
    return r
out['Pivot high'] = piv(h, True); out['Pivot low'] = piv(l, False)`,
  },
  {
    name: 'rising and falling',
    pine: v5(
      'Rising',
      false,
      `
plot(ta.rising(close, 3) ? 1 : 0, "Rising")
plot(ta.falling(close, 3) ? 1 : 0, "Falling")`,
    ),
    py: `out['Rising'] = ((c > c.shift(1)) & (c > c.shift(2)) & (c > c.shift(3))).astype(float); out['Falling'] = ((c < c.shift(1)) & (c < c.shift(2)) & (c < c.shift(3))).astype(float)`,
  },
  {
    name: 'TRIX (triple EMA of log price)',
    pine: v5(
      'TRIX',
      false,
      `
length = input.int(18, minval=1)
out = 10000 * ta.change(ta.ema(ta.ema(ta.ema(math.log(close), length), length), length))
plot(out, "TRIX", color=#F44336)
hline(0, "Zero")`,
    ),
    py: `e = lambda s: s.ewm(span=18, adjust=False).mean(); out['TRIX'] = 10000 * e(e(e(np.log(c)))).diff()`,
  },
  {
    name: 'Elder ray bull/bear power',
    pine: v5(
      'Elder',
      false,
      `
ema13 = ta.ema(close, 13)
plot(high - ema13, "Bull power", style=plot.style_histogram)
plot(low - ema13, "Bear power", style=plot.style_histogram)`,
    ),
    py: `e = c.ewm(span=13, adjust=False).mean(); out['Bull power'] = h - e; out['Bear power'] = l - e`,
  },
  {
    name: 'money flow with math.sum and volume',
    pine: v5(
      'MFI',
      false,
      `
length = input.int(14)
src = hlc3
upper = math.sum(volume * (ta.change(src) <= 0 ? 0 : src), length)
lower = math.sum(volume * (ta.change(src) >= 0 ? 0 : src), length)
plot(100.0 - (100.0 / (1.0 + upper / lower)), "MF", color=#7E57C2)
hline(80)
hline(20)`,
    ),
    py: `tp = (h + l + c) / 3; ch = tp.diff()
up = (v * tp.where(~(ch <= 0), 0.0)).rolling(14).sum(); lo = (v * tp.where(~(ch >= 0), 0.0)).rolling(14).sum()
out['MF'] = 100.0 - (100.0 / (1.0 + up / lo))`,
  },
  {
    name: 'array rolling window',
    pine: v5(
      'Array window',
      true,
      `
var a = array.new_float(0)
array.push(a, close)
if array.size(a) > 10
    array.shift(a)
plot(array.size(a) == 10 ? array.avg(a) : na, "Array avg")
plot(array.size(a) == 10 ? array.max(a) - array.min(a) : na, "Array range")`,
    ),
    py: `out['Array avg'] = c.rolling(10).mean(); out['Array range'] = c.rolling(10).max() - c.rolling(10).min()`,
  },
  {
    name: 'plotchar markers and time parts',
    pine: v5(
      'Sessions',
      false,
      `
london = hour >= 7 and hour < 16
plot(london ? 1 : 0, "London")
plot(dayofweek, "Day of week")
plotchar(london and not london[1], "London open", "L", location.top)
bgcolor(london ? color.new(color.blue, 90) : na)`,
    ),
    py: `lon = (hour >= 7) & (hour < 16); out['London'] = lon.astype(float); out['Day of week'] = (((dow + 1) % 7) + 1).astype(float)
sig['London open'] = lon & ~lon.shift(1, fill_value=False)`,
  },
  {
    name: 'strategy with entries and closes',
    pine: `//@version=5
strategy("RSI reversal", overlay=false)
r = ta.rsi(close, 7)
plot(r, "RSI 7")
if ta.crossover(r, 25)
    strategy.entry("Long", strategy.long)
if ta.crossunder(r, 75)
    strategy.entry("Short", strategy.short)
if ta.cross(r, 50)
    strategy.close_all()
`,
    py: `d = c.diff(); g = rma(d.clip(lower=0), 7); lo = rma((-d).clip(lower=0), 7); r = (100 * g / (g + lo)).mask(g + lo == 0, 50.0)
out['RSI 7'] = r; sig['Long'] = (r > 25) & (r.shift() <= 25); sig['Short'] = (r < 75) & (r.shift() >= 75)`,
  },
  {
    name: 'momentum with signal line and fixnan',
    pine: v5(
      'Mom signal',
      false,
      `
m = ta.mom(close, 10)
s = ta.sma(m, 5)
plot(m, "Mom")
plot(s, "Signal")
plot(fixnan(m > 0 ? m : na), "Last positive mom")`,
    ),
    py: `m = c - c.shift(10); out['Mom'] = m; out['Signal'] = m.rolling(5).mean(); out['Last positive mom'] = m.where(m > 0).ffill()`,
  },
  {
    name: 'for ... in over an array',
    pine: v5(
      'For in',
      false,
      `
lens = array.from(5, 10, 20)
total = 0.0
for len in lens
    total += close - close[len]
plot(total, "Sum of momenta")`,
    ),
    py: `out['Sum of momenta'] = (c - c.shift(5)) + (c - c.shift(10)) + (c - c.shift(20))`,
  },
  {
    name: 'window statistics, bands and volume built-ins',
    pine: v5(
      'Built-in pack',
      false,
      `
plot(ta.percentrank(close, 20), "Percent rank")
plot(ta.percentile_nearest_rank(close, 20, 30), "P30 nearest rank")
plot(ta.percentile_linear_interpolation(close, 20, 30), "P30 interpolated")
plot(ta.median(close, 10), "Median 10")
plot(ta.median(close, 9), "Median 9")
plot(ta.mode(math.round(close * 1000) / 1000, 20), "Mode")
plot(ta.range(close, 14), "Range")
plot(ta.cog(close, 10), "COG")
plot(ta.swma(close), "SWMA")
plot(ta.max(high), "All-time high")
plot(ta.min(low), "All-time low")
[kcM, kcU, kcL] = ta.kc(close, 20, 1.5)
plot(kcU, "KC upper")
plot(ta.kcw(close, 20, 1.5, false), "KC width hl")
plot(ta.bbw(close, 20, 2), "BB width")
plot(ta.accdist, "AccDist")
plot(ta.pvt, "PVT")
plot(ta.iii, "III")
plot(ta.wvad, "WVAD")
plot(ta.vwap(close, timeframe.change("W")), "Weekly VWAP")
plotshape(timeframe.change("60"), "New hour")
plotshape(timeframe.change("M"), "New month")`,
    ),
    py: `X = c.to_numpy(); n = len(X); pr = np.full(n, np.nan)
for i in range(20, n): pr[i] = np.sum(X[i - 20:i] <= X[i]) * 100 / 20
out['Percent rank'] = pr; srt = c.rolling(20).apply(lambda w: np.sort(w)[5], raw=True); srt7 = c.rolling(20).apply(lambda w: np.sort(w)[6], raw=True)
out['P30 nearest rank'] = srt; out['P30 interpolated'] = srt * (1 - 0.5) + srt7 * 0.5; out['Median 10'] = c.rolling(10).median(); out['Median 9'] = c.rolling(9).median()
def mode(w):
    u, k = np.unique(w, return_counts=True); return u[np.argmax(k)]
out['Mode'] = (np.floor(c * 1000 + 0.5) / 1000).rolling(20).apply(mode, raw=True)
out['Range'] = c.rolling(14).max() - c.rolling(14).min(); out['COG'] = c.rolling(10).apply(lambda w: -np.dot(w[::-1], np.arange(1, 11)) / w.sum(), raw=True)
out['SWMA'] = (c + 2 * c.shift(1) + 2 * c.shift(2) + c.shift(3)) / 6; out['All-time high'] = h.cummax(); out['All-time low'] = l.cummin()
b = ema(c, 20); out['KC upper'] = b + ema(tr, 20) * 1.5; e = ema(h - l, 20) * 1.5; out['KC width hl'] = ((b + e) - (b - e)) / b
m = c.rolling(20).mean(); sd = 2 * c.rolling(20).std(ddof=0); out['BB width'] = ((m + sd) - (m - sd)) / m * 100
fin = lambda s: s.replace([np.inf, -np.inf], np.nan)
out['AccDist'] = fin(((c - l) - (h - c)) / (h - l) * v).fillna(0).cumsum(); out['PVT'] = ((c - c.shift()) / c.shift() * v).fillna(0).cumsum()
out['III'] = fin((2 * c - h - l) / ((h - l) * v)); out['WVAD'] = fin((c - o) / (h - l) * v)
naive = t.dt.tz_localize(None); week = naive.dt.to_period('W-SAT'); grp = (week != week.shift()).cumsum()
out['Weekly VWAP'] = (c * v).groupby(grp).cumsum() / v.groupby(grp).cumsum()
hr = naive.dt.floor('h'); mo = naive.dt.to_period('M'); sig['New hour'] = hr != hr.shift(); sig['New month'] = mo != mo.shift()`,
  },
  {
    name: 'sessions, time functions, methods on arrays, strings and colors',
    pine: v5(
      'Sessions and methods',
      false,
      `
inLondon = not na(time(timeframe.period, "0700-1600"))
overnight = not na(time(timeframe.period, "2200-0200:23456"))
plot(inLondon ? 1 : 0, "London")
plot(overnight ? 1 : 0, "Overnight")
plot(time("D"), "Day start")
plot(time("W"), "Week start")
plot(hour(time) * 100 + minute(time, "UTC"), "HHMM")
plot(dayofweek(time("D")), "Day of week")
var closes = array.new_float()
closes.push(close)
if closes.size() > 20
    closes.shift()
plot(closes.size() == 20 ? closes.median() : na, "Median by methods")
plot(closes.size() == 20 ? closes.stdev(false) : na, "Sample stdev by methods")
plot(str.tonumber(str.tostring(close, "#.####")), "Rounded via strings")
plot(math.round_to_mintick(hl2), "HL2 to tick")
plot(color.t(color.from_gradient(ta.rsi(close, 14), 30, 70, color.new(color.red, 80), color.green)), "Gradient transparency")
plot(timeframe.in_seconds(), "Seconds")`,
    ),
    py: `tod = hour * 60 + t.dt.minute; out['London'] = ((tod >= 420) & (tod < 960)).astype(float)
out['Overnight'] = (((tod >= 1320) | (tod < 120)) & dow.isin([0, 1, 2, 3, 4])).astype(float)
ms = lambda s: (s - pd.Timestamp(0, tz='UTC')) // pd.Timedelta(milliseconds=1)
out['Day start'] = ms(t.dt.floor('D')).astype(float); out['Week start'] = ms(t.dt.tz_localize(None).dt.to_period('W-SAT').dt.start_time.dt.tz_localize('UTC')).astype(float)
out['HHMM'] = (hour * 100 + t.dt.minute).astype(float); out['Day of week'] = (((dow + 1) % 7) + 1).astype(float)
out['Median by methods'] = c.rolling(20).median(); out['Sample stdev by methods'] = c.rolling(20).std(ddof=1)
out['Rounded via strings'] = c.apply(lambda x: round(x, 4)); out['HL2 to tick'] = np.trunc((h + l) / 2 / 0.00001 + 0.5) / 100000
f = ((rsi(c, 14) - 30) / 40).clip(0, 1); alpha = np.floor((100 - (80 - 80 * f)) * 255 / 100 + 0.5)
out['Gradient transparency'] = np.floor((1 - alpha / 255) * 100 + 0.5); out['Seconds'] = pd.Series(900.0, index=c.index)`,
  },
  {
    name: 'crossings across na gaps compare with the last bar both sides were defined',
    pine: v5(
      'Gap cross',
      false,
      `
x = bar_index % 5 == 0 ? na : close
s = ta.sma(close, 10)
plotshape(ta.crossover(x, s), "Gap cross over")
plotshape(ta.crossunder(x, s), "Gap cross under")
plot(x, "Gapped close")`,
    ),
    py: `x = c.where(np.arange(len(c)) % 5 != 0); s = c.rolling(10).mean(); X = x.to_numpy(); S = s.to_numpy(); pa = pb = np.nan; up = []; dn = []
for i in range(len(X)):
    up.append(X[i] > S[i] and pa <= pb); dn.append(X[i] < S[i] and pa >= pb)
    if not np.isnan(X[i]) and not np.isnan(S[i]): pa, pb = X[i], S[i]
sig['Gap cross over'] = np.array(up); sig['Gap cross under'] = np.array(dn); out['Gapped close'] = x`,
  },
];
