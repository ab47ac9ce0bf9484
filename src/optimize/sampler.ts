/**
 * The optimiser's sampler: optuna in the sandbox (src/sandbox/python/optimizer.py), asked for the
 * next trials. It is stateless — every call sends the space and all the trials so far — so a job
 * can resume after a restart from its stored trials alone. Choices travel as their indices (optuna
 * takes only scalars; session_filter and skip_days are lists), and come back as the values.
 */
import type { ChoiceValue, OptimizeMethod } from '../../schemas/optimize-space.ts';
import type { StrategyRuntime, SuggestDistribution, SuggestTrial } from '../sandbox/index.ts';
import { withinBudget, type Budget, type JobOwner } from '../training/index.ts';
import { axisValues, type SearchSpace, type SpaceParam } from './search-space.ts';

/** One set of parameter values, by name. */
export type ParamValues = Record<string, ChoiceValue>;

/** A trial the sampler is told about: finished (its objective value, or failed), or asked and still running. */
export interface TriedParams {
  params: ParamValues;
  state: 'complete' | 'failed' | 'running';
  /** The objective's value, for `complete` (finite). */
  value?: number;
}

export interface SuggestInput {
  space: Pick<SearchSpace, 'params'>;
  method: OptimizeMethod;
  seed: number;
  direction: 'maximize' | 'minimize';
  history: readonly TriedParams[];
  /** Parameter sets wanted; a grid answers fewer when fewer of its points are left. */
  n: number;
}

/** What one suggestion may cost: optuna's TPE grows with trials told × sets asked × parameters. */
const BASE_MS = 5_000;
/**
 * TPE took 0.03 ms per (trial told × set asked × parameter) on the 2-core dev machine under load
 * (25 sets of 8 parameters after 200 trials: ~1 s); ten times that, so a busy host still fits.
 */
const MS_PER_UNIT = 0.3;
const CEILING_MS = 120_000;
/** optuna with numpy and scipy loaded and a study of a plan's largest trial count: a few hundred MB, doubled for headroom. */
const SAMPLER_MEMORY_MB = 1024;

export function suggestBudget(params: number, told: number, n: number): Budget {
  const units = Math.max(1, told) * n * Math.max(1, params);
  const timeoutMs = Math.round(Math.min(CEILING_MS, BASE_MS + MS_PER_UNIT * units));
  return {
    timeoutMs,
    memoryMb: SAMPLER_MEMORY_MB,
    what: 'the sampler',
    bars: 0,
    why: `${BASE_MS / 1000} s + ${MS_PER_UNIT} ms per trial told × set asked × parameter (${told} × ${n} × ${params})${timeoutMs === CEILING_MS ? `, at the ceiling of ${CEILING_MS / 1000} s` : ''}`,
    hint: 'ask for fewer trials at a time, or search fewer parameters',
  };
}

const key = (v: ChoiceValue) => JSON.stringify(v);

/** The parameter as optuna's distribution: its grid axis (grid), its range, or its choices' indices. */
function distribution(p: SpaceParam, method: OptimizeMethod): SuggestDistribution {
  const { spec } = p;
  if (spec.type === 'choice') return { type: 'categorical', choices: spec.values.map((_, i) => i) };
  if (method === 'grid') return { type: 'categorical', choices: axisValues(spec) as number[] };
  const { type, low, high, step, log } = spec;
  return { type, low, high, ...(step !== undefined ? { step } : {}), ...(log ? { log } : {}) };
}

/** A value as the sampler holds it: a choice's index, a number as it is. */
function encoder(p: SpaceParam): (v: ChoiceValue) => number {
  if (p.spec.type !== 'choice') {
    return (v) => {
      if (typeof v !== 'number') throw new Error(`trial value ${key(v)} of ${p.name} is not a number`);
      return v;
    };
  }
  const index = new Map(p.spec.values.map((v, i) => [key(v), i]));
  return (v) => {
    const i = index.get(key(v));
    if (i === undefined) throw new Error(`trial value ${key(v)} of ${p.name} is not one of its choices`);
    return i;
  };
}

/**
 * The sampler's next `n` parameter sets (fewer when a grid runs out), in the sandbox under the
 * budget of a small job. Same space, method, seed and history: the same sets.
 */
export async function suggest(runtime: Pick<StrategyRuntime, 'suggest'>, input: SuggestInput, owner?: JobOwner): Promise<ParamValues[]> {
  const { params } = input.space;
  const encode = new Map(params.map((p) => [p.name, encoder(p)]));
  const space = Object.fromEntries(params.map((p) => [p.name, distribution(p, input.method)]));
  const history: SuggestTrial[] = input.history.map((t) => ({
    params: Object.fromEntries(params.map((p) => [p.name, encode.get(p.name)!(t.params[p.name] ?? null)])),
    state: t.state,
    ...(t.state === 'complete' ? { value: t.value } : {}),
  }));
  const told = history.filter((t) => t.state !== 'running').length;
  const budget = suggestBudget(params.length, told, input.n);
  const suggested = await withinBudget(
    budget,
    (limits) =>
      runtime.suggest({ space, sampler: input.method, seed: input.seed, direction: input.direction, history, n: input.n }, limits),
    owner,
  );
  return suggested.map((set) =>
    Object.fromEntries(
      params.map((p) => {
        const v = set[p.name];
        if (typeof v !== 'number') throw new Error(`the sampler answered ${key(v ?? null)} for ${p.name}`);
        if (p.spec.type !== 'choice') return [p.name, v];
        const value = p.spec.values[v];
        if (value === undefined) throw new Error(`the sampler answered choice ${v} of ${p.name}, which has ${p.spec.values.length}`);
        return [p.name, value];
      }),
    ),
  );
}
