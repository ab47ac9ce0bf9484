/**
 * Each indicator the offline grammar knows, written as Pine for the custom-indicator answer: its
 * lines, its plots, its levels. Variables are named by the generator's column names, so a rule
 * read from the text ("ADX above 25") refers to them as the strategy code does. Where the
 * strategy's pandas defines an indicator its own way (the session VWAP is time-weighted since
 * bars carry no volume; daily levels are the previous UTC day's; Ichimoku's spans are the values
 * of `kijun` bars earlier; SuperTrend's direction is +1 up), the Pine says the same.
 * Keltner and Donchian channels are written by the caller (their words are read there).
 */
import { DIVERGENCE_MARGIN, GEN, RUN_CAP, type Instance } from '../offline/index.ts';

/** Pine text of the indicators named in a description, gathered as they are declared. */
export interface PineParts {
  lines: string[];
  plots: string[];
  levels: string[];
  /** Markers drawn from an indicator itself (candle patterns): a plotshape each. */
  marks: { expr: string; title: string; side: 'long' | 'short' }[];
}

/** Drawn on the price pane (the others are oscillators in a pane of their own). */
const ON_PRICE = new Set([
  'sma',
  'ema',
  'wma',
  'bb',
  'vwap',
  'pivot',
  'ichimoku',
  'psar',
  'supertrend',
  'hhll',
  'engulfing',
  'pinbar',
  'insidebar',
  'star',
  'tweezer',
  'nr',
  'sessrange',
]);

/** The Pine variable names of an instance's outputs: the generator's column names. */
export const pineColumns = (inst: Instance): string[] => GEN[inst.name].columns(inst.params);

/** Whether `declarePine` writes this indicator (channels are written by the caller). */
export const writesPine = (inst: Instance): boolean => inst.name !== 'keltner' && inst.name !== 'donchian';

export const onPricePane = (inst: Instance): boolean => ON_PRICE.has(inst.name);

/** Lines computing the previous UTC day's high, low and close (`<p>_ph`, `<p>_pl`, `<p>_pc`), from the day's first bar on. */
function previousDay(p: string): string[] {
  return [
    `${p}_day = math.floor(time / 86400000)`,
    `var float ${p}_h = na`,
    `var float ${p}_l = na`,
    `var float ${p}_c = na`,
    `var float ${p}_ph = na`,
    `var float ${p}_pl = na`,
    `var float ${p}_pc = na`,
    `if bar_index == 0 or ${p}_day != ${p}_day[1]`,
    `    ${p}_ph := ${p}_h`,
    `    ${p}_pl := ${p}_l`,
    `    ${p}_pc := ${p}_c`,
    `    ${p}_h := high`,
    `    ${p}_l := low`,
    'else',
    `    ${p}_h := math.max(${p}_h, high)`,
    `    ${p}_l := math.min(${p}_l, low)`,
    `${p}_c := close`,
  ];
}

/** A divergence of `osc` from price over the last `n` bars, as the strategy's pandas reads it (trader-indicators.ts). */
function divergencePine(osc: string, n: number, col: string, margin: number | string): string[] {
  return [
    `${col}_ll = ta.lowest(low, ${n})[1]`,
    `${col}_hh = ta.highest(high, ${n})[1]`,
    `${col}_ol = ta.lowest(${osc}, ${n})[1]`,
    `${col}_oh = ta.highest(${osc}, ${n})[1]`,
    `${col} = low < ${col}_ll and ${osc} > ${col}_ol + ${margin} ? 1 : high > ${col}_hh and ${osc} < ${col}_oh - ${margin} ? -1 : 0`,
  ];
}

/** Adds one indicator's Pine to `out`. */
export function declarePine(inst: Instance, out: PineParts): void {
  const p = inst.params;
  const cols = pineColumns(inst);
  const [a, b, c, d, e] = cols;
  const overlay = onPricePane(inst) ? ', force_overlay=true' : '';
  const plot = (name: string, title: string, color: string, extra = '') =>
    out.plots.push(`plot(${name}, "${title}", color=${color}${extra}${overlay})`);
  const level = (price: number, title: string, color = 'color.gray') => out.levels.push(`hline(${price}, "${title}", color=${color})`);
  switch (inst.name) {
    case 'sma':
    case 'ema':
    case 'wma':
      out.lines.push(`${a} = ta.${inst.name}(close, ${p.period})`);
      plot(
        a!,
        `${inst.name.toUpperCase()} ${p.period}`,
        inst.name === 'sma' ? 'color.blue' : inst.name === 'ema' ? 'color.orange' : 'color.purple',
      );
      return;
    case 'bb':
      out.lines.push(`[${b}, ${a}, ${c}] = ta.bb(close, ${p.period}, ${p.std})`);
      plot(a!, 'BB upper', 'color.teal');
      plot(b!, 'BB middle', 'color.gray');
      plot(c!, 'BB lower', 'color.teal');
      return;
    case 'rsi':
      out.lines.push(`${a} = ta.rsi(close, ${p.period})`);
      plot(a!, `RSI ${p.period}`, 'color.purple');
      level(70, 'Overbought', 'color.red');
      level(30, 'Oversold', 'color.green');
      return;
    case 'macd':
      out.lines.push(`[${a}, ${b}, ${c}] = ta.macd(close, ${p.fast}, ${p.slow}, ${p.signal})`);
      plot(a!, 'MACD', 'color.blue');
      plot(b!, 'Signal', 'color.orange');
      plot(c!, 'Histogram', 'color.gray', ', style=plot.style_histogram');
      level(0, 'Zero');
      return;
    case 'stoch':
      out.lines.push(`${a} = ta.stoch(close, high, low, ${p.k_period})`, `${b} = ta.sma(${a}, ${p.d_period})`);
      plot(a!, '%K', 'color.blue');
      plot(b!, '%D', 'color.orange');
      level(80, 'Upper', 'color.red');
      level(20, 'Lower', 'color.green');
      return;
    case 'atr':
      out.lines.push(`${a} = ta.atr(${p.period})`);
      plot(a!, `ATR ${p.period}`, 'color.red');
      return;
    case 'adx':
      out.lines.push(`[${b}, ${c}, ${a}] = ta.dmi(${p.period}, ${p.period})`);
      plot(a!, `ADX ${p.period}`, 'color.purple');
      plot(b!, '+DI', 'color.green');
      plot(c!, '-DI', 'color.red');
      level(25, 'Trend strength');
      return;
    case 'cci':
      out.lines.push(`${a} = ta.cci(hlc3, ${p.period})`);
      plot(a!, `CCI ${p.period}`, 'color.blue');
      level(100, 'Upper', 'color.red');
      level(-100, 'Lower', 'color.green');
      return;
    case 'vwap':
      // Bars carry no volume: the typical price averaged since the UTC day's first bar, as the strategy code computes it.
      out.lines.push(
        'vwap_day = math.floor(time / 86400000)',
        'var float vwap_sum = 0.0',
        'var int vwap_n = 0',
        'if bar_index == 0 or vwap_day != vwap_day[1]',
        '    vwap_sum := 0.0',
        '    vwap_n := 0',
        'vwap_sum += hlc3',
        'vwap_n += 1',
        `${a} = vwap_sum / vwap_n`,
      );
      plot(a!, 'Session VWAP (time-weighted)', 'color.orange');
      return;
    case 'pivot':
      out.lines.push(
        ...previousDay('pv'),
        `${a} = (pv_ph + pv_pl + pv_pc) / 3`,
        `${b} = 2 * ${a} - pv_pl`,
        `${c} = 2 * ${a} - pv_ph`,
        `${d} = ${a} + (pv_ph - pv_pl)`,
        `${e} = ${a} - (pv_ph - pv_pl)`,
        `${cols[5]} = pv_ph`,
        `${cols[6]} = pv_pl`,
      );
      plot(a!, 'Pivot', 'color.gray', ', style=plot.style_linebr');
      plot(b!, 'R1', 'color.red', ', style=plot.style_linebr');
      plot(c!, 'S1', 'color.green', ', style=plot.style_linebr');
      plot(d!, 'R2', 'color.red', ', style=plot.style_linebr');
      plot(e!, 'S2', 'color.green', ', style=plot.style_linebr');
      return;
    case 'ichimoku':
      // The spans at a bar are the values of kijun bars earlier (the cloud drawn ahead, read without look-ahead).
      out.lines.push(
        `${a} = (ta.highest(high, ${p.tenkan}) + ta.lowest(low, ${p.tenkan})) / 2`,
        `${b} = (ta.highest(high, ${p.kijun}) + ta.lowest(low, ${p.kijun})) / 2`,
        `${c} = ((${a} + ${b}) / 2)[${p.kijun}]`,
        `${d} = ((ta.highest(high, ${p.senkou}) + ta.lowest(low, ${p.senkou})) / 2)[${p.kijun}]`,
        `${e} = math.max(${c}, ${d})`,
        `${cols[5]} = math.min(${c}, ${d})`,
        `${cols[6]} = close[${p.kijun}]`,
      );
      plot(a!, 'Tenkan', 'color.blue');
      plot(b!, 'Kijun', 'color.red');
      plot(c!, 'Span A', 'color.green');
      plot(d!, 'Span B', 'color.orange');
      return;
    case 'psar':
      out.lines.push(`${a} = ta.sar(${p.step}, ${p.step}, ${p.max})`, `${b} = close > ${a} ? 1 : -1`);
      plot(a!, 'Parabolic SAR', 'color.blue', ', style=plot.style_cross');
      return;
    case 'supertrend':
      // Pine's direction is -1 in an up trend; the generator's column is +1 there.
      out.lines.push(`[${a}, st_dir_${p.period}] = ta.supertrend(${p.mult}, ${p.period})`, `${b} = -st_dir_${p.period}`);
      plot(a!, 'SuperTrend', `${b} > 0 ? color.green : color.red`);
      return;
    case 'roc':
      out.lines.push(`${a} = ta.roc(close, ${p.period})`);
      plot(a!, `ROC ${p.period}`, 'color.blue');
      level(0, 'Zero');
      return;
    case 'willr':
      out.lines.push(
        `wr_hh_${p.period} = ta.highest(high, ${p.period})`,
        `wr_ll_${p.period} = ta.lowest(low, ${p.period})`,
        `${a} = wr_hh_${p.period} > wr_ll_${p.period} ? -100 * (wr_hh_${p.period} - close) / (wr_hh_${p.period} - wr_ll_${p.period}) : -50`,
      );
      plot(a!, `Williams %R ${p.period}`, 'color.purple');
      level(-20, 'Overbought', 'color.red');
      level(-80, 'Oversold', 'color.green');
      return;
    case 'zscore':
      // The mean outside the ternary: a ta.* call in a branch only sees the bars its branch ran on (as in Pine).
      out.lines.push(
        `zs_mean_${p.period} = ta.sma(close, ${p.period})`,
        `zs_sd_${p.period} = ta.stdev(close, ${p.period})`,
        `${a} = zs_sd_${p.period} > 1e-7 * close ? (close - zs_mean_${p.period}) / zs_sd_${p.period} : 0`,
      );
      plot(a!, `z-score ${p.period}`, 'color.blue');
      level(2, 'Upper', 'color.red');
      level(-2, 'Lower', 'color.green');
      return;
    case 'hhll':
      out.lines.push(`${a} = ta.highest(high, ${p.period})[1]`, `${b} = ta.lowest(low, ${p.period})[1]`);
      plot(a!, `${p.period}-bar high`, 'color.teal');
      plot(b!, `${p.period}-bar low`, 'color.teal');
      return;
    case 'engulfing':
      out.lines.push(
        `${a} = close > open and close[1] < open[1] and close >= open[1] and open <= close[1] ? 1 : close < open and close[1] > open[1] and close <= open[1] and open >= close[1] ? -1 : 0`,
      );
      out.marks.push(
        { expr: `${a} == 1`, title: 'Bullish engulfing', side: 'long' },
        { expr: `${a} == -1`, title: 'Bearish engulfing', side: 'short' },
      );
      return;
    case 'pinbar':
      out.lines.push(
        'pb_range = high > low ? high - low : na',
        `${a} = (math.min(open, close) - low) / pb_range >= 2.0 / 3 ? 1 : (high - math.max(open, close)) / pb_range >= 2.0 / 3 ? -1 : 0`,
      );
      out.marks.push(
        { expr: `${a} == 1`, title: 'Bullish pin bar', side: 'long' },
        { expr: `${a} == -1`, title: 'Bearish pin bar', side: 'short' },
      );
      return;
    case 'insidebar':
      out.lines.push(
        `${a} = high < high[1] and low > low[1] ? 1 : 0`,
        `${b} = ${a}[1] == 1 and close > high[1] ? 1 : ${a}[1] == 1 and close < low[1] ? -1 : 0`,
      );
      out.marks.push({ expr: `${a} == 1`, title: 'Inside bar', side: 'long' });
      return;
    case 'candlerun':
      out.lines.push(
        'cr_dir = math.sign(close - open)',
        `${a} = 0.0`,
        `${a} := cr_dir == 0 ? 0 : cr_dir == math.sign(nz(${a}[1])) ? math.min(math.abs(nz(${a}[1])) + 1, ${RUN_CAP}) * cr_dir : cr_dir`,
      );
      plot(a!, 'Candles in a row', 'color.gray');
      return;
    case 'volregime':
      out.lines.push(`vr_atr_${p.period} = ta.atr(${p.period})`, `${a} = vr_atr_${p.period} / ta.sma(vr_atr_${p.period}, ${p.window})`);
      plot(a!, 'Volatility regime', 'color.orange');
      level(1, 'Average volatility');
      return;
    case 'star':
      out.lines.push(
        'st_b = close - open',
        'st_small = math.abs(st_b[1]) < 0.5 * math.abs(st_b[2])',
        'st_mid = (open[2] + close[2]) / 2',
        `${a} = st_b[2] < 0 and st_small and st_b > 0 and close > st_mid ? 1 : st_b[2] > 0 and st_small and st_b < 0 and close < st_mid ? -1 : 0`,
      );
      out.marks.push(
        { expr: `${a} == 1`, title: 'Morning star', side: 'long' },
        { expr: `${a} == -1`, title: 'Evening star', side: 'short' },
      );
      return;
    case 'tweezer':
      out.lines.push(
        'tw_rng = math.max(high - low, high[1] - low[1])',
        'tw_b = close - open',
        `${a} = tw_b[1] < 0 and tw_b > 0 and math.abs(low - low[1]) <= 0.1 * tw_rng ? 1 : tw_b[1] > 0 and tw_b < 0 and math.abs(high - high[1]) <= 0.1 * tw_rng ? -1 : 0`,
      );
      out.marks.push(
        { expr: `${a} == 1`, title: 'Tweezer bottom', side: 'long' },
        { expr: `${a} == -1`, title: 'Tweezer top', side: 'short' },
      );
      return;
    case 'nr':
      out.lines.push(
        `nr_r_${p.period} = high - low`,
        `nr_min_${p.period} = ta.lowest(nr_r_${p.period}, ${p.period! - 1})[1]`,
        `${a} = nr_r_${p.period} < nr_min_${p.period} ? 1 : 0`,
        `${b} = ${a}[1] == 1 and close > high[1] ? 1 : ${a}[1] == 1 and close < low[1] ? -1 : 0`,
      );
      out.marks.push({ expr: `${a} == 1`, title: `NR${p.period}`, side: 'long' });
      return;
    case 'heikin':
      out.lines.push(
        'ha_c = (open + high + low + close) / 4',
        'ha_o = 0.0',
        'ha_o := bar_index == 0 ? (open + close) / 2 : (ha_o[1] + ha_c[1]) / 2',
        `${a} = math.sign(ha_c - ha_o)`,
        `${b} = 0.0`,
        `${b} := ${a} == 0 ? 0 : ${a} == math.sign(nz(${b}[1])) ? math.min(math.abs(nz(${b}[1])) + 1, ${RUN_CAP}) * ${a} : ${a}`,
      );
      plot(a!, 'Heikin Ashi colour', 'color.teal');
      plot(b!, 'Heikin Ashi candles in a row', 'color.gray');
      return;
    case 'rsidiv':
      out.lines.push(
        `rd_osc_${p.period}_${p.lookback} = ta.rsi(close, ${p.period})`,
        ...divergencePine(`rd_osc_${p.period}_${p.lookback}`, p.lookback!, a!, DIVERGENCE_MARGIN.rsidiv),
      );
      plot(a!, 'RSI divergence', 'color.purple');
      return;
    case 'macddiv':
      out.lines.push(
        `md_osc_${p.fast}_${p.slow}_${p.lookback} = ta.ema(close, ${p.fast}) - ta.ema(close, ${p.slow})`,
        ...divergencePine(`md_osc_${p.fast}_${p.slow}_${p.lookback}`, p.lookback!, a!, `${DIVERGENCE_MARGIN.macddiv} * close`),
      );
      plot(a!, 'MACD divergence', 'color.purple');
      return;
    case 'sessrange': {
      const v = `sr_${p.start}_${p.end}`;
      const span = (p.end! - p.start! + 24) % 24 || 24;
      out.lines.push(
        `${v}_ms = time - ${p.start} * 3600000`,
        `${v}_hr = math.floor(${v}_ms / 3600000) % 24`,
        `${v}_day = math.floor(${v}_ms / 86400000)`,
        `var float ${v}_h = na`,
        `var float ${v}_l = na`,
        `if bar_index == 0 or ${v}_day != ${v}_day[1]`,
        `    ${v}_h := na`,
        `    ${v}_l := na`,
        `if ${v}_hr < ${span}`,
        `    ${v}_h := na(${v}_h) ? high : math.max(${v}_h, high)`,
        `    ${v}_l := na(${v}_l) ? low : math.min(${v}_l, low)`,
        // The last completed window's high and low until the next one has closed.
        `var float ${a} = na`,
        `var float ${b} = na`,
        `if ${v}_hr >= ${span} and not na(${v}_h)`,
        `    ${a} := ${v}_h`,
        `    ${b} := ${v}_l`,
      );
      plot(a!, 'Session range high', 'color.teal', ', style=plot.style_stepline');
      plot(b!, 'Session range low', 'color.teal', ', style=plot.style_stepline');
      return;
    }
    case 'ao':
      out.lines.push('ao_med = (high + low) / 2', `${a} = ta.sma(ao_med, ${p.fast}) - ta.sma(ao_med, ${p.slow})`);
      plot(a!, 'Awesome Oscillator', 'color.green', ', style=plot.style_histogram');
      level(0, 'Zero');
      return;
    case 'keltner':
    case 'donchian':
      return;
  }
  const unwritten: never = inst.name;
  throw new Error(`no Pine for the ${String(unwritten)} indicator`);
}
