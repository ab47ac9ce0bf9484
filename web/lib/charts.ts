/** lightweight-charts helpers: candles from the API's shapes, trade markers, dark theme. */
import { ColorType, createChart, type IChartApi, type SeriesMarker, type Time, type UTCTimestamp } from 'lightweight-charts';
import type { Candle } from '../../schemas/market.ts';
import type { Trade } from '../../schemas/backtest.ts';
import { call } from './api.ts';

export const toTime = (iso: string) => Math.floor(Date.parse(iso) / 1000) as UTCTimestamp;

export const UP = '#22c55e';
export const DOWN = '#ef4444';

export function makeChart(container: HTMLElement, height: number): IChartApi {
  return createChart(container, {
    height,
    autoSize: true,
    layout: { background: { type: ColorType.Solid, color: '#0b1220' }, textColor: '#cbd5e1', attributionLogo: false },
    grid: { vertLines: { color: '#1e293b' }, horzLines: { color: '#1e293b' } },
    timeScale: { timeVisible: true, secondsVisible: false, borderColor: '#334155' },
    rightPriceScale: { borderColor: '#334155' },
  });
}

/** Price precision of a symbol: 5 decimals, 3 for JPY pairs, 2 for BTCUSD. */
export function priceFormat(symbol: string) {
  const precision = symbol.endsWith('JPY') ? 3 : symbol === 'BTCUSD' ? 2 : 5;
  return { type: 'price' as const, precision, minMove: 10 ** -precision };
}

export const candleData = (candles: Candle[]) =>
  candles.map((c) => ({ time: toTime(c.timestamp), open: c.open, high: c.high, low: c.low, close: c.close }));

/** Entry (arrow, by side) and exit (circle, by result) of every trade. */
export function tradeMarkers(trades: Trade[]): SeriesMarker<Time>[] {
  const markers: SeriesMarker<Time>[] = [];
  for (const t of trades) {
    const long = t.side === 'long';
    markers.push({
      time: toTime(t.entry_time),
      position: long ? 'belowBar' : 'aboveBar',
      shape: long ? 'arrowUp' : 'arrowDown',
      color: long ? UP : DOWN,
      text: long ? 'L' : 'S',
    });
    markers.push({
      time: toTime(t.exit_time),
      position: long ? 'aboveBar' : 'belowBar',
      shape: 'circle',
      color: t.pnl >= 0 ? UP : DOWN,
      text: t.exit_reason === 'signal' ? '' : t.exit_reason,
    });
  }
  return markers.sort((a, b) => (a.time as number) - (b.time as number));
}

const DAY_MS = 86_400_000;
const PAGE = 5000;
const MINUTES: Record<string, number> = { '1min': 1, '5min': 5, '15min': 15, '1h': 60 };
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Every bar from `from` to `to` (ISO). /ohlc serves at most 5,000 bars a request, so the span is
 * cut into runs of whole days that hold fewer than that, all fetched at once; a run that still
 * comes back full (never, for 24-hour days) is continued from its last bar.
 */
export async function loadCandles(symbol: string, timeframe: string, from: string, to: string): Promise<Candle[]> {
  const daysPerPage = Math.max(1, Math.floor(PAGE / (1440 / (MINUTES[timeframe] ?? 15))) - 1);
  const first = Date.parse(from.slice(0, 10));
  const last = Date.parse(to.slice(0, 10));
  const runs: [string, string][] = [];
  for (let t = first; t <= last; t += daysPerPage * DAY_MS) runs.push([day(t), day(Math.min(last, t + (daysPerPage - 1) * DAY_MS))]);
  const fetchRun = async ([start, end]: [string, string]): Promise<Candle[]> => {
    const { candles } = await call<{ candles: Candle[] }>(
      'GET',
      `/api/v1/ohlc?symbol=${symbol}&timeframe=${timeframe}&start=${start}&end=${end}&limit=${PAGE}`,
    );
    const tail = candles[candles.length - 1];
    if (candles.length < PAGE || !tail || tail.timestamp.slice(0, 10) >= end) return candles;
    const rest = await fetchRun([day(Date.parse(tail.timestamp.slice(0, 10)) + DAY_MS), end]);
    return [...candles, ...rest];
  };
  const pages = await Promise.all(runs.map(fetchRun));
  const out: Candle[] = [];
  for (const candles of pages) for (const c of candles) if (!out.length || c.timestamp > out[out.length - 1]!.timestamp) out.push(c);
  return out;
}

// ---- Plots over a numeric axis (SVG) ---------------------------------------------------------
// lightweight-charts draws series over time; the robustness and optimisation panels plot over
// trade numbers, returns and scores (fans, histograms, bars, scatters). Small SVGs built node by
// node: labels go in as text (textContent), never as markup. Each plot says in data-* what it drew,
// so a test can check the drawing against the data.

const SVG_NS = 'http://www.w3.org/2000/svg';
const W = 640;
const H = 220;
const M = { left: 74, right: 14, top: 12, bottom: 34 };
export const NEUTRAL = '#38bdf8';
const AXIS = '#475569';
const LABEL = '#94a3b8';

type SvgChild = SVGElement | string | null | undefined | false;

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number> = {},
  ...children: SvgChild[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return el;
}

/** A tooltip: the browser shows an element's <title> child on hover. */
const tip = (text: string) => svg('title', {}, text);

/** About `count` round tick values covering [min, max]. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

/** [min, max] of the values, padded when they are all equal, so a scale never divides by zero. */
function extent(values: number[], pad = 0): [number, number] {
  const finite = values.filter(Number.isFinite);
  let lo = finite.length ? Math.min(...finite) : 0;
  let hi = finite.length ? Math.max(...finite) : 1;
  if (hi === lo) [lo, hi] = [lo - (Math.abs(lo) || 1) * 0.5, hi + (Math.abs(hi) || 1) * 0.5];
  const p = (hi - lo) * pad;
  return [lo - p, hi + p];
}

interface Frame {
  root: SVGSVGElement;
  x(v: number): number;
  y(v: number): number;
}

interface FrameOptions {
  label: string;
  xDomain: [number, number];
  yDomain: [number, number];
  xFormat?: (v: number) => string;
  yFormat?: (v: number) => string;
  xTitle?: string;
  yTitle?: string;
  /** Tick positions of the x axis when they are not the numeric ticks (e.g. fold numbers). */
  xTicks?: number[];
}

/** The plot's frame: the svg (scaled to its box), axes with ticks, grid lines and titles. */
function frame(o: FrameOptions): Frame {
  const [x0, x1] = o.xDomain;
  const [y0, y1] = o.yDomain;
  const x = (v: number) => M.left + ((v - x0) / (x1 - x0 || 1)) * (W - M.left - M.right);
  const y = (v: number) => H - M.bottom - ((v - y0) / (y1 - y0 || 1)) * (H - M.top - M.bottom);
  const xf = o.xFormat ?? ((v: number) => String(v));
  const yf = o.yFormat ?? ((v: number) => String(v));
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'plot', role: 'img', 'aria-label': o.label });
  const grid = svg('g', { class: 'grid' });
  for (const t of niceTicks(y0, y1, 4)) {
    grid.append(
      svg('line', { x1: M.left, x2: W - M.right, y1: y(t), y2: y(t), stroke: '#1e293b' }),
      svg('text', { x: M.left - 6, y: y(t) + 4, 'text-anchor': 'end', fill: LABEL, 'font-size': 11 }, yf(t)),
    );
  }
  for (const t of o.xTicks ?? niceTicks(x0, x1, 6)) {
    grid.append(
      svg('line', { x1: x(t), x2: x(t), y1: H - M.bottom, y2: H - M.bottom + 4, stroke: AXIS }),
      svg('text', { x: x(t), y: H - M.bottom + 16, 'text-anchor': 'middle', fill: LABEL, 'font-size': 11 }, xf(t)),
    );
  }
  grid.append(svg('line', { x1: M.left, x2: W - M.right, y1: H - M.bottom, y2: H - M.bottom, stroke: AXIS }));
  if (o.xTitle)
    grid.append(svg('text', { x: (M.left + W - M.right) / 2, y: H - 4, 'text-anchor': 'middle', fill: LABEL, 'font-size': 11 }, o.xTitle));
  if (o.yTitle)
    grid.append(
      svg(
        'text',
        {
          x: 12,
          y: (M.top + H - M.bottom) / 2,
          'text-anchor': 'middle',
          fill: LABEL,
          'font-size': 11,
          transform: `rotate(-90 12 ${(M.top + H - M.bottom) / 2})`,
        },
        o.yTitle,
      ),
    );
  root.append(grid);
  return { root, x, y };
}

/** A vertical line across the plot at x = v, labelled at its top. */
function verticalMark(f: Frame, v: number, yTop: number, label: string, color: string, cls: string): SVGGElement {
  const px = f.x(v);
  return svg(
    'g',
    { class: cls },
    svg('line', { x1: px, x2: px, y1: M.top, y2: H - M.bottom, stroke: color, 'stroke-width': 2, 'stroke-dasharray': '5 3' }),
    svg(
      'text',
      { x: Math.min(px + 4, W - M.right - 4), y: yTop, 'text-anchor': px > W - 160 ? 'end' : 'start', fill: color, 'font-size': 11 },
      label,
    ),
  );
}

export interface FanPoint {
  x: number;
  p5: number;
  p50: number;
  p95: number;
}

/**
 * A fan: the band between the 5th and 95th percentile with the median line, over a numeric x
 * (e.g. the equity after each trade number of a Monte Carlo bootstrap); `baseline` draws a dashed
 * reference (the starting capital).
 */
export function fanPlot(
  points: FanPoint[],
  o: { label: string; xTitle?: string; yTitle?: string; yFormat?: (v: number) => string; baseline?: number },
): SVGSVGElement {
  const f = frame({
    label: o.label,
    xDomain: extent(points.map((p) => p.x)),
    yDomain: extent([...points.flatMap((p) => [p.p5, p.p95]), ...(o.baseline === undefined ? [] : [o.baseline])], 0.05),
    yFormat: o.yFormat,
    xTitle: o.xTitle,
    yTitle: o.yTitle,
  });
  const upper = points.map((p) => `${f.x(p.x)},${f.y(p.p95)}`);
  const lower = [...points].reverse().map((p) => `${f.x(p.x)},${f.y(p.p5)}`);
  if (o.baseline !== undefined)
    f.root.append(
      svg('line', {
        class: 'baseline',
        x1: M.left,
        x2: W - M.right,
        y1: f.y(o.baseline),
        y2: f.y(o.baseline),
        stroke: AXIS,
        'stroke-dasharray': '4 4',
      }),
    );
  f.root.append(
    svg(
      'polygon',
      { class: 'band', points: [...upper, ...lower].join(' '), fill: NEUTRAL, 'fill-opacity': 0.22, stroke: 'none' },
      tip('5th to 95th percentile'),
    ),
    svg('polyline', { class: 'p95', points: upper.join(' '), fill: 'none', stroke: NEUTRAL, 'stroke-opacity': 0.6 }),
    svg('polyline', { class: 'p5', points: lower.join(' '), fill: 'none', stroke: NEUTRAL, 'stroke-opacity': 0.6 }),
    svg(
      'polyline',
      { class: 'p50', points: points.map((p) => `${f.x(p.x)},${f.y(p.p50)}`).join(' '), fill: 'none', stroke: NEUTRAL, 'stroke-width': 2 },
      tip('median'),
    ),
  );
  f.root.dataset.points = String(points.length);
  return f.root;
}

export interface HistogramData {
  edges: number[];
  counts: number[];
}

/**
 * A histogram (counts[i] over [edges[i], edges[i+1])); `mark` draws a labelled vertical line at a
 * value (e.g. the strategy's own return among random entries). data-mark-bin is the bin the mark
 * falls in (-1 left of the first edge, counts.length right of the last).
 */
export function histogramPlot(
  hist: HistogramData,
  o: { label: string; xTitle?: string; xFormat?: (v: number) => string; mark?: { value: number; label: string; color?: string } },
): SVGSVGElement {
  const { edges, counts } = hist;
  const xs = [...edges, ...(o.mark ? [o.mark.value] : [])];
  const f = frame({
    label: o.label,
    xDomain: extent(xs, 0.02),
    yDomain: [0, Math.max(1, ...counts)],
    xFormat: o.xFormat,
    xTitle: o.xTitle,
    yTitle: 'count',
  });
  const bars = svg('g', { class: 'bins' });
  counts.forEach((count, i) => {
    const lo = edges[i]!;
    const hi = edges[i + 1] ?? lo;
    const fmt = o.xFormat ?? String;
    bars.append(
      svg(
        'rect',
        {
          x: f.x(lo) + 0.5,
          width: Math.max(0.5, f.x(hi) - f.x(lo) - 1),
          y: f.y(count),
          height: f.y(0) - f.y(count),
          fill: NEUTRAL,
          'fill-opacity': 0.7,
          'data-count': count,
        },
        tip(`${fmt(lo)} to ${fmt(hi)}: ${count}`),
      ),
    );
  });
  f.root.append(bars);
  f.root.dataset.bins = String(counts.length);
  if (o.mark) {
    const v = o.mark.value;
    const first = edges[0] ?? v;
    const last = edges.at(-1) ?? v;
    // The last bin holds its upper edge too (the largest random run sits on it).
    const bin =
      v < first
        ? -1
        : v > last
          ? counts.length
          : Math.max(
              0,
              edges.findIndex((e, i) => i < counts.length && v >= e && v < edges[i + 1]!),
            );
    f.root.dataset.markBin = String(v === last && v >= first ? counts.length - 1 : bin);
    f.root.append(verticalMark(f, v, M.top + 12, o.mark.label, o.mark.color ?? '#f59e0b', 'mark'));
  }
  return f.root;
}

/** Bars from zero, one per item, green above and red below (e.g. each walk-forward fold's test return). */
export function barPlot(
  items: { label: string; value: number; title?: string }[],
  o: { label: string; yFormat?: (v: number) => string; xTitle?: string },
): SVGSVGElement {
  const n = items.length;
  const f = frame({
    label: o.label,
    xDomain: [-0.5, n - 0.5],
    yDomain: extent([0, ...items.map((i) => i.value)], 0.08),
    yFormat: o.yFormat,
    xTitle: o.xTitle,
    xTicks: items.map((_, i) => i),
    xFormat: (i) => items[i]?.label ?? '',
  });
  const width = ((W - M.left - M.right) / Math.max(1, n)) * 0.6;
  const bars = svg('g', { class: 'bars' });
  items.forEach((item, i) => {
    const top = f.y(Math.max(0, item.value));
    const bottom = f.y(Math.min(0, item.value));
    bars.append(
      svg(
        'rect',
        {
          x: f.x(i) - width / 2,
          width,
          y: top,
          height: Math.max(1, bottom - top),
          fill: item.value > 0 ? UP : DOWN,
          'data-value': item.value,
        },
        tip(item.title ?? `${item.label}: ${(o.yFormat ?? String)(item.value)}`),
      ),
    );
  });
  f.root.append(svg('line', { x1: M.left, x2: W - M.right, y1: f.y(0), y2: f.y(0), stroke: AXIS }), bars);
  f.root.dataset.bars = String(n);
  return f.root;
}

export interface ScatterPoint {
  x: number;
  y: number;
  title: string;
  /** highlighted: drawn larger and in amber (e.g. the chosen trial). */
  highlighted?: boolean;
  id?: string;
}

/**
 * A scatter of points (e.g. each trial's in-sample against its out-of-sample score), with the
 * y = x diagonal when `diagonal` (points under it did worse out of sample) and a least-squares
 * line when `fit` gives its slope and intercept.
 */
export function scatterPlot(
  points: ScatterPoint[],
  o: {
    label: string;
    xTitle: string;
    yTitle: string;
    xFormat?: (v: number) => string;
    yFormat?: (v: number) => string;
    diagonal?: boolean;
    fit?: { slope: number; intercept: number };
  },
): SVGSVGElement {
  const xDomain = extent(
    points.map((p) => p.x),
    0.05,
  );
  const yDomain = extent(
    points.map((p) => p.y),
    0.05,
  );
  const f = frame({ label: o.label, xDomain, yDomain, xFormat: o.xFormat, yFormat: o.yFormat, xTitle: o.xTitle, yTitle: o.yTitle });
  const clipY = (v: number) => Math.min(yDomain[1], Math.max(yDomain[0], v));
  if (o.diagonal) {
    const lo = Math.max(xDomain[0], yDomain[0]);
    const hi = Math.min(xDomain[1], yDomain[1]);
    if (hi > lo)
      f.root.append(
        svg(
          'line',
          { class: 'diagonal', x1: f.x(lo), y1: f.y(lo), x2: f.x(hi), y2: f.y(hi), stroke: AXIS, 'stroke-dasharray': '4 4' },
          tip('out of sample = in sample'),
        ),
      );
  }
  if (o.fit) {
    const at = (v: number) => o.fit!.slope * v + o.fit!.intercept;
    f.root.append(
      svg(
        'line',
        {
          class: 'fit',
          x1: f.x(xDomain[0]),
          y1: f.y(clipY(at(xDomain[0]))),
          x2: f.x(xDomain[1]),
          y2: f.y(clipY(at(xDomain[1]))),
          stroke: '#a78bfa',
          'stroke-width': 1.5,
        },
        tip(`degradation slope ${o.fit.slope.toFixed(2)}`),
      ),
    );
  }
  const dots = svg('g', { class: 'points' });
  // The highlighted points last, so they are drawn on top.
  for (const p of [...points].sort((a, b) => Number(!!a.highlighted) - Number(!!b.highlighted))) {
    const attrs: Record<string, string | number> = {
      cx: f.x(p.x),
      cy: f.y(p.y),
      r: p.highlighted ? 6 : 3.5,
      fill: p.highlighted ? '#f59e0b' : NEUTRAL,
      'fill-opacity': p.highlighted ? 1 : 0.7,
    };
    if (p.highlighted) attrs.class = 'highlighted';
    if (p.id !== undefined) attrs['data-id'] = p.id;
    dots.append(svg('circle', attrs, tip(p.title)));
  }
  f.root.append(dots);
  f.root.dataset.points = String(points.length);
  return f.root;
}

/** Values counted into `bins` equal bins over their range (for a histogram of raw values, e.g. PBO's logits). */
export function binValues(values: number[], bins: number): HistogramData {
  const finite = values.filter(Number.isFinite);
  const [lo, hi] = extent(finite);
  const width = (hi - lo) / bins;
  const edges = Array.from({ length: bins + 1 }, (_, i) => lo + i * width);
  const counts = new Array<number>(bins).fill(0);
  for (const v of finite) counts[Math.min(bins - 1, Math.max(0, Math.floor((v - lo) / width)))]!++;
  return { edges, counts };
}
