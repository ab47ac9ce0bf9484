import type { IndicatorInfo, IndicatorParams } from '../../schemas/indicators.ts';
import type { Indicator, IndicatorDef, ParamDef } from './types.ts';

/**
 * Column naming, one rule for every indicator: `<indicator>[_<output>]_<param values in declared
 * order>`, joined by `_`. A value is printed in its shortest form; a fractional one has its decimal
 * point written as `p` (bb_std 2.5 → `bb_upper_20_2p5`) so names stay plain identifiers.
 */
export const COLUMN_NAMING =
  '`<indicator>[_<output>]_<parameter values in declared order>`, joined by `_`; fractional values write ' +
  'the decimal point as `p` (bb_std 2.5 gives `bb_upper_20_2p5`).';

export function formatParamValue(value: number): string {
  return Number.isInteger(value) ? String(value) : String(value).replace('.', 'p');
}

export function fillPattern(pattern: string, values: Readonly<Record<string, number>>): string {
  return pattern.replace(/\{(\w+)\}/g, (_, key: string) => {
    const v = values[key];
    if (v === undefined) throw new Error(`column pattern ${pattern}: no parameter ${key}`);
    return formatParamValue(v);
  });
}

/** A number as a Python literal that parses to the same double (JS prints the shortest round-trip form). */
export function py(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
  return String(value);
}

/** An integer parameter (a window length or span). */
export function intParam<K extends string>(name: K, def: number, min: number, max: number, description: string): ParamDef<K> {
  return { name, type: 'integer', default: def, min, max, description };
}

/** Turns a typed module definition into a registry entry; masking and naming happen only here. */
export function defineIndicator<K extends string>(def: IndicatorDef<K>): Indicator {
  const resolve = (params: IndicatorParams): Record<K, number> => {
    const out = {} as Record<K, number>;
    for (const p of def.params) out[p.name] = params[p.name] ?? p.default;
    return out;
  };
  const columns = (params: IndicatorParams) => {
    const values = resolve(params);
    return def.columns.map((pattern) => fillPattern(pattern, values));
  };
  const warmup = (params: IndicatorParams) => def.warmup(resolve(params));
  const defaults = resolve({});
  // A pattern naming an unknown parameter, or code giving the wrong number of columns, fails at load.
  const empty = new Float64Array(0);
  const count = columns(defaults).length;
  if (
    def.pandas(defaults).exprs.length !== count ||
    def.compute({ open: empty, high: empty, low: empty, close: empty }, defaults).length !== count
  ) {
    throw new Error(`${def.name}: compute and pandas must give one value per column pattern`);
  }

  const info: IndicatorInfo = {
    name: def.name,
    label: def.label,
    description: def.description,
    enabled_key: `${def.name}_enabled`,
    params: def.params.map((p) => ({ ...p, key: `${def.name}_${p.name}` })),
    constraints: (def.constraints ?? []).map((c) => ({ ...c })),
    columns: { patterns: def.columns.map((c) => c), defaults: columns(defaults) },
    warmup: { bars: warmup(defaults), rule: def.warmupRule },
  };

  return {
    name: def.name,
    info,
    columns,
    warmup,
    compute(ohlc, params) {
      const values = resolve(params);
      const out = def.compute(ohlc, values);
      const w = def.warmup(values);
      for (const col of out) col.fill(NaN, 0, Math.min(w, col.length));
      return out;
    },
    pandasExprs(params) {
      const code = def.pandas(params as unknown as Record<K, number>);
      return { setup: [...(code.setup ?? [])], exprs: [...code.exprs] };
    },
    pandas(params) {
      const values = resolve(params);
      const names = columns(params);
      const code = def.pandas(values);
      const w = def.warmup(values);
      const warm = `_${def.name}_warm`;
      const args = def.params.map((p) => `${p.name}=${py(values[p.name])}`).join(', ');
      return [
        `# ${def.label} (${args}): ${names.join(', ')}; NaN for the first ${w} bars`,
        ...(code.setup ?? []),
        `${warm} = np.arange(len(close)) < ${w}`,
        ...code.exprs.map((expr, i) => `df['${names[i]}'] = (${expr}).mask(${warm})`),
      ].join('\n');
    },
  };
}
