/**
 * Every indicator the offline generator computes, one lookup: the registry's eight (their pandas
 * is POST /indicators' own) and the trader indicators written here (trader-indicators.ts). What
 * the generator needs of either: parameters with bounds, column names, warm-up and the pandas.
 */
import { INDICATOR_NAMES, type IndicatorName } from '../../../schemas/indicators.ts';
import { INDICATORS, pandasCode } from '../../indicators/index.ts';
import { EXTRA_NAMES, EXTRAS, type ExtraName, type ParamSpec } from './trader-indicators.ts';

export type GenName = IndicatorName | ExtraName;
export const GEN_NAMES: readonly GenName[] = [...INDICATOR_NAMES, ...EXTRA_NAMES];

export interface GenIndicator {
  info: { params: readonly ParamSpec[] };
  columns: (p: Record<string, number>) => string[];
  warmup: (p: Record<string, number>) => number;
}

export const isRegistry = (name: GenName): name is IndicatorName => (INDICATOR_NAMES as readonly string[]).includes(name);

export const GEN: Record<GenName, GenIndicator> = { ...INDICATORS, ...EXTRAS } as Record<GenName, GenIndicator>;

/** The pandas lines of a list of instances: the registry's snippets, then ours. */
export function genPandas(list: ReadonlyArray<{ name: GenName; params: Record<string, number> }>): string {
  const lines: string[] = [];
  for (const { name, params } of list) {
    if (isRegistry(name)) lines.push(pandasCode([{ name, params }]));
    else lines.push(`# ${EXTRAS[name].label(params)}`, ...EXTRAS[name].lines(params, EXTRAS[name].columns(params)));
  }
  return lines.join('\n');
}

/**
 * The registry indicators whose periods a generated strategy reads from strategy_config()["indicators"]
 * (tunable by POST /optimize as indicators.<key>): those whose pandas only interpolates its
 * parameters. WMA's weights and the bands' multiplier are computed from theirs, so they stay literals.
 */
export const TUNABLE: ReadonlySet<GenName> = new Set<GenName>(['sma', 'ema', 'rsi', 'atr', 'macd', 'stoch']);
export interface Tunable {
  name: 'sma' | 'ema' | 'rsi' | 'atr' | 'macd' | 'stoch';
  params: Record<string, number>;
}

/** The Python variable holding a parameter read from strategy_config()["indicators"]. */
export const paramVar = (name: string, param: string) => `_p_${name}_${param}`;

/** The registry's warm-up rules (src/indicators/*.ts) in Python, over the parameters' variables. */
const SPAN = (v: string) => `1 / (1 + (${v} - 1) / 2)`;
const PY_WARMUP: Record<Tunable['name'], (v: (param: string) => string) => string> = {
  sma: (v) => `${v('period')} - 1`,
  ema: (v) => `_seed(${SPAN(v('period'))})`,
  rsi: (v) => `1 + _seed(1 / ${v('period')}, 1e-15)`,
  atr: (v) => `_seed(1 / ${v('period')})`,
  macd: (v) => `_seed(${SPAN(`max(${v('fast')}, ${v('slow')})`)}) + _seed(${SPAN(v('signal'))})`,
  stoch: (v) => `${v('k_period')} - 1 + (${v('d_period')} - 1)`,
};
const SEEDED = new Set<Tunable['name']>(['ema', 'rsi', 'atr', 'macd']);

/** The lines that read the tunable instances' parameters (and the seed helper their warm-ups use); '' for none. */
export function tunablePandas(list: readonly Tunable[]): string {
  if (!list.length) return '';
  const lines = [
    '# Periods read from strategy_config()["indicators"] (POST /optimize tunes them as indicators.<key>);',
    '# the columns of these indicators are named from the values read',
    '_ind = strategy_config()["indicators"]',
  ];
  for (const t of list) for (const p of INDICATORS[t.name].info.params) lines.push(`${paramVar(t.name, p.name)} = _ind["${p.key}"]`);
  if (list.some((t) => SEEDED.has(t.name))) {
    lines.push(
      'def _seed(alpha, tol=1e-12):',
      '    """Bars until a recursive average\'s seed weighs at most tol (the registry\'s warm-up)."""',
      '    return 0 if alpha >= 1 else int(np.ceil(np.log(tol) / np.log(1 - alpha)))',
    );
  }
  return lines.join('\n');
}

/** One tunable instance's pandas: the registry's code over the variables, masked for its warm-up (columns named at the code's own values; features.ts makes the names follow). */
tunablePandas.instance = (t: Tunable): string => {
  const ind = INDICATORS[t.name];
  const v = (param: string) => paramVar(t.name, param);
  const code = ind.pandasExprs(Object.fromEntries(ind.info.params.map((p) => [p.name, v(p.name)])));
  const names = ind.columns(t.params);
  const warm = `_${t.name}_warm`;
  return [
    `# ${ind.info.label} (${ind.info.params.map((p) => `${p.name}=${v(p.name)}`).join(', ')}): ${names.join(', ')}; NaN for its warm-up`,
    ...code.setup,
    `${warm} = np.arange(len(close)) < ${PY_WARMUP[t.name](v)}`,
    ...code.exprs.map((expr, i) => `df['${names[i]}'] = (${expr}).mask(${warm})`),
  ].join('\n');
};
