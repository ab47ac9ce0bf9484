/** A run's outputs → the response's overlays, panels, signals and features (the returned bars only). */
import type { CustomIndicatorResponse, FeMode, Panel, PlotSeries } from '../../../schemas/custom-indicators.ts';
import { isoFromMs } from '../../lib/iso-time.ts';
import type { PlotOut, RunResult } from '../runtime/outputs.ts';

export type Shaped = Pick<
  CustomIndicatorResponse,
  'title' | 'script_kind' | 'timestamps' | 'overlays' | 'panels' | 'signals' | 'features' | 'inputs'
>;

const value = (v: number): number | null => (Number.isFinite(v) ? v : null);

/**
 * The values from `from` on, na as null: a plain loop (Array.from mapping a typed array is slower),
 * pushed so the array stays packed (JSON.stringify prints a holey one more slowly).
 */
function valuesFrom(xs: Float64Array, from: number): (number | null)[] {
  const out: (number | null)[] = [];
  for (let i = from; i < xs.length; i++) out.push(value(xs[i]!));
  return out;
}

/** Snake-case identifier from a title, unique among `taken`. */
function uniqueName(title: string, taken: Set<string>): string {
  const base =
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'plot';
  let name = base;
  for (let k = 2; taken.has(name); k++) name = `${base}_${k}`;
  taken.add(name);
  return name;
}

const levelName = (price: number): string => String(price).replace('-', 'm').replace('.', 'p');

/**
 * `from`: index of the first returned bar in the run's bars (the ones before are warm-up).
 * `ts` and `close` cover every bar of the run.
 */
export function shapeRun(run: RunResult, ts: Float64Array, close: Float64Array, from: number, feMode: FeMode): Shaped {
  const n = ts.length;
  const names = new Set<string>();
  const series = (p: PlotOut): PlotSeries & { raw: Float64Array; onPrice: boolean } => ({
    name: uniqueName(p.title, names),
    title: p.title,
    color: p.color,
    style: p.style,
    linewidth: p.linewidth,
    values: valuesFrom(p.values, from),
    raw: p.values,
    onPrice: run.overlay || p.forceOverlay,
  });
  const plotted = run.plots.map(series);
  const strip = ({ raw: _raw, onPrice: _onPrice, ...s }: (typeof plotted)[number]): PlotSeries => s;
  const inPanel = plotted.filter((s) => !s.onPrice);
  const levels = run.hlines.map((h) => ({ title: h.title, price: h.price, color: h.color }));
  let panels: Panel[] = [];
  if (!run.overlay && (inPanel.length > 0 || levels.length > 0)) {
    let min = Infinity;
    let max = -Infinity;
    for (const s of inPanel) for (const v of s.values) if (v !== null) [min, max] = [Math.min(min, v), Math.max(max, v)];
    for (const l of levels) [min, max] = [Math.min(min, l.price), Math.max(max, l.price)];
    panels = [
      {
        name: uniqueName(run.title || 'panel', new Set(names)),
        series: inPanel.map(strip),
        levels,
        bounds: { min: Number.isFinite(min) ? min : null, max: Number.isFinite(max) ? max : null },
      },
    ];
  }
  // In bar order: a mark with a negative offset lands on an earlier bar than the marks before it.
  const signals = run.signals
    .filter((s) => s.bar >= from)
    .sort((a, b) => a.bar - b.bar)
    .map((s) => ({
      ts: isoFromMs(ts[s.bar]!),
      kind: s.kind,
      title: s.title,
      text: s.text,
      ...(s.direction ? { direction: s.direction } : {}),
      ...(s.location ? { location: s.location } : {}),
    }));

  const features: Record<string, (number | null)[]> = {};
  if (feMode !== 'none') {
    const col = (f: (i: number) => number): (number | null)[] => {
      const out: (number | null)[] = [];
      for (let i = from; i < n; i++) out.push(value(f(i)));
      return out;
    };
    for (const s of plotted) features[s.name] = s.values;
    if (feMode === 'full') {
      for (const s of plotted) {
        const x = s.raw;
        features[`${s.name}_slope`] = col((i) => (i === 0 ? NaN : x[i]! - x[i - 1]!));
        if (s.onPrice) {
          features[`${s.name}_dist`] = col((i) => (close[i]! - x[i]!) / close[i]!);
          features[`${s.name}_cross`] = col((i) => {
            if (i === 0 || !Number.isFinite(x[i]!) || !Number.isFinite(x[i - 1]!)) return NaN;
            const [was, now] = [close[i - 1]! - x[i - 1]!, close[i]! - x[i]!];
            return was <= 0 && now > 0 ? 1 : was >= 0 && now < 0 ? -1 : 0;
          });
        } else {
          for (const l of levels)
            features[`${s.name}_above_${levelName(l.price)}`] = col((i) => (Number.isFinite(x[i]!) ? (x[i]! > l.price ? 1 : 0) : NaN));
        }
      }
      const byTitle = new Map<string, Set<number>>();
      for (const s of run.signals) {
        const key = s.title || s.kind;
        if (!byTitle.has(key)) byTitle.set(key, new Set());
        byTitle.get(key)!.add(s.bar);
      }
      const signalNames = new Set(Object.keys(features));
      for (const [title, bars] of byTitle) features[uniqueName(`signal_${title}`, signalNames)] = col((i) => (bars.has(i) ? 1 : 0));
    }
  }
  return {
    title: run.title,
    script_kind: run.kind,
    timestamps: Array.from(ts.subarray(from), isoFromMs),
    overlays: plotted.filter((s) => s.onPrice).map(strip),
    panels,
    signals,
    features,
    inputs: run.inputs,
  };
}
