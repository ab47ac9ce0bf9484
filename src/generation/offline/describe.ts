/**
 * The words of a generated strategy: its style, a title of at most 60 characters, a one-line
 * objective and one-line notes, all built from the intent (never from raw request text, so they
 * are always safe Python string literals and stable).
 */
import type { Symbol, Timeframe } from '../../../schemas/common.ts';
import type { ConditionSpec, Instance, RiskLevel, Style } from './intent.ts';
import { instanceLabel } from './features.ts';
import { sig } from './market.ts';
import { MODEL_LABEL } from './models.ts';
import type { ModelType } from '../../../schemas/strategy.ts';

const STYLE_WORDS: Array<[RegExp, Style]> = [
  [/\bscalp(?:s|ing|er|ers)?\b/, 'scalping'],
  [/\bbreak ?outs?\b|\bbreaks? out\b|\bdonchian\b/, 'breakout'],
  [/\bmean reversion\b|\brevert(?:s|ing)?\b|\breversion\b|\bfade\b|\bfading\b|\bcounter ?trend\b/, 'mean-reversion'],
  [/\btrend following\b|\btrend follower\b|\bride the trend\b|\btrend rider\b/, 'trend'],
  [/\bmomentum\b/, 'momentum'],
];

export const STYLE_LABEL: Record<Style, string> = {
  momentum: 'momentum',
  'mean-reversion': 'mean reversion',
  breakout: 'breakout',
  trend: 'trend following',
  scalping: 'scalper',
  mixed: 'multi-signal',
};

/** The style a text names outright (the last one named), or null. */
export function statedStyle(texts: readonly string[]): Style | null {
  let best: { style: Style; at: number; text: number } | null = null;
  texts.forEach((text, t) => {
    for (const [re, style] of STYLE_WORDS) {
      for (const m of text.matchAll(new RegExp(re.source, 'g'))) {
        const at = m.index ?? 0;
        if (!best || t > best.text || (t === best.text && at > best.at)) best = { style, at, text: t };
      }
    }
  });
  return (best as { style: Style } | null)?.style ?? null;
}

/** The style the conditions imply when none is stated. */
export function impliedStyle(conditions: readonly ConditionSpec[], instances: readonly Instance[], trend: boolean): Style {
  const kinds = new Set<Style>();
  for (const { condition: c } of conditions) {
    if (c.kind === 'breakout') kinds.add('breakout');
    else if (c.kind === 'band') kinds.add(c.where === 'inside' ? 'trend' : 'mean-reversion');
    else if (c.kind === 'momentum') kinds.add('momentum');
    else if (c.kind === 'compare') {
      const left = c.left.kind === 'column' ? instances[c.left.instance]! : null;
      const cross = c.relation !== 'above' && c.relation !== 'below';
      if (left && (left.name === 'rsi' || left.name === 'stoch') && c.right.kind === 'value' && !cross) kinds.add('mean-reversion');
      else if (cross) kinds.add('momentum');
      else if (c.left.kind === 'price') kinds.add('trend');
    }
  }
  if (kinds.size === 0) return trend ? 'trend' : 'momentum';
  if (kinds.size === 1) return [...kinds][0]!;
  return kinds.has('mean-reversion') && kinds.has('momentum') ? 'mixed' : [...kinds].sort()[0]!;
}

/** The indicators the conditions are about (else every instance), as short labels. */
function coreLabels(conditions: readonly ConditionSpec[], instances: readonly Instance[]): string[] {
  const used = new Set<number>();
  for (const { condition: c } of conditions) {
    if (c.kind === 'compare') for (const op of [c.left, c.right]) if (op.kind === 'column') used.add(op.instance);
    if (c.kind === 'band') used.add(c.instance);
  }
  const list = (used.size ? [...used].sort((a, b) => a - b) : instances.map((_, i) => i)).map((i) => instances[i]!);
  const labels: string[] = [];
  // Moving averages of one kind read better as a pair: "EMA 12/26".
  const mas = new Map<string, number[]>();
  for (const inst of list) {
    if (inst.name === 'sma' || inst.name === 'ema' || inst.name === 'wma')
      mas.set(inst.name, [...(mas.get(inst.name) ?? []), inst.params.period!]);
  }
  const done = new Set<string>();
  for (const inst of list) {
    if (mas.has(inst.name)) {
      if (!done.has(inst.name)) labels.push(`${inst.name.toUpperCase()} ${mas.get(inst.name)!.join('/')}`);
      done.add(inst.name);
    } else if (inst.name !== 'atr' || list.length === 1) labels.push(instanceLabel(inst));
  }
  return labels;
}

export interface Summary {
  style: Style;
  conditions: readonly ConditionSpec[];
  instances: readonly Instance[];
  direction: 'both' | 'long' | 'short';
  sessionLabel: string | null;
  symbol: Symbol;
  timeframe: Timeframe;
  model: ModelType;
  stop: RiskLevel | null;
  take: RiskLevel | null;
  horizon: number;
  threshold: number;
  trend: string | null;
  minAtr: number | null;
  extra: string[];
}

/** Title: "<indicators> <style>[, long only][, <session>]", at most 60 characters. */
export function title(s: Summary): string {
  const labels = coreLabels(s.conditions, s.instances);
  const hasBreakout = s.conditions.some((c) => c.condition.kind === 'breakout');
  let core = `${labels.slice(0, 3).join(' + ')}${hasBreakout && labels.length ? ' +' : ''}${hasBreakout ? ' range' : ''}`.trim();
  if (!core) core = s.symbol;
  let out = `${core} ${STYLE_LABEL[s.style]}`;
  if (out.length > 60) out = `${labels[0] ?? s.symbol} ${STYLE_LABEL[s.style]}`;
  for (const part of [s.direction === 'both' ? '' : `${s.direction} only`, s.sessionLabel ?? '']) {
    if (part && out.length + part.length + 2 <= 60) out += `, ${part}`;
  }
  return out.slice(0, 60).trim();
}

const oneLine = (text: string, max: number) => {
  const flat = text
    .replace(/[\r\n]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 3).trimEnd()}...` : flat;
};

/** "Maximise …: <style> entries on SYMBOL tf" (one line, ≤ 200 characters). */
export function objective(goal: string, s: Summary): string {
  return oneLine(
    `${goal}: ${STYLE_LABEL[s.style]} entries from ${coreLabels(s.conditions, s.instances).join(', ') || 'price action'} on ${s.symbol} ${s.timeframe}`,
    200,
  );
}

const level = (what: string, r: RiskLevel | null) => (r ? `${what} ${sig(r.ratio * 100, 3)}% (~${sig(r.pips, 3)} pips)` : `no ${what}`);

/** Notes: the rules in brief (one line, ≤ 200 characters). */
export function notes(s: Summary): string {
  const parts = [
    s.direction === 'both' ? 'long and short' : `${s.direction} only`,
    s.sessionLabel ?? 'all hours',
    level('SL', s.stop),
    level('TP', s.take),
    `${MODEL_LABEL[s.model]}, p >= ${s.threshold}, ${s.horizon}-bar target`,
    ...(s.trend ? [`trend filter ${s.trend}`] : []),
    ...(s.minAtr !== null ? [`NATR >= ${s.minAtr}%`] : []),
    ...s.extra,
  ];
  return oneLine(parts.join('; '), 200);
}
