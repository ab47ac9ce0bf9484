/** The market page: candles of any symbol/timeframe, built-in indicators as overlays or panels, live. */
import { CandlestickSeries, LineSeries, type IChartApi, type ISeriesApi, type UTCTimestamp } from 'lightweight-charts';
import type { Candle } from '../../schemas/market.ts';
import { call } from '../lib/api.ts';
import { candleData, priceFormat, DOWN, makeChart, toTime, UP } from '../lib/charts.ts';
import { $, h, mount } from '../lib/dom.ts';

const SYMBOLS = ['EURUSD', 'GBPUSD', 'USDJPY', 'USDCHF', 'AUDUSD', 'NZDUSD', 'USDCAD'];
const TIMEFRAMES = ['1min', '5min', '15min', '1h'];
/** Indicators drawn on the price chart; the rest get a panel of their own. */
const OVERLAYS = new Set(['sma', 'ema', 'wma', 'bb']);
const COLORS = ['#f59e0b', '#38bdf8', '#a78bfa', '#f472b6', '#34d399'];

export async function startMarketPage(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const state = {
    symbol: params.get('symbol') ?? 'EURUSD',
    timeframe: params.get('timeframe') ?? '15min',
    indicators: (params.get('ind') ?? 'bb,rsi').split(',').filter(Boolean),
  };
  const root = $('#market');
  const select = (options: string[], value: string, onchange: (v: string) => void) =>
    h(
      'select',
      { onchange: (e: Event) => onchange((e.target as HTMLSelectElement).value) },
      options.map((o) => h('option', { value: o, selected: o === value }, o)),
    );
  const go = () => location.assign(`/market?symbol=${state.symbol}&timeframe=${state.timeframe}&ind=${state.indicators.join(',')}`);
  const indicatorBoxes = ['sma', 'ema', 'wma', 'bb', 'rsi', 'macd', 'stoch', 'atr'].map((name) =>
    h(
      'label',
      { class: 'chip' },
      h('input', {
        type: 'checkbox',
        checked: state.indicators.includes(name),
        onchange: (e: Event) => {
          state.indicators = (e.target as HTMLInputElement).checked
            ? [...state.indicators, name]
            : state.indicators.filter((i) => i !== name);
          go();
        },
      }),
      name.toUpperCase(),
    ),
  );
  const priceBox = h('div', { class: 'chart', id: 'price' });
  const panels = h('div', { id: 'panels' });
  mount(
    root,
    h('h1', {}, 'Market'),
    h(
      'div',
      { class: 'row' },
      select(SYMBOLS, state.symbol, (v) => {
        state.symbol = v;
        go();
      }),
      select(TIMEFRAMES, state.timeframe, (v) => {
        state.timeframe = v;
        go();
      }),
      indicatorBoxes,
    ),
    priceBox,
    panels,
  );
  const ohlc = await call<{ candles: Candle[] }>('GET', `/api/v1/ohlc?symbol=${state.symbol}&timeframe=${state.timeframe}&limit=500`);
  const chart = makeChart(priceBox, 420);
  const candles = chart.addSeries(CandlestickSeries, {
    upColor: UP,
    downColor: DOWN,
    wickUpColor: UP,
    wickDownColor: DOWN,
    borderVisible: false,
    priceFormat: priceFormat(state.symbol),
  });
  candles.setData(candleData(ohlc.candles));
  priceBox.dataset.candles = String(ohlc.candles.length);
  let drawn = 0;
  /** Each drawn indicator column's line, for the live updates. */
  const lines = new Map<string, ISeriesApi<'Line'>>();
  const indicators = Object.fromEntries(state.indicators.map((i) => [`${i}_enabled`, true]));
  const indicatorRows = (limit: number) =>
    call<{ columns: string[]; data: Record<string, (number | null)[]> & { timestamp: string[] } }>('POST', '/api/v1/indicators', {
      indicators,
      symbol: state.symbol,
      timeframe: state.timeframe,
      limit,
    });
  if (state.indicators.length) {
    const res = await indicatorRows(500);
    const times = res.data.timestamp.map(toTime);
    let color = 0;
    const panelCharts = new Map<string, IChartApi>();
    for (const column of res.columns) {
      const values = res.data[column] ?? [];
      const base = column.split('_')[0]!.toLowerCase();
      if (!state.indicators.includes(base) || values.every((v) => v === null)) continue;
      let target: IChartApi = chart;
      if (!OVERLAYS.has(base)) {
        target = panelCharts.get(base) ?? makePanel(panels, base, panelCharts);
      }
      const line: ISeriesApi<'Line'> = target.addSeries(LineSeries, {
        color: COLORS[color++ % COLORS.length],
        lineWidth: 1,
        title: column,
      });
      line.setData(values.flatMap((v, i) => (v === null || times[i] === undefined ? [] : [{ time: times[i] as UTCTimestamp, value: v }])));
      lines.set(column, line);
      drawn++;
    }
    for (const panel of panelCharts.values()) panel.timeScale().fitContent();
  }
  priceBox.dataset.indicators = String(drawn);
  chart.timeScale().fitContent();
  document.body.dataset.ready = '1';
  // Live: the latest bars and their indicator values, polled often enough to follow every bar close
  // (the forming bar is redrawn, a closed one appended; both answers are cached by the edge).
  // A chart takes updates of its last point or newer ones only: older points of an answer are skipped.
  const lastTime = (series: ISeriesApi<'Candlestick'> | ISeriesApi<'Line'>) => Number(series.data().at(-1)?.time ?? 0);
  setInterval(async () => {
    const latest = await call<{ candles: Candle[] }>('GET', `/api/v1/ohlc?symbol=${state.symbol}&timeframe=${state.timeframe}&limit=2`);
    for (const c of candleData(latest.candles)) if (Number(c.time) >= lastTime(candles)) candles.update(c);
    if (lines.size === 0) return;
    const res = await indicatorRows(2);
    const times = res.data.timestamp.map(toTime);
    for (const [column, line] of lines) {
      (res.data[column] ?? []).forEach((v, i) => {
        const time = times[i];
        if (v !== null && time !== undefined && time >= lastTime(line)) line.update({ time: time as UTCTimestamp, value: v });
      });
    }
    priceBox.dataset.updates = String(Number(priceBox.dataset.updates ?? 0) + 1);
  }, 15_000);
}

function makePanel(container: HTMLElement, name: string, charts: Map<string, IChartApi>): IChartApi {
  const box = h('div', { class: 'chart small', 'data-panel': name });
  container.append(h('h3', {}, name.toUpperCase()), box);
  const chart = makeChart(box, 140);
  charts.set(name, chart);
  return chart;
}
