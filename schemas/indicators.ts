import { z } from 'zod';
import { IsoDateTime, Symbol, Timeframe } from './common.ts';
import { ResponseSource } from './market.ts';
import { strictObject } from './strict.ts';

/**
 * The built-in indicators. Names, labels, parameters, bounds and column patterns live in the
 * registry (src/indicators/); this file holds only the shapes and the one parser, which the
 * registry feeds with its own description (schemas/ imports nothing but zod).
 */
export const INDICATOR_NAMES = ['sma', 'ema', 'wma', 'bb', 'rsi', 'macd', 'stoch', 'atr'] as const;
export const IndicatorName = z.enum(INDICATOR_NAMES);
export type IndicatorName = z.infer<typeof IndicatorName>;

/** Parameter values of one indicator, by parameter name (`period`, `fast`…). */
export type IndicatorParams = Readonly<Record<string, number>>;

/** One indicator to compute, defaults filled in: what the parser returns. */
export interface IndicatorRequest {
  name: IndicatorName;
  params: IndicatorParams;
}

/**
 * The indicators object as generate/train/from-template accept it: flat and free-form
 * (`<indicator>_enabled` boolean, `<indicator>_<param>` number; the contract allows other keys).
 */
export const MAX_INDICATOR_VALUE = 1_000_000;
export const IndicatorsObject = z
  .record(z.string().min(1).max(64), z.union([z.boolean(), z.number().min(-MAX_INDICATOR_VALUE).max(MAX_INDICATOR_VALUE)]))
  .refine((o) => Object.keys(o).length <= 200, 'at most 200 indicator keys')
  .describe(
    'Flat indicator config: `<indicator>_enabled` (boolean) and `<indicator>_<param>` (number, |value| ≤ 1,000,000); ' +
      'free-form keys (at most 200, 64 characters each). See GET /api/v1/indicator-schema',
  )
  .meta({ id: 'Indicators' });
export type IndicatorsObject = z.infer<typeof IndicatorsObject>;

export const IndicatorParam = z.object({
  name: z.string().describe('Parameter name, e.g. `period`'),
  key: z.string().describe('Its key in the indicators object: `<indicator>_<param>`, e.g. `rsi_period`'),
  type: z.enum(['integer', 'number']),
  default: z.number(),
  min: z.number().describe('Smallest allowed value (inclusive)'),
  max: z.number().describe('Largest allowed value (inclusive)'),
  description: z.string(),
});
export type IndicatorParam = z.infer<typeof IndicatorParam>;

/** A rule between two parameters of one indicator (MACD: fast < slow). */
export const IndicatorConstraint = z.object({
  param: z.string(),
  less_than: z.string().describe('The parameter whose value `param` must stay below'),
});
export type IndicatorConstraint = z.infer<typeof IndicatorConstraint>;

export const IndicatorInfo = z.object({
  name: IndicatorName,
  label: z.string(),
  description: z.string().describe('The definition, as computed (and as the pandas code computes it)'),
  enabled_key: z.string().describe('`<indicator>_enabled`'),
  params: z.array(IndicatorParam),
  constraints: z.array(IndicatorConstraint),
  columns: z.object({
    patterns: z.array(z.string()).describe('Feature column names, `{param}` standing for that parameter’s value'),
    defaults: z.array(z.string()).describe('The column names with the default parameters'),
  }),
  warmup: z.object({
    bars: z.number().int().describe('Leading bars that are NaN (null) with the default parameters'),
    rule: z.string().describe('How the warm-up follows from the parameters'),
  }),
});
export type IndicatorInfo = z.infer<typeof IndicatorInfo>;

/** Body of GET /api/v1/indicator-schema. */
export const IndicatorSchema = z
  .object({
    count: z.number().int(),
    indicators: z.array(IndicatorInfo),
    keys: z.string().describe('How the indicators object enables indicators and sets parameters'),
    column_naming: z.string().describe('How feature column names are built from the parameters'),
    warmup: z.string().describe('What the warm-up length means'),
  })
  .meta({ id: 'IndicatorSchema' });
export type IndicatorSchema = z.infer<typeof IndicatorSchema>;

/** What the parser needs to know about each indicator: a slice of IndicatorInfo. */
export type IndicatorRules = Pick<IndicatorInfo, 'name' | 'params' | 'constraints'>;

const paramSchema = (p: IndicatorParam) => {
  const base = z.number(`${p.key} must be a number`);
  const typed = p.type === 'integer' ? base.int(`${p.key} must be an integer`) : base;
  const range = `${p.key} must be between ${p.min} and ${p.max}`;
  return typed.min(p.min, range).max(p.max, range).optional().describe(`${p.description} (default ${p.default})`);
};

/**
 * The strict indicators object: every known key typed and bounded, unknown keys rejected by name,
 * turned into the list of enabled indicators with defaults filled in (in registry order).
 * An indicator is enabled by `<name>_enabled: true`, or, when that key is absent, by giving any of
 * its parameters; `<name>_enabled: false` leaves it out (its parameters are still checked).
 */
export function indicatorsInput(rules: readonly IndicatorRules[]) {
  const shape: Record<string, z.ZodOptional<z.ZodType>> = {};
  for (const r of rules) {
    shape[`${r.name}_enabled`] = z.boolean(`${r.name}_enabled must be true or false`).optional();
    for (const p of r.params) shape[p.key] = paramSchema(p);
  }
  const known = Object.keys(shape).join(', ');
  return z
    .strictObject(shape, {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `unknown indicator key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}: the keys are ${known}`
          : undefined,
    })
    .superRefine(
      (obj, ctx) => {
        for (const r of rules) {
          for (const c of r.constraints) {
            const value = (key: string) => obj[key] ?? r.params.find((p) => p.key === key)?.default;
            const [left, right] = [`${r.name}_${c.param}`, `${r.name}_${c.less_than}`];
            const [a, b] = [value(left), value(right)];
            if (typeof a === 'number' && typeof b === 'number' && !(a < b)) {
              ctx.addIssue({ code: 'custom', path: [left], message: `${left} (${a}) must be less than ${right} (${b})` });
            }
          }
        }
      },
      { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
    ) // also beside other issues
    .transform((obj): IndicatorRequest[] => {
      const list: IndicatorRequest[] = [];
      for (const r of rules) {
        const flag = obj[`${r.name}_enabled`];
        const given = r.params.some((p) => obj[p.key] !== undefined);
        if (flag === false || (flag === undefined && !given)) continue;
        const params: Record<string, number> = {};
        for (const p of r.params) params[p.name] = (obj[p.key] as number | undefined) ?? p.default;
        list.push({ name: r.name, params });
      }
      return list;
    })
    .describe(
      'Indicators to compute: `<indicator>_enabled` and `<indicator>_<param>` keys (see GET /api/v1/indicator-schema); unknown keys are refused',
    );
}

/** A problem with one key of an indicators object. */
export interface IndicatorIssue {
  /** The offending key, or '' when the whole value is wrong (not an object). */
  key: string;
  message: string;
}

export type ParsedIndicators = { ok: true; indicators: IndicatorRequest[] } | { ok: false; issues: IndicatorIssue[] };

/** Parses an indicators object against the rules; each issue names its key (unknown keys one by one). */
export function parseIndicators(input: unknown, rules: readonly IndicatorRules[]): ParsedIndicators {
  const result = indicatorsInput(rules).safeParse(input);
  if (result.success) return { ok: true, indicators: result.data };
  const issues: IndicatorIssue[] = [];
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) issues.push({ key, message: `unknown indicator key '${key}'` });
    } else {
      issues.push({ key: issue.path.map(String).join('.'), message: issue.message });
    }
  }
  return { ok: false, issues };
}

export const INDICATOR_FORMATS = ['columns', 'rows'] as const;
export const IndicatorFormat = z.enum(INDICATOR_FORMATS);
export type IndicatorFormat = z.infer<typeof IndicatorFormat>;

/** Body of POST /api/v1/indicators, with the strict indicators object built from the registry. */
export function indicatorsRequest(rules: readonly IndicatorRules[]) {
  return strictObject({
    indicators: indicatorsInput(rules),
    symbol: Symbol.default('EURUSD'),
    timeframe: Timeframe.default('15min'),
    format: IndicatorFormat.default('columns').describe('`columns`: one array per column; `rows`: one object per bar'),
    limit: z.number().int().min(1).max(5000).default(500).describe('Bars returned (the newest), each with full warm-up behind it'),
  });
}

/** `format: columns`: one array per column, aligned with `timestamp`; null where a value is undefined. */
export const IndicatorColumnsData = z
  .object({ timestamp: z.array(IsoDateTime).describe('Bar open times, oldest first') })
  .catchall(z.array(z.number().nullable()))
  .meta({ id: 'IndicatorColumnsData' });
export type IndicatorColumnsData = z.infer<typeof IndicatorColumnsData>;

/** `format: rows`: one object per bar, oldest first. */
export const IndicatorRowsData = z
  .array(z.object({ timestamp: IsoDateTime }).catchall(z.number().nullable()))
  .meta({ id: 'IndicatorRowsData' });
export type IndicatorRowsData = z.infer<typeof IndicatorRowsData>;

/** Response of POST /api/v1/indicators (the route writes it as JSON text; this is its shape and its OpenAPI doc). */
export const IndicatorsResponse = z
  .object({
    symbol: Symbol,
    timeframe: Timeframe,
    source: ResponseSource,
    format: IndicatorFormat,
    count: z.number().int(),
    warmup: z.number().int().describe('Bars computed before the first returned one, so that it is exact'),
    columns: z.array(z.string()).describe('Feature column names, as generated strategy code names them'),
    data: z.union([IndicatorColumnsData, IndicatorRowsData]),
  })
  .meta({ id: 'IndicatorsResponse' });
export type IndicatorsResponse = z.infer<typeof IndicatorsResponse>;
