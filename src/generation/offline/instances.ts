/**
 * From indicator mentions to the indicator instances a strategy computes.
 *
 * - A mention with parameters is its own instance (missing parameters take the registry's
 *   defaults; values are rounded and held to the registry's bounds, MACD's fast < slow).
 * - A mention without parameters ("the RSI", "%D") is the latest instance of that indicator
 *   with parameters earlier in the same field, else the first one in the request, else the
 *   defaults. "fast"/"slow" without numbers pick the shortest/longest of the request's
 *   instances, or the usual pair (EMA 12/26, SMA 20/50, WMA 10/30).
 * - The structured `indicators` object wins over prose: `<name>_<param>` sets that parameter on
 *   the first instance of the indicator (adding one when prose named none), `<name>_enabled:
 *   true` adds it, `<name>_enabled: false` removes every instance and what depends on it.
 *   Unknown keys and wrong types are ignored, with a remark.
 */
import type { Timeframe } from '../../../schemas/common.ts';
import { INDICATOR_NAMES, type IndicatorName } from '../../../schemas/indicators.ts';
import { INDICATORS } from '../../indicators/index.ts';
import { GEN, GEN_NAMES, type GenName } from './gen-indicators.ts';
import type { Instance, TextField } from './intent.ts';
import type { Mention } from './parse-indicators.ts';

/** A mutable instance while the request is being resolved; identical ones merge at the end. */
export interface InstanceRef {
  name: GenName;
  params: Record<string, number>;
}

export interface InstanceTable {
  /** In creation order (the order things were mentioned). */
  refs: InstanceRef[];
  of: Map<Mention, InstanceRef>;
}

const PAIRS: Partial<Record<GenName, [number, number]>> = { ema: [12, 26], sma: [20, 50], wma: [10, 30] };

const label = (ref: InstanceRef) => `${ref.name.toUpperCase()}(${Object.values(ref.params).join(', ')})`;

const label2 = (what: string, param: string) => (what.startsWith('indicators.') ? `${what}_${param}` : `${what} ${param}`);

/** Defaults filled in, values rounded and bounded, MACD fast < slow; remarks for every change. */
export function completeParams(
  name: GenName,
  given: Record<string, number>,
  remarks: string[],
  what = name.toUpperCase(),
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of GEN[name].info.params) {
    let v = given[p.name] ?? p.default;
    if (!Number.isFinite(v)) v = p.default;
    if (p.type === 'integer' && !Number.isInteger(v)) {
      const r = Math.max(p.min, Math.round(v));
      remarks.push(`${label2(what, p.name)} ${v} is not a whole number of bars; using ${r}`);
      v = r;
    }
    if (v < p.min || v > p.max) {
      const c = Math.min(p.max, Math.max(p.min, v));
      remarks.push(`${label2(what, p.name)} ${v} is outside [${p.min}, ${p.max}]; using ${c}`);
      v = c;
    }
    out[p.name] = v;
  }
  if (name === 'macd' && !(out.fast! < out.slow!)) {
    const [fast, slow] = out.fast === out.slow ? [out.fast!, out.fast! + 1] : [out.slow!, out.fast!];
    remarks.push(`MACD fast (${out.fast}) must be below slow (${out.slow}); using fast ${fast}, slow ${slow}`);
    [out.fast, out.slow] = [fast, slow];
  }
  return boundWarmup(name, out, remarks, what);
}

/**
 * Bars of warm-up an indicator may need at most. The runtime's look-ahead analysis measures
 * warm-ups up to 5,000 bars and training drops them, so a recursive indicator (EMA, RSI, ATR,
 * MACD) is shortened until its warm-up fits: EMA span ≤ 217, RSI period ≤ 87, ATR ≤ 109.
 */
export const MAX_WARMUP_BARS = 3000;

function boundWarmup(name: GenName, params: Record<string, number>, remarks: string[], what: string): Record<string, number> {
  const indicator = GEN[name];
  if (indicator.warmup(params) <= MAX_WARMUP_BARS) return params;
  const out = { ...params };
  const before = indicator.warmup(params);
  // Shorten the longest span first, a bar at a time (deterministic, keeps MACD's fast < slow).
  while (indicator.warmup(out) > MAX_WARMUP_BARS) {
    const keys = Object.keys(out).filter((k) => k !== 'std');
    const longest = keys.reduce((a, b) => (out[b]! > out[a]! ? b : a));
    if (out[longest]! <= 2) break;
    out[longest] = out[longest]! - 1;
    if (name === 'macd' && out.fast! >= out.slow!) out.fast = out.slow! - 1;
  }
  const changed = Object.keys(out)
    .filter((k) => out[k] !== params[k])
    .map((k) => `${k} ${params[k]} -> ${out[k]}`);
  remarks.push(`${what} needs ${before} warm-up bars, beyond the ${MAX_WARMUP_BARS} the runtime allows; shortened: ${changed.join(', ')}`);
  return out;
}

const keyOf = (name: GenName, params: Record<string, number>) => `${name}:${JSON.stringify(params)}`;

/** Binds every mention of the request (fields in reading order) to an instance. */
export function resolveMentions(
  fields: ReadonlyArray<{ field: TextField; mentions: readonly Mention[] }>,
  timeframe: Timeframe,
  remarks: string[],
): InstanceTable {
  const refs: InstanceRef[] = [];
  const byKey = new Map<string, InstanceRef>();
  const of = new Map<Mention, InstanceRef>();
  const intern = (name: GenName, params: Record<string, number>): InstanceRef => {
    const key = keyOf(name, params);
    let ref = byKey.get(key);
    if (!ref) {
      ref = { name, params };
      byKey.set(key, ref);
      refs.push(ref);
    }
    return ref;
  };
  const explicit = (m: Mention) => Object.keys(m.params).length > 0;
  // Pass 1: instances with parameters, in request order.
  for (const { mentions } of fields) {
    for (const m of mentions) {
      if (!explicit(m)) continue;
      of.set(m, intern(m.name, completeParams(m.name, m.params, remarks)));
      if (m.days) remarks.push(`"${m.params.period ?? ''}-day" ${m.name.toUpperCase()} read as ${m.params.period} bars of ${timeframe}`);
    }
  }
  const firstWith = (name: GenName) => refs.find((r) => r.name === name) ?? null;
  // Pass 2: mentions without parameters.
  for (const { mentions } of fields) {
    const latest = new Map<GenName, InstanceRef>();
    for (const m of mentions) {
      const bound = of.get(m);
      if (bound) {
        latest.set(m.name, bound);
        continue;
      }
      const pair = PAIRS[m.name];
      if (m.qualifier && pair) {
        const same = refs.filter((r) => r.name === m.name).sort((a, b) => a.params.period! - b.params.period!);
        const period =
          same.length >= 2
            ? (m.qualifier === 'fast' ? same[0]! : same[same.length - 1]!).params.period!
            : m.qualifier === 'fast'
              ? pair[0]
              : pair[1];
        of.set(m, intern(m.name, completeParams(m.name, { period }, remarks)));
        continue;
      }
      of.set(m, latest.get(m.name) ?? firstWith(m.name) ?? intern(m.name, completeParams(m.name, {}, remarks)));
    }
  }
  return { refs, of };
}

/** Applies the structured indicators object; returns the indicators it disabled. */
export function applyIndicatorsObject(
  table: InstanceTable,
  obj: Readonly<Record<string, boolean | number>> | undefined,
  remarks: string[],
): Set<IndicatorName> {
  const disabled = new Set<IndicatorName>();
  if (!obj) return disabled;
  const given = new Map<IndicatorName, Record<string, number>>();
  const enabled = new Set<IndicatorName>();
  for (const key of Object.keys(obj).sort()) {
    const value = obj[key];
    const name = INDICATOR_NAMES.find((n) => key.startsWith(`${n}_`));
    const rest = name ? key.slice(name.length + 1) : '';
    if (name && rest === 'enabled') {
      if (typeof value !== 'boolean') remarks.push(`indicators.${key} must be true or false; ignored`);
      else if (value) enabled.add(name);
      else disabled.add(name);
      continue;
    }
    const param = name ? INDICATORS[name].info.params.find((p) => p.name === rest) : undefined;
    if (!name || !param) {
      remarks.push(`indicators.${key} is not a built-in indicator key; ignored`);
      continue;
    }
    if (typeof value !== 'number') {
      remarks.push(`indicators.${key} must be a number; ignored`);
      continue;
    }
    given.set(name, { ...(given.get(name) ?? {}), [param.name]: value });
  }
  for (const name of INDICATOR_NAMES) {
    if (disabled.has(name)) {
      if (table.refs.some((r) => r.name === name))
        remarks.push(`indicators.${name}_enabled = false removes the ${name.toUpperCase()} the text asked for, and the conditions on it`);
      table.refs = table.refs.filter((r) => r.name !== name);
      for (const [m, ref] of table.of) if (ref.name === name) table.of.delete(m);
      continue;
    }
    const params = given.get(name);
    if (!params && !enabled.has(name)) continue;
    const primary = table.refs.find((r) => r.name === name);
    if (!primary) {
      table.refs.push({ name, params: completeParams(name, params ?? {}, remarks, `indicators.${name}`) });
      continue;
    }
    if (!params) continue;
    const before = label(primary);
    primary.params = completeParams(name, { ...primary.params, ...params }, remarks, `indicators.${name}`);
    if (label(primary) !== before) {
      remarks.push(
        `the indicators object sets ${Object.entries(params)
          .map(([k, v]) => `${name}_${k} = ${v}`)
          .join(', ')}, overriding ${before} from the text`,
      );
    }
  }
  return disabled;
}

/** Identical instances merged, sorted in registry order (then by parameters): the final list. */
export function finalizeInstances(refs: readonly InstanceRef[]): { instances: Instance[]; index: Map<InstanceRef, number> } {
  const keys = [...new Set(refs.map((r) => keyOf(r.name, r.params)))];
  const unique = keys.map((k) => refs.find((r) => keyOf(r.name, r.params) === k)!);
  const order = (r: InstanceRef) => GEN_NAMES.indexOf(r.name);
  unique.sort((a, b) => order(a) - order(b) || compareParams(a, b));
  const instances = unique.map((r) => ({ name: r.name, params: { ...r.params } }));
  const index = new Map<InstanceRef, number>();
  for (const r of refs)
    index.set(
      r,
      unique.findIndex((u) => keyOf(u.name, u.params) === keyOf(r.name, r.params)),
    );
  return { instances, index };
}

function compareParams(a: InstanceRef, b: InstanceRef): number {
  for (const p of GEN[a.name].info.params) {
    const d = a.params[p.name]! - b.params[p.name]!;
    if (d !== 0) return d;
  }
  return 0;
}
