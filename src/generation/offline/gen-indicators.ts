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
