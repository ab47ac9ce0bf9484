/**
 * Community indicators as traders paste them from TradingView (written in the style of the popular
 * public scripts, not copied): long headers, inputs with groups and tooltips, colour logic, nz()
 * trailing stops, var state machines, plot offsets, strategies. Each with its expected outputs
 * written independently in pandas, run by corpus.test.ts like the rest of the corpus.
 */
import type { CorpusCase } from './corpus.ts';

/** One script run as v5 and as v6: `and`, integer division and a branch's history, where the versions differ or agree. */
const semantics = (version: 5 | 6) => `//@version=${version}
indicator("v${version} semantics", overlay=false)
len = input.int(21, "Length")
upCross = close > open and ta.crossover(close, ta.sma(close, 10))
plotshape(upCross, "Up bar cross")
plot(7 / 2, "Int literals")
plot(len / 2, "Input half")
plot(ta.sma(close, len / 2), "SMA of half")
var float lastUp = na
if close > open
    body = close - open
    lastUp := body[1]
plot(lastUp, "Previous up body")
`;
/** What both versions plot alike but the integer literals' quotient. */
const semanticsPy = (
  quotient: number,
) => `out['Int literals'] = pd.Series(${quotient.toFixed(1)}, index=c.index); out['Input half'] = pd.Series(10.5, index=c.index); out['SMA of half'] = c.rolling(10).mean()
up = c > o; out['Previous up body'] = (c - o).where(up).ffill().shift(1).where(up).ffill()`;

export const COMMUNITY: CorpusCase[] = [
  {
    name: 'Squeeze Momentum (LazyBear style: linreg, Keltner from sma of tr, colour logic)',
    pine: `//
// Squeeze Momentum Indicator, in the LazyBear style
//
//@version=5
indicator(title = "Squeeze Momentum Indicator [LB style]", shorttitle="SQZMOM_LB", overlay=false)

length = input.int(20, title="BB Length")
mult = input.float(2.0,title="BB MultFactor")
lengthKC=input.int(20, title="KC Length")
multKC = input.float(1.5, title="KC MultFactor")

useTrueRange = input.bool(true, title="Use TrueRange (KC)")

// Calculate BB
source = close
basis = ta.sma(source, length)
dev = multKC * ta.stdev(source, length)
upperBB = basis + dev
lowerBB = basis - dev

// Calculate KC
ma = ta.sma(source, lengthKC)
range_1 = useTrueRange ? ta.tr : (high - low)
rangema = ta.sma(range_1, lengthKC)
upperKC = ma + rangema * multKC
lowerKC = ma - rangema * multKC

sqzOn  = (lowerBB > lowerKC) and (upperBB < upperKC)
sqzOff = (lowerBB < lowerKC) and (upperBB > upperKC)
noSqz  = (sqzOn == false) and (sqzOff == false)

val = ta.linreg(source  -  math.avg(math.avg(ta.highest(high, lengthKC), ta.lowest(low, lengthKC)),ta.sma(close,lengthKC)), lengthKC,0)

iff_1 = val > nz(val[1]) ? color.lime : color.green
iff_2 = val < nz(val[1]) ? color.red : color.maroon
bcolor = val > 0 ? iff_1 : iff_2
scolor = noSqz ? color.blue : sqzOn ? color.black : color.gray
plot(val, color=bcolor, style=plot.style_histogram, linewidth=4, title="Momentum")
plot(0, color=scolor, style=plot.style_cross, linewidth=2, title="Squeeze")
`,
    py: `hh = h.rolling(20).max(); ll = l.rolling(20).min()
out['Momentum'] = linreg(c - ((hh + ll) / 2 + c.rolling(20).mean()) / 2, 20); out['Squeeze'] = pd.Series(0.0, index=c.index)`,
  },
  {
    name: 'WaveTrend oscillator (LazyBear style)',
    pine: `//@version=5
indicator(title="WaveTrend [LazyBear]", shorttitle="WT_LB")
n1 = input(10, "Channel Length")
n2 = input(21, "Average Length")
obLevel1 = input(60, "Over Bought Level 1")
obLevel2 = input(53, "Over Bought Level 2")
osLevel1 = input(-60, "Over Sold Level 1")
osLevel2 = input(-53, "Over Sold Level 2")

ap = hlc3
esa = ta.ema(ap, n1)
d = ta.ema(math.abs(ap - esa), n1)
ci = (ap - esa) / (0.015 * d)
tci = ta.ema(ci, n2)

wt1 = tci
wt2 = ta.sma(wt1,4)

plot(0, color=color.gray)
plot(obLevel1, color=color.red)
plot(osLevel1, color=color.green)
plot(obLevel2, color=color.red, style=plot.style_circles)
plot(osLevel2, color=color.green, style=plot.style_circles)

plot(wt1, color=color.green, title="WT1")
plot(wt2, color=color.red, style=plot.style_circles, title="WT2")
plot(wt1-wt2, color=color.blue, style=plot.style_area, title="WT diff", transp=80)
plot(ta.cross(wt1, wt2) ? wt2 : na, color = color.black , style = plot.style_circles, linewidth = 3, title="Cross")
plotshape(ta.crossover(wt1, wt2) and wt1 < osLevel2, "Buy", shape.circle, location.bottom, color.green)
`,
    py: `ap = (h + l + c) / 3; esa = ema(ap, 10); d = ema((ap - esa).abs(), 10)
wt1 = ema((ap - esa) / (0.015 * d), 21); wt2 = wt1.rolling(4).mean()
out['WT1'] = wt1; out['WT2'] = wt2; out['WT diff'] = wt1 - wt2; out['Cross'] = wt2.where(over(wt1, wt2) | over(wt2, wt1))
sig['Buy'] = over(wt1, wt2) & (wt1 < -53)`,
  },
  {
    name: 'UT Bot alerts (nz(x[1]) trailing stop, ternaries)',
    pine: `//@version=5
indicator(title="UT Bot Alerts", overlay = true)

// Inputs
a = input(1, title = "Key Vaule. 'This changes the sensitivity'")
c = input(10, title = "ATR Period")
h = input(false, title = "Signals from Heikin Ashi Candles")

xATR  = ta.atr(c)
nLoss = a * xATR

src = close

xATRTrailingStop = 0.0
iff_1 = src > nz(xATRTrailingStop[1], 0) ? src - nLoss : src + nLoss
iff_2 = src < nz(xATRTrailingStop[1], 0) and src[1] < nz(xATRTrailingStop[1], 0) ? math.min(nz(xATRTrailingStop[1]), src + nLoss) : iff_1
xATRTrailingStop := src > nz(xATRTrailingStop[1], 0) and src[1] > nz(xATRTrailingStop[1], 0) ? math.max(nz(xATRTrailingStop[1]), src - nLoss) : iff_2

pos = 0
iff_3 = src[1] > nz(xATRTrailingStop[1], 0) and src < nz(xATRTrailingStop[1], 0) ? -1 : nz(pos[1], 0)
pos := src[1] < nz(xATRTrailingStop[1], 0) and src > nz(xATRTrailingStop[1], 0) ? 1 : iff_3

xcolor = pos == -1 ? color.red: pos == 1 ? color.green : color.blue

ema   = ta.ema(src,1)
above = ta.crossover(ema, xATRTrailingStop)
below = ta.crossover(xATRTrailingStop, ema)

buy  = src > xATRTrailingStop and above
sell = src < xATRTrailingStop and below

barbuy  = src > xATRTrailingStop
barsell = src < xATRTrailingStop

plot(xATRTrailingStop, "Trailing Stop", color = xcolor)
plotshape(buy,  title = "Buy",  text = 'Buy',  style = shape.labelup,   location = location.belowbar, color= color.green, textcolor = color.white, size = size.tiny)
plotshape(sell, title = "Sell", text = 'Sell', style = shape.labeldown, location = location.abovebar, color= color.red,   textcolor = color.white, size = size.tiny)

barcolor(barbuy  ? color.green : na)
barcolor(barsell ? color.red   : na)

alertcondition(buy,  "UT Long",  "UT Long")
alertcondition(sell, "UT Short", "UT Short")
`,
    py: `atr = rma(tr, 10).to_numpy(); C = c.to_numpy(); n = len(C); st = np.zeros(n)
for i in range(n):
    prev = st[i - 1] if i > 0 else 0.0; p1 = C[i - 1] if i > 0 else np.nan
    iff1 = C[i] - atr[i] if C[i] > prev else C[i] + atr[i]
    iff2 = min(prev, C[i] + atr[i]) if (C[i] < prev and p1 < prev) else iff1
    st[i] = max(prev, C[i] - atr[i]) if (C[i] > prev and p1 > prev) else iff2
stop = pd.Series(st); buy = (c > stop) & over(c, stop); sell = (c < stop) & over(stop, c)
out['Trailing Stop'] = stop; sig['Buy'] = buy; sig['Sell'] = sell; sig['UT Long'] = buy; sig['UT Short'] = sell`,
  },
  {
    name: 'Chandelier Exit (var direction, stops carried with nz(x[1], x))',
    pine: `//@version=5
// Chandelier Exit, everget style
indicator('Chandelier Exit', shorttitle='CE', overlay=true)

var string calcGroup = 'Calculation'
length = input.int(title='ATR Period', defval=22, group=calcGroup)
mult = input.float(title='ATR Multiplier', step=0.1, defval=3.0, group=calcGroup)
useClose = input.bool(title='Use Close Price for Extremums', defval=true, group=calcGroup)

var string visualGroup = 'Visuals'
showLabels = input.bool(title='Show Buy/Sell Labels', defval=true, group=visualGroup)
highlightState = input.bool(title='Highlight State', defval=true, group=visualGroup)

atr = mult * ta.atr(length)

longStop = (useClose ? ta.highest(close, length) : ta.highest(length)) - atr
longStopPrev = nz(longStop[1], longStop)
longStop := close[1] > longStopPrev ? math.max(longStop, longStopPrev) : longStop

shortStop = (useClose ? ta.lowest(close, length) : ta.lowest(length)) + atr
shortStopPrev = nz(shortStop[1], shortStop)
shortStop := close[1] < shortStopPrev ? math.min(shortStop, shortStopPrev) : shortStop

var int dir = 1
dir := close > shortStopPrev ? 1 : close < longStopPrev ? -1 : dir

var color longColor = color.green
var color shortColor = color.red

longStopPlot = plot(dir == 1 ? longStop : na, title='Long Stop', style=plot.style_linebr, linewidth=2, color=color.new(longColor, 0))
buySignal = dir == 1 and dir[1] == -1
plotshape(buySignal ? longStop : na, title='Long Stop Start', location=location.absolute, style=shape.circle, size=size.tiny, color=color.new(longColor, 0))
plotshape(buySignal and showLabels ? longStop : na, title='Buy Label', text='Buy', location=location.absolute, style=shape.labelup, size=size.tiny, color=color.new(longColor, 0), textcolor=color.new(color.white, 0))

shortStopPlot = plot(dir == 1 ? na : shortStop, title='Short Stop', style=plot.style_linebr, linewidth=2, color=color.new(shortColor, 0))
sellSignal = dir == -1 and dir[1] == 1
plotshape(sellSignal ? shortStop : na, title='Short Stop Start', location=location.absolute, style=shape.circle, size=size.tiny, color=color.new(shortColor, 0))

midPricePlot = plot(ohlc4, title='', style=plot.style_circles, linewidth=0, display=display.none, editable=false)

longFillColor = highlightState ? dir == 1 ? longColor : na : na
shortFillColor = highlightState ? dir == -1 ? shortColor : na : na
fill(midPricePlot, longStopPlot, title='Long State Filling', color=longFillColor)
fill(midPricePlot, shortStopPlot, title='Short State Filling', color=shortFillColor)

changeCond = dir != dir[1]
alertcondition(changeCond, title='Alert: CE Direction Change', message='Chandelier Exit has changed direction!')
alertcondition(buySignal, title='Alert: CE Buy', message='Chandelier Exit Buy!')
alertcondition(sellSignal, title='Alert: CE Sell', message='Chandelier Exit Sell!')
`,
    py: `atr = 3 * rma(tr, 22); HC = (c.rolling(22).max() - atr).to_numpy(); LC = (c.rolling(22).min() + atr).to_numpy(); C = c.to_numpy(); n = len(C)
ls = np.full(n, np.nan); ss = np.full(n, np.nan); d = np.ones(n); dr = 1
for i in range(n):
    lprev = ls[i - 1] if i > 0 and not np.isnan(ls[i - 1]) else HC[i]
    ls[i] = max(HC[i], lprev) if (i > 0 and C[i - 1] > lprev) else HC[i]
    sprev = ss[i - 1] if i > 0 and not np.isnan(ss[i - 1]) else LC[i]
    ss[i] = min(LC[i], sprev) if (i > 0 and C[i - 1] < sprev) else LC[i]
    dr = 1 if C[i] > sprev else (-1 if C[i] < lprev else dr); d[i] = dr
L = pd.Series(ls); S = pd.Series(ss); D = pd.Series(d)
out['Long Stop'] = L.where(D == 1); out['Short Stop'] = S.where(D != 1)
buy = (D == 1) & (D.shift() == -1); sell = (D == -1) & (D.shift() == 1)
sig['Long Stop Start'] = buy & L.notna() & (L != 0); sig['Buy Label'] = sig['Long Stop Start']; sig['Short Stop Start'] = sell & S.notna() & (S != 0)
sig['Alert: CE Direction Change'] = (D != D.shift()) & D.shift().notna(); sig['Alert: CE Buy'] = buy; sig['Alert: CE Sell'] = sell`,
  },
  {
    name: 'SSL channel (int(na) carried with x[1])',
    pine: `//@version=5
indicator('SSL channel', overlay=true)
period = input(title='Period', defval=10)
len = input(title='Period', defval=10)
smaHigh = ta.sma(high, len)
smaLow = ta.sma(low, len)
Hlv = int(na)
Hlv := close > smaHigh ? 1 : close < smaLow ? -1 : Hlv[1]
sslDown = Hlv < 0 ? smaHigh : smaLow
sslUp = Hlv < 0 ? smaLow : smaHigh

plot(sslDown, linewidth=2, color=color.new(color.red, 0), title="SSL Down")
plot(sslUp, linewidth=2, color=color.new(color.lime, 0), title="SSL Up")
`,
    py: `SH = h.rolling(10).mean().to_numpy(); SL = l.rolling(10).mean().to_numpy(); C = c.to_numpy(); hlv = np.full(len(C), np.nan); prev = np.nan
for i in range(len(C)):
    prev = 1.0 if C[i] > SH[i] else (-1.0 if C[i] < SL[i] else prev); hlv[i] = prev
neg = hlv < 0; out['SSL Down'] = np.where(neg, SH, SL); out['SSL Up'] = np.where(neg, SL, SH)`,
  },
  {
    name: 'Hull Suite (user functions, int length / 2, ta.hma)',
    pine: `//@version=5
indicator('Hull Suite', overlay=true)
src = input(close, title='Source')
modeSwitch = input.string('Hma', title='Hull Variation', options=['Hma', 'Thma', 'Ehma'])
length = input(55, title='Length(180-200 for floating S/R , 55 for swing entry)')
lengthMult = input(1.0, title='Length multiplier (Used to view higher timeframes with straight band)')

useHtf = input(false, title='Show Hull MA from X timeframe? (good for scalping)')
htf = input.timeframe('240', title='Higher timeframe')

switchColor = input(true, 'Color Hull according to trend?')
candleCol = input(false, title='Color candles based on Hull\\'s Trend?')
visualSwitch = input(true, title='Show as a Band?')
thicknesSwitch = input(1, title='Line Thickness')
transpSwitch = input.int(40, title='Band Transparency', step=5)

//FUNCTIONS
//HMA
HMA(_src, _length) =>
    ta.wma(2 * ta.wma(_src, _length / 2) - ta.wma(_src, _length), math.round(math.sqrt(_length)))
//EHMA
EHMA(_src, _length) =>
    ta.ema(2 * ta.ema(_src, _length / 2) - ta.ema(_src, _length), math.round(math.sqrt(_length)))
//THMA
THMA(_src, _length) =>
    ta.wma(ta.wma(_src, _length / 3) * 3 - ta.wma(_src, _length / 2) - ta.wma(_src, _length), _length)

//SWITCH
Mode(modeSwitch, src, len) =>
    modeSwitch == 'Hma' ? HMA(src, len) : modeSwitch == 'Ehma' ? EHMA(src, len) : modeSwitch == 'Thma' ? THMA(src, len / 2) : na

//OUT
_hull = Mode(modeSwitch, src, int(length * lengthMult))
HULL = _hull
MHULL = HULL[0]
SHULL = HULL[2]

//COLOR
hullColor = switchColor ? HULL > HULL[2] ? #00ff00 : #ff0000 : #ff9800

//PLOT
///< Frame
Fi1 = plot(MHULL, title='MHULL', color=hullColor, linewidth=thicknesSwitch, transp=50)
Fi2 = plot(visualSwitch ? SHULL : na, title='SHULL', color=hullColor, linewidth=thicknesSwitch, transp=50)
alertcondition(ta.crossover(MHULL, SHULL), title='Hull trending up.', message='Hull trending up.')
alertcondition(ta.crossover(SHULL, MHULL), title='Hull trending down.', message='Hull trending down.')
///< Ending Filler
fill(Fi1, Fi2, title='Band Filler', color=hullColor, transp=transpSwitch)
///BARCOLOR
barcolor(candleCol ? switchColor ? hullColor : na : na)
plot(ta.hma(close, 20), "ta.hma 20")
`,
    py: `hma = lambda s, n, root: wma(2 * wma(s, n // 2) - wma(s, n), root)
# int(55 * 1.0) / 2 is 27.5, taken as 27 where a length is expected; round(sqrt(55)) = 7
hull = hma(c, 55, 7); out['MHULL'] = hull; out['SHULL'] = hull.shift(2); out['ta.hma 20'] = hma(c, 20, 4)
sig['Hull trending up.'] = over(hull, hull.shift(2)); sig['Hull trending down.'] = over(hull.shift(2), hull)`,
  },
  {
    name: 'QQE (RSI bands with history of reassigned variables)',
    pine: `//@version=5
indicator("QQE MOD-style", overlay=false)
RSI_Period = input(6, title='RSI Length')
SF = input(5, title='RSI Smoothing')
QQE = input(3, title='Fast QQE Factor')
ThreshHold = input(3, title="Thresh-hold")

src = input(close, title="RSI Source")

Wilders_Period = RSI_Period * 2 - 1

Rsi = ta.rsi(src, RSI_Period)
RsiMa = ta.ema(Rsi, SF)
AtrRsi = math.abs(RsiMa[1] - RsiMa)
MaAtrRsi = ta.ema(AtrRsi, Wilders_Period)
dar = ta.ema(MaAtrRsi, Wilders_Period) * QQE

longband = 0.0
shortband = 0.0
trend = 0

DeltaFastAtrRsi = dar
RSIndex = RsiMa
newshortband = RSIndex + DeltaFastAtrRsi
newlongband = RSIndex - DeltaFastAtrRsi
longband := RSIndex[1] > longband[1] and RSIndex > longband[1] ? math.max(longband[1], newlongband) : newlongband
shortband := RSIndex[1] < shortband[1] and RSIndex < shortband[1] ? math.min(shortband[1], newshortband) : newshortband
cross_1 = ta.cross(longband[1], RSIndex)
trend := ta.cross(RSIndex, shortband[1]) ? 1 : cross_1 ? -1 : nz(trend[1], 1)
FastAtrRsiTL = trend == 1 ? longband : shortband

plot(FastAtrRsiTL - 50, title='QQE Line', color=color.white, linewidth=2)
plot(RsiMa - 50, color=color.new(color.gray, 50), title='RSI MA', style=plot.style_columns)
hline(0, color=color.white, linestyle=hline.style_dotted)
Greenbar1 = RsiMa - 50 > ThreshHold
Redbar1 = RsiMa - 50 < 0 - ThreshHold
plotshape(Greenbar1 and not Greenbar1[1], "QQE up", shape.triangleup, location.bottom, color.green)
`,
    py: `rm = ema(rsi(c, 6), 5); dar = ema(ema((rm.shift() - rm).abs(), 11), 11) * 3; RM = rm.to_numpy(); DAR = dar.to_numpy(); n = len(RM)
lb = np.full(n, np.nan); sb = np.full(n, np.nan)
for i in range(n):
    pl = lb[i - 1] if i > 0 else np.nan; ps = sb[i - 1] if i > 0 else np.nan; pr = RM[i - 1] if i > 0 else np.nan
    lb[i] = nmax(pl, RM[i] - DAR[i]) if (pr > pl and RM[i] > pl) else RM[i] - DAR[i]
    sb[i] = nmin(ps, RM[i] + DAR[i]) if (pr < ps and RM[i] < ps) else RM[i] + DAR[i]
LB = pd.Series(lb); SB = pd.Series(sb); R = pd.Series(RM)
c1 = (over(LB.shift(), R) | over(R, LB.shift())).to_numpy(); c0 = (over(R, SB.shift()) | over(SB.shift(), R)).to_numpy()
trend = np.zeros(n); t_ = 1.0
for i in range(n):
    t_ = 1.0 if c0[i] else (-1.0 if c1[i] else t_); trend[i] = t_
out['QQE Line'] = np.where(trend == 1, lb, sb) - 50; out['RSI MA'] = rm - 50
g = rm - 50 > 3; sig['QQE up'] = g & ~g.shift(1, fill_value=False)`,
  },
  {
    name: 'HalfTrend (var state machine, high[abs(ta.highestbars(2))] with an na offset)',
    pine: `//@version=5
indicator('HalfTrend', overlay=true)

amplitude = input(title='Amplitude', defval=2)
channelDeviation = input(title='Channel Deviation', defval=2)
showArrows = input(title='Show Arrows', defval=true)
showChannels = input(title='Show Channels', defval=true)

var int trend = 0
var int nextTrend = 0
var float maxLowPrice = nz(low[1], low)
var float minHighPrice = nz(high[1], high)

var float up = 0.0
var float down = 0.0
float atrHigh = 0.0
float atrLow = 0.0
float arrowUp = na
float arrowDown = na

atr2 = ta.atr(100) / 2
dev = channelDeviation * atr2

highPrice = high[math.abs(ta.highestbars(amplitude))]
lowPrice = low[math.abs(ta.lowestbars(amplitude))]
highma = ta.sma(high, amplitude)
lowma = ta.sma(low, amplitude)

if nextTrend == 1
    maxLowPrice := math.max(lowPrice, maxLowPrice)

    if highma < maxLowPrice and close < nz(low[1], low)
        trend := 1
        nextTrend := 0
        minHighPrice := highPrice
        minHighPrice
else
    minHighPrice := math.min(highPrice, minHighPrice)

    if lowma > minHighPrice and close > nz(high[1], high)
        trend := 0
        nextTrend := 1
        maxLowPrice := lowPrice
        maxLowPrice

if trend == 0
    if not na(trend[1]) and trend[1] != 0
        up := na(down[1]) ? down : down[1]
        arrowUp := up - atr2
        arrowUp
    else
        up := na(up[1]) ? maxLowPrice : math.max(maxLowPrice, up[1])
        up
    atrHigh := up + dev
    atrLow := up - dev
    atrLow
else
    if not na(trend[1]) and trend[1] != 1
        down := na(up[1]) ? up : up[1]
        arrowDown := down + atr2
        arrowDown
    else
        down := na(down[1]) ? minHighPrice : math.min(minHighPrice, down[1])
        down
    atrHigh := down + dev
    atrLow := down - dev
    atrLow

ht = trend == 0 ? up : down

var color buyColor = color.blue
var color sellColor = color.red

htColor = trend == 0 ? buyColor : sellColor
htPlot = plot(ht, title='HalfTrend', linewidth=2, color=htColor)

atrHighPlot = plot(showChannels ? atrHigh : na, title='ATR High', style=plot.style_circles, color=color.new(sellColor, 0))
atrLowPlot = plot(showChannels ? atrLow : na, title='ATR Low', style=plot.style_circles, color=color.new(buyColor, 0))

fill(htPlot, atrHighPlot, title='ATR High Ribbon', color=color.new(sellColor, 90))
fill(htPlot, atrLowPlot, title='ATR Low Ribbon', color=color.new(buyColor, 90))

buySignal = not na(arrowUp) and trend == 0 and trend[1] == 1
sellSignal = not na(arrowDown) and trend == 1 and trend[1] == 0

plotshape(showArrows and buySignal ? atrLow : na, title='Arrow Up', style=shape.triangleup, location=location.absolute, size=size.tiny, color=color.new(buyColor, 0))
plotshape(showArrows and sellSignal ? atrHigh : na, title='Arrow Down', style=shape.triangledown, location=location.absolute, size=size.tiny, color=color.new(sellColor, 0))

alertcondition(buySignal, title='Alert: HalfTrend Buy', message='HalfTrend Buy')
alertcondition(sellSignal, title='Alert: HalfTrend Sell', message='HalfTrend Sell')
`,
    py: `atr2 = (rma(tr, 100) / 2).to_numpy(); dev = 2 * atr2; H = h.to_numpy(); L = l.to_numpy(); C = c.to_numpy(); n = len(C)
HM = h.rolling(2).mean().to_numpy(); LM = l.rolling(2).mean().to_numpy()
trend = 0; nxt = 0; maxlow = L[0]; minhigh = H[0]; up = 0.0; down = 0.0
trends = np.zeros(n); ups = np.zeros(n); downs = np.zeros(n); ah = np.zeros(n); al = np.zeros(n); buy = np.zeros(n, bool); sell = np.zeros(n, bool)
for i in range(n):
    # high[abs(ta.highestbars(2))]: the higher of the last two highs; on the first bar the offset is na, read as 0
    hp = H[i] if i == 0 else max(H[i], H[i - 1]); lp = L[i] if i == 0 else min(L[i], L[i - 1])
    prevtrend = trends[i - 1] if i > 0 else np.nan; pu = ups[i - 1] if i > 0 else np.nan; pdn = downs[i - 1] if i > 0 else np.nan
    arrow_up = np.nan; arrow_down = np.nan
    if nxt == 1:
        maxlow = nmax(lp, maxlow)
        if HM[i] < maxlow and C[i] < (L[i - 1] if i > 0 else L[i]): trend = 1; nxt = 0; minhigh = hp
    else:
        minhigh = nmin(hp, minhigh)
        if LM[i] > minhigh and C[i] > (H[i - 1] if i > 0 else H[i]): trend = 0; nxt = 1; maxlow = lp
    if trend == 0:
        if not np.isnan(prevtrend) and prevtrend != 0:
            up = down if np.isnan(pdn) else pdn; arrow_up = up - atr2[i]
        else:
            up = maxlow if np.isnan(pu) else nmax(maxlow, pu)
        ah[i] = up + dev[i]; al[i] = up - dev[i]
    else:
        if not np.isnan(prevtrend) and prevtrend != 1:
            down = up if np.isnan(pu) else pu; arrow_down = down + atr2[i]
        else:
            down = minhigh if np.isnan(pdn) else nmin(minhigh, pdn)
        ah[i] = down + dev[i]; al[i] = down - dev[i]
    trends[i] = trend; ups[i] = up; downs[i] = down
    buy[i] = not np.isnan(arrow_up) and trend == 0 and prevtrend == 1; sell[i] = not np.isnan(arrow_down) and trend == 1 and prevtrend == 0
out['HalfTrend'] = np.where(trends == 0, ups, downs); out['ATR High'] = ah; out['ATR Low'] = al
sig['Arrow Up'] = buy & (al != 0); sig['Arrow Down'] = sell & (ah != 0); sig['Alert: HalfTrend Buy'] = buy; sig['Alert: HalfTrend Sell'] = sell`,
  },
  {
    name: 'ADX and DI, hand-rolled with nz() (v5 classic)',
    pine: `//@version=5
indicator("ADX and DI for v5", overlay=false)
len = input(14)
th = input(20)

TrueRange = math.max(math.max(high - low, math.abs(high - nz(close[1]))), math.abs(low - nz(close[1])))
DirectionalMovementPlus = high - nz(high[1]) > nz(low[1]) - low ? math.max(high - nz(high[1]), 0) : 0
DirectionalMovementMinus = nz(low[1]) - low > high - nz(high[1]) ? math.max(nz(low[1]) - low, 0) : 0

SmoothedTrueRange = 0.0
SmoothedTrueRange := nz(SmoothedTrueRange[1]) - nz(SmoothedTrueRange[1]) / len + TrueRange

SmoothedDirectionalMovementPlus = 0.0
SmoothedDirectionalMovementPlus := nz(SmoothedDirectionalMovementPlus[1]) - nz(SmoothedDirectionalMovementPlus[1]) / len + DirectionalMovementPlus

SmoothedDirectionalMovementMinus = 0.0
SmoothedDirectionalMovementMinus := nz(SmoothedDirectionalMovementMinus[1]) - nz(SmoothedDirectionalMovementMinus[1]) / len + DirectionalMovementMinus

DIPlus = SmoothedDirectionalMovementPlus / SmoothedTrueRange * 100
DIMinus = SmoothedDirectionalMovementMinus / SmoothedTrueRange * 100
DX = math.abs(DIPlus - DIMinus) / (DIPlus + DIMinus) * 100
ADX = ta.sma(DX, len)

plot(DIPlus, color=color.new(color.green, 0), title='DI+')
plot(DIMinus, color=color.new(color.red, 0), title='DI-')
plot(ADX, color=color.new(color.navy, 0), title='ADX')
hline(th, color=color.black)
`,
    py: `pc0 = c.shift().fillna(0); ph0 = h.shift().fillna(0); pl0 = l.shift().fillna(0)
TR = np.maximum(np.maximum(h - l, (h - pc0).abs()), (l - pc0).abs()).to_numpy()
DP = np.where(h - ph0 > pl0 - l, np.maximum(h - ph0, 0), 0); DM = np.where(pl0 - l > h - ph0, np.maximum(pl0 - l, 0), 0)
n = len(TR); s = np.zeros((3, n)); prev = [0.0, 0.0, 0.0]
for i in range(n):
    for k, x in enumerate((TR[i], DP[i], DM[i])):
        prev[k] = prev[k] - prev[k] / 14 + x; s[k, i] = prev[k]
dip = pd.Series(s[1] / s[0] * 100); dim = pd.Series(s[2] / s[0] * 100)
out['DI+'] = dip; out['DI-'] = dim; out['ADX'] = ((dip - dim).abs() / (dip + dim) * 100).rolling(14).mean()`,
  },
  {
    name: 'Vortex indicator (math.sum, ta.atr(1))',
    pine: `//@version=5
indicator(title = "Vortex Indicator", shorttitle="VI", format=format.price, precision=4, timeframe="", timeframe_gaps=true)
period_ = input.int(14, title="Length", minval=2)
VMP = math.sum( math.abs( high - low[1]), period_ )
VMM = math.sum( math.abs( low - high[1]), period_ )
STR = math.sum( ta.atr(1), period_ )
VIP = VMP / STR
VIM = VMM / STR
plot(VIP, title="VI +", color=#2962FF)
plot(VIM, title="VI -", color=#E91E63)
`,
    py: `s = tr.rolling(14).sum(); out['VI +'] = (h - l.shift()).abs().rolling(14).sum() / s; out['VI -'] = (l - h.shift()).abs().rolling(14).sum() / s`,
  },
  {
    name: 'Ichimoku cloud (donchian midlines, plot offsets, wrapped arguments)',
    pine: `//@version=5
indicator(title="Ichimoku Cloud", shorttitle="Ichimoku", overlay=true)
conversionPeriods = input.int(9, minval=1, title="Conversion Line Length")
basePeriods = input.int(26, minval=1, title="Base Line Length")
laggingSpan2Periods = input.int(52, minval=1, title="Leading Span B Length")
displacement = input.int(26, minval=1, title="Lagging Span")
donchian(len) => math.avg(ta.lowest(len), ta.highest(len))
conversionLine = donchian(conversionPeriods)
baseLine = donchian(basePeriods)
leadLine1 = math.avg(conversionLine, baseLine)
leadLine2 = donchian(laggingSpan2Periods)
plot(conversionLine, color=#2962FF, title="Conversion Line")
plot(baseLine, color=#B71C1C, title="Base Line")
plot(close, offset = -displacement + 1, color=#43A047, title="Lagging Span")
p1 = plot(leadLine1, offset = displacement - 1, color=#A5D6A7,
	 title="Leading Span A")
p2 = plot(leadLine2, offset = displacement - 1, color=#EF9A9A,
	 title="Leading Span B")
plot(leadLine1 > leadLine2 ? leadLine1 : leadLine2, offset = displacement - 1, title = "Kumo Cloud Upper Line", display = display.none) 
plot(leadLine1 < leadLine2 ? leadLine1 : leadLine2, offset = displacement - 1, title = "Kumo Cloud Lower Line", display = display.none) 
fill(p1, p2, color = leadLine1 > leadLine2 ? color.rgb(67, 160, 71, 90) : color.rgb(244, 67, 54, 90))
`,
    py: `don = lambda n: (l.rolling(n).min() + h.rolling(n).max()) / 2
conv = don(9); base = don(26); a = (conv + base) / 2; b = don(52)
out['Conversion Line'] = conv; out['Base Line'] = base; out['Lagging Span'] = c.shift(-25); out['Leading Span A'] = a.shift(25); out['Leading Span B'] = b.shift(25)
out['Kumo Cloud Upper Line'] = pd.Series(np.where(a > b, a, b)).shift(25); out['Kumo Cloud Lower Line'] = pd.Series(np.where(a < b, a, b)).shift(25)`,
  },
  {
    name: 'Anchored VWAP with bands (ta.vwap, timeframe.change)',
    pine: `//@version=5
indicator(title="VWAP with bands", shorttitle="VWAP", overlay=true)
src = input(hlc3, title="Source")
stdevMult = input.float(1.0, "Bands Multiplier")
[_vwap, _upper, _lower] = ta.vwap(src, timeframe.change("D"), stdevMult)
plot(_vwap, title="VWAP", color=#2962FF)
plot(_upper, title="Upper Band", color=color.green)
plot(_lower, title="Lower Band", color=color.green)
plot(ta.vwap, title="Plain VWAP")
`,
    py: `day = t.dt.floor('D'); new = (day != day.shift()).to_numpy(); TP = ((h + l + c) / 3).to_numpy(); V = v.to_numpy(); res = []
for i in range(len(TP)):
    if new[i]: sv = V[i]; spv = TP[i] * V[i]; sppv = 0.0
    else: sv += V[i]; spv += TP[i] * V[i]
    w = spv / sv; sppv += TP[i] * TP[i] * V[i]; sd = np.sqrt(max(0.0, sppv / sv - w * w)) * 1.0; res.append((w, w + sd, w - sd))
res = np.array(res); out['VWAP'] = res[:, 0]; out['Upper Band'] = res[:, 1]; out['Lower Band'] = res[:, 2]; out['Plain VWAP'] = res[:, 0]`,
  },
  {
    name: 'Williams %R, MFI, CMO and TSI built-ins',
    pine: `//@version=5
indicator("Oscillator pack: %R MFI CMO TSI", overlay=false)
lenR = input.int(14, "Williams %R length")
lenMFI = input.int(14, "MFI length")
lenCMO = input.int(9, "CMO length")
long = input.int(25, "TSI long")
short = input.int(13, "TSI short")
signal = input.int(13, "TSI signal")
plot(ta.wpr(lenR), "%R", color=#7E57C2)
plot(ta.mfi(hlc3, lenMFI), "MFI", color=#7E57C2)
plot(ta.cmo(close, lenCMO), "CMO", color=#2962FF)
tsi = ta.tsi(close, short, long)
plot(tsi * 100, "TSI", color=#2962FF)
plot(ta.ema(tsi * 100, signal), "TSI signal", color=#E91E63)
hline(0, "Zero")
`,
    py: `hh = h.rolling(14).max(); ll = l.rolling(14).min(); out['%R'] = (100 * (c - hh) / (hh - ll)).where(hh != ll)
tp = (h + l + c) / 3; ch = tp.diff(); up = (v * tp.where(~(ch <= 0), 0.0)).rolling(14).sum(); lo = (v * tp.where(~(ch >= 0), 0.0)).rolling(14).sum()
mfi = 100.0 - 100.0 / (1.0 + up / lo); mfi[lo == 0] = 100.0; out['MFI'] = mfi
m = c.diff(); s1 = m.where(m >= 0, 0.0).where(m.notna()).rolling(9).sum(); s2 = (-m).where(m < 0, 0.0).where(m.notna()).rolling(9).sum()
out['CMO'] = (100 * (s1 - s2) / (s1 + s2)).where(s1 + s2 != 0)
tsi = ema(ema(m, 25), 13) / ema(ema(m.abs(), 25), 13); out['TSI'] = tsi * 100; out['TSI signal'] = ema(tsi * 100, 13)`,
  },
  {
    name: 'ALMA and linear regression channel (ta.alma, ta.linreg, ta.correlation)',
    pine: `//@version=5
indicator("ALMA + linear regression channel", overlay=true)
windowsize = input.int(title="Window Size", defval=9)
offset = input.float(title="Offset", defval=0.85)
sigma = input.float(title="Sigma", defval=6)
plot(ta.alma(close, windowsize, offset, sigma), "ALMA")
len = input.int(100, "Regression length")
devMult = input.float(2.0, "Deviation")
mid = ta.linreg(close, len, 0)
slope = mid - ta.linreg(close, len, 1)
dev = ta.stdev(close, len)
plot(mid, "LR mid")
plot(mid + devMult * dev, "LR upper")
plot(mid - devMult * dev, "LR lower")
plot(slope, "LR slope", display=display.data_window)
plot(ta.correlation(close, bar_index, len), "Trend corr", display=display.none)
`,
    py: `w = np.exp(-((np.arange(9) - 0.85 * 8) ** 2) / (2 * (9 / 6) ** 2)); out['ALMA'] = c.rolling(9).apply(lambda x: np.dot(x, w) / w.sum(), raw=True)
mid = linreg(c, 100); sd = c.rolling(100).std(ddof=0); out['LR mid'] = mid; out['LR upper'] = mid + 2 * sd; out['LR lower'] = mid - 2 * sd
out['LR slope'] = mid - linreg(c, 100, 1); out['Trend corr'] = c.rolling(100).corr(pd.Series(np.arange(len(c)), dtype=float))`,
  },
  {
    name: 'Smoothed Heikin-Ashi (recursive open with na(x[1]))',
    pine: `//@version=5
indicator('Smoothed Heiken Ashi Candles v1', shorttitle='Smoothed HA', overlay=true)
len = input(10)
o = ta.ema(open, len)
c = ta.ema(close, len)
h = ta.ema(high, len)
l = ta.ema(low, len)

haclose = (o + h + l + c) / 4
haopen = 0.0
haopen := na(haopen[1]) ? (o + c) / 2 : (haopen[1] + haclose[1]) / 2
hahigh = math.max(h, math.max(haopen, haclose))
halow = math.min(l, math.min(haopen, haclose))

len2 = input(10)
o2 = ta.ema(haopen, len2)
c2 = ta.ema(haclose, len2)
h2 = ta.ema(hahigh, len2)
l2 = ta.ema(halow, len2)

col = o2 > c2 ? color.red : color.lime
plot(o2, "HA open", color=col)
plot(c2, "HA close", color=col)
plot(h2, "HA high")
plot(l2, "HA low")
`,
    py: `O = ema(o, 10); C_ = ema(c, 10); H_ = ema(h, 10); L_ = ema(l, 10); hc = ((O + H_ + L_ + C_) / 4).to_numpy(); ho = np.zeros(len(hc))
for i in range(len(hc)): ho[i] = (O[i] + C_[i]) / 2 if i == 0 else (ho[i - 1] + hc[i - 1]) / 2
ho = pd.Series(ho); hc = pd.Series(hc)
out['HA open'] = ema(ho, 10); out['HA close'] = ema(hc, 10); out['HA high'] = ema(np.maximum(H_, np.maximum(ho, hc)), 10); out['HA low'] = ema(np.minimum(L_, np.minimum(ho, hc)), 10)`,
  },
  {
    name: 'Pivot points high/low S/R and floor pivots from the previous UTC day',
    pine: `//@version=5
indicator("Pivot Points High Low S/R", shorttitle="Pivots HL", overlay=true, max_labels_count=500)
lengthGroupTitle = "LENGTH LEFT / RIGHT"
leftLenH = input.int(title="Pivot High", defval=10, minval=1, inline="Pivot High", group=lengthGroupTitle)
rightLenH = input.int(title="/", defval=10, minval=1, inline="Pivot High", group=lengthGroupTitle)
leftLenL = input.int(title="Pivot Low", defval=10, minval=1, inline="Pivot Low", group=lengthGroupTitle)
rightLenL = input.int(title="/", defval=10, minval=1, inline="Pivot Low", group=lengthGroupTitle)
ph = ta.pivothigh(leftLenH, rightLenH)
pl = ta.pivotlow(leftLenL, rightLenL)
var float resistance = na
var float support = na
if not na(ph)
    resistance := ph
if not na(pl)
    support := pl
plot(resistance, "Resistance", color=color.red, style=plot.style_stepline)
plot(support, "Support", color=color.green, style=plot.style_stepline)
plotshape(not na(ph), "PH", shape.triangledown, location.abovebar, color.red, offset=-rightLenH)
plotshape(not na(pl), "PL", shape.triangleup, location.belowbar, color.green, offset=-rightLenL)
// classic floor pivots from the previous day
newDay = timeframe.change("D")
var float dayHigh = na
var float dayLow = na
var float dayClose = na
var float pHigh = na
var float pLow = na
var float pClose = na
if newDay
    pHigh := dayHigh
    pLow := dayLow
    pClose := dayClose
    dayHigh := high
    dayLow := low
else
    dayHigh := math.max(nz(dayHigh, high), high)
    dayLow := math.min(nz(dayLow, low), low)
dayClose := close
pp = (pHigh + pLow + pClose) / 3
plot(pp, "PP", color=color.orange)
plot(2 * pp - pLow, "R1")
plot(2 * pp - pHigh, "S1")
`,
    py: `def piv(x, hi):
    X = x.to_numpy(); r = np.full(len(X), np.nan)
    for i in range(20, len(X)):
        w = np.delete(X[i - 20:i + 1], 10)
        if (hi and np.all(X[i - 10] > w)) or (not hi and np.all(X[i - 10] < w)): r[i] = X[i - 10]
    return pd.Series(r)
ph = piv(h, True); pl = piv(l, False); out['Resistance'] = ph.ffill(); out['Support'] = pl.ffill()
sig['PH'] = ph.notna().shift(-10, fill_value=False); sig['PL'] = pl.notna().shift(-10, fill_value=False)
day = t.dt.floor('D'); new = (day != day.shift()).to_numpy(); H = h.to_numpy(); L = l.to_numpy(); C = c.to_numpy()
dh = dl = dc = pH = pL = pC = np.nan; pp = []; p3 = []
for i in range(len(C)):
    if new[i]: pH, pL, pC, dh, dl = dh, dl, dc, H[i], L[i]
    else: dh = max(H[i] if np.isnan(dh) else dh, H[i]); dl = min(L[i] if np.isnan(dl) else dl, L[i])
    dc = C[i]; pp.append((pH + pL + pC) / 3); p3.append((pH, pL))
pp = np.array(pp); p3 = np.array(p3); out['PP'] = pp; out['R1'] = 2 * pp - p3[:, 1]; out['S1'] = 2 * pp - p3[:, 0]`,
  },
  {
    name: 'Strategy with ATR bracket exits (strategy.exit stop=/limit=, order settings)',
    pine: `//@version=5
strategy("MA Cross + ATR bracket", overlay=true, initial_capital=10000, default_qty_type=strategy.percent_of_equity, default_qty_value=10, commission_type=strategy.commission.percent, commission_value=0.01)
fastLen = input.int(10, "Fast MA")
slowLen = input.int(30, "Slow MA")
atrLen = input.int(14, "ATR length")
slMult = input.float(1.5, "Stop ATR mult")
tpMult = input.float(3.0, "Target ATR mult")
fast = ta.sma(close, fastLen)
slow = ta.sma(close, slowLen)
atr = ta.atr(atrLen)
longCond = ta.crossover(fast, slow)
shortCond = ta.crossunder(fast, slow)
if longCond
    strategy.entry("Long", strategy.long)
    strategy.exit("Long exit", from_entry="Long", stop=close - slMult * atr, limit=close + tpMult * atr)
if shortCond
    strategy.entry("Short", strategy.short, comment="short")
    strategy.exit("Short exit", "Short", stop=close + slMult * atr, limit=close - tpMult * atr)
plot(fast, "Fast", color=color.blue)
plot(slow, "Slow", color=color.orange)
plot(close - slMult * atr, "Long stop level", display=display.data_window)
`,
    py: `fast = c.rolling(10).mean(); slow = c.rolling(30).mean(); lc = over(fast, slow); sc = over(slow, fast)
out['Fast'] = fast; out['Slow'] = slow; out['Long stop level'] = c - 1.5 * rma(tr, 14)
sig['Long'] = lc; sig['Long exit'] = lc; sig['Short'] = sc; sig['Short exit'] = sc`,
  },
  {
    name: 'Strategy reading strategy.position_size with market orders (when=, strategy.close)',
    pine: `//@version=5
strategy("RSI mean reversion", overlay=false, pyramiding=0)
length = input.int(14, "RSI length")
os = input.int(30, "Oversold")
ob = input.int(70, "Overbought")
r = ta.rsi(close, length)
if ta.crossover(r, os) and strategy.position_size <= 0
    strategy.entry("Long", strategy.long, when=barstate.isconfirmed)
if ta.crossunder(r, ob) and strategy.position_size > 0
    strategy.close("Long", comment="take profit")
plot(r, "RSI")
plot(strategy.position_size, "Position")
hline(os)
hline(ob)
`,
    py: `r = rsi(c, 14); level = lambda x: pd.Series(x, index=r.index); up = over(r, level(30.0)).to_numpy(); dn = over(level(70.0), r).to_numpy(); pos = 0; pend = 0; size = []; fired = np.zeros(len(up), bool)
for i in range(len(up)):
    pos = pend; size.append(pos)
    if up[i] and pos <= 0: pend = 1; fired[i] = True
    if dn[i] and pos > 0: pend = 0; fired[i] = True
out['RSI'] = r; out['Position'] = size; sig['Long'] = fired`,
  },
  {
    name: 'Supertrend, hand-rolled in the v4 style (nz(up[1], up), trend := nz(trend[1], trend))',
    pine: `//@version=5
indicator("Supertrend classic", overlay = true, format=format.price, precision=2, timeframe="", timeframe_gaps=true)
Periods = input(title="ATR Period", defval=10)
src = input(hl2, title="Source")
Multiplier = input.float(title="ATR Multiplier", step=0.1, defval=3.0)
changeATR= input(title="Change ATR Calculation Method ?", defval=true)
showsignals = input(title="Show Buy/Sell Signals ?", defval=true)
highlighting = input(title="Highlighter On/Off ?", defval=true)
atr2 = ta.sma(ta.tr, Periods)
atr= changeATR ? ta.atr(Periods) : atr2
up=src-(Multiplier*atr)
up1 = nz(up[1],up)
up := close[1] > up1 ? math.max(up,up1) : up
dn=src+(Multiplier*atr)
dn1 = nz(dn[1], dn)
dn := close[1] < dn1 ? math.min(dn, dn1) : dn
trend = 1
trend := nz(trend[1], trend)
trend := trend == -1 and close > dn1 ? 1 : trend == 1 and close < up1 ? -1 : trend
upPlot = plot(trend == 1 ? up : na, title="Up Trend", style=plot.style_linebr, linewidth=2, color=color.green)
buySignal = trend == 1 and trend[1] == -1
plotshape(buySignal ? up : na, title="UpTrend Begins", location=location.absolute, style=shape.circle, size=size.tiny, color=color.green, transp=0)
dnPlot = plot(trend == 1 ? na : dn, title="Down Trend", style=plot.style_linebr, linewidth=2, color=color.red)
sellSignal = trend == -1 and trend[1] == 1
mPlot = plot(ohlc4, title="", style=plot.style_circles, linewidth=0)
longFillColor = highlighting ? (trend == 1 ? color.green : color.white) : color.white
fill(mPlot, upPlot, title="UpTrend Highligter", color=longFillColor, transp=90)
alertcondition(buySignal, title="SuperTrend Buy", message="SuperTrend Buy!")
changeCond = trend != trend[1]
alertcondition(changeCond, title="SuperTrend Direction Change", message="SuperTrend has changed direction!")
`,
    py: `atr = rma(tr, 10).to_numpy(); src = ((h + l) / 2).to_numpy(); C = c.to_numpy(); n = len(C)
up = np.zeros(n); dn = np.zeros(n); trend = np.zeros(n)
for i in range(n):
    u = src[i] - (3.0 * atr[i]); u1 = up[i - 1] if i > 0 else u; up[i] = max(u, u1) if (i > 0 and C[i - 1] > u1) else u
    d = src[i] + (3.0 * atr[i]); d1 = dn[i - 1] if i > 0 else d; dn[i] = min(d, d1) if (i > 0 and C[i - 1] < d1) else d
    t = trend[i - 1] if i > 0 else 1.0; trend[i] = 1.0 if (t == -1 and C[i] > d1) else (-1.0 if (t == 1 and C[i] < u1) else t)
T = pd.Series(trend); buy = (T == 1) & (T.shift() == -1)
out['Up Trend'] = np.where(trend == 1, up, np.nan); out['Down Trend'] = np.where(trend == 1, np.nan, dn)
sig['UpTrend Begins'] = buy & (up != 0); sig['SuperTrend Buy'] = buy; sig['SuperTrend Direction Change'] = (T != T.shift()) & T.shift().notna()`,
  },
  {
    name: 'Fisher transform (user function clamp, recursive value with nz(x[1]))',
    pine: `//@version=5
indicator(title="Fisher Transform", shorttitle="Fisher", format=format.price, precision=2, timeframe="", timeframe_gaps=true)
len = input.int(9, minval=1, title="Length")
high_ = ta.highest(hl2, len)
low_ = ta.lowest(hl2, len)
round_(val) => val > .99 ? .999 : val < -.99 ? -.999 : val
value = 0.0
value := round_(.66 * ((hl2 - low_) / (high_ - low_) - .5) + .67 * nz(value[1]))
fish1 = 0.0
fish1 := .5 * math.log((1 + value) / (1 - value)) + .5 * nz(fish1[1])
fish2 = fish1[1]
hline(1.5, "1.5", color=#E91E63)
hline(0.75,"0.75", color=#787B86)
hline(0, "0", color=#E91E63)
hline(-0.75, "-0.75", color=#787B86)
hline(-1.5, "-1.5", color=#E91E63)
plot(fish1, color=#2962FF, title="Fisher")
plot(fish2, color=#FF6D00, title="Trigger")
`,
    py: `m = (h + l) / 2; H = m.rolling(9).max().to_numpy(); L = m.rolling(9).min().to_numpy(); M = m.to_numpy(); n = len(M); val = np.zeros(n); fish = np.zeros(n)
for i in range(n):
    pv = val[i - 1] if i > 0 and not np.isnan(val[i - 1]) else 0.0; den = H[i] - L[i]
    x = .66 * ((M[i] - L[i]) / den - .5) + .67 * pv if den != 0 and not np.isnan(den) else np.nan
    val[i] = .999 if x > .99 else (-.999 if x < -.99 else x)
    pf = fish[i - 1] if i > 0 and not np.isnan(fish[i - 1]) else 0.0; fish[i] = .5 * np.log((1 + val[i]) / (1 - val[i])) + .5 * pf
out['Fisher'] = fish; out['Trigger'] = pd.Series(fish).shift()`,
  },
  {
    name: 'London session high/low (input.session, time(timeframe.period, session, "UTC"), var)',
    pine: `//@version=5
indicator("London session high/low", overlay=true)
sess = input.session("0700-1600", "London session")
inSess = not na(time(timeframe.period, sess, "UTC"))
var float sHigh = na
var float sLow = na
if inSess and not inSess[1]
    sHigh := high
    sLow := low
else if inSess
    sHigh := math.max(sHigh, high)
    sLow := math.min(sLow, low)
plot(inSess ? sHigh : na, "Session high", style=plot.style_linebr)
plot(inSess ? sLow : na, "Session low", style=plot.style_linebr)
bgcolor(inSess ? color.new(color.blue, 92) : na)
plotshape(ta.crossover(close, sHigh[1]) and inSess, "Breakout", shape.triangleup, location.belowbar)
`,
    py: `tod = hour * 60 + t.dt.minute; ins = ((tod >= 420) & (tod < 960)).to_numpy(); H = h.to_numpy(); L = l.to_numpy(); sh = sl = np.nan; SH = []; SL = []
for i in range(len(ins)):
    if ins[i] and not (ins[i - 1] if i > 0 else False): sh, sl = H[i], L[i]
    elif ins[i]: sh, sl = nmax(sh, H[i]), nmin(sl, L[i])
    SH.append(sh); SL.append(sl)
out['Session high'] = np.where(ins, SH, np.nan); out['Session low'] = np.where(ins, SL, np.nan)
sig['Breakout'] = over(c, pd.Series(SH).shift()) & ins`,
  },
  {
    name: 'v5: both sides of and run, integer literals divide as integers, branch-local history',
    pine: semantics(5),
    py: `sig['Up bar cross'] = (c > o) & over(c, c.rolling(10).mean())
${semanticsPy(3.0)}`,
  },
  {
    name: 'v6: and short-circuits (the skipped ta.* calls miss bars), int division gives the fraction',
    pine: semantics(6),
    py: `# v6 evaluates \`and\` lazily: the crossover, and the SMA in its arguments, see only the bars where close > open
C = c.to_numpy(); O = o.to_numpy(); seen = []; pa = pb = np.nan; hit = np.zeros(len(C), bool)
for i in range(len(C)):
    if C[i] > O[i]:
        seen.append(C[i]); s = np.mean(seen[-10:]) if len(seen) >= 10 else np.nan
        hit[i] = C[i] > s and pa <= pb; pa, pb = C[i], s
sig['Up bar cross'] = hit
${semanticsPy(3.5)}`,
  },
];
