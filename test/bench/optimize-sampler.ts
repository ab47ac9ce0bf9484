/**
 * The optimiser's sampler: one `suggest` in the sandbox (optuna rebuilt from the history, asked n
 * times) as an optimisation job pays it between batches. The figure of record: 25 TPE parameter
 * sets after 200 finished trials of an 8-parameter space (levels, threshold, pos_rules, a model
 * hyperparameter, choices); random and grid for comparison, and TPE over 12 parameters.
 */
import { createLogger } from '../../src/log.ts';
import { StrategyRuntime } from '../../src/sandbox/index.ts';
import { INDICATOR_RULES } from '../../src/indicators/index.ts';
import { suggest, type ParamValues, type TriedParams } from '../../src/optimize/sampler.ts';
import { checkSearchSpace, type SearchSpace } from '../../src/optimize/search-space.ts';
import { OptimizeSearch, type OptimizeSearchInput } from '../../schemas/optimize-space.ts';
import { StrategyConfig } from '../../schemas/strategy.ts';
import { numberOption, type BenchResult, type Benchmark } from './lib/types.ts';

const CONFIG = StrategyConfig.parse({
  model_type: 'RandomForestClassifier',
  model_params: {},
  signal_threshold: 0.55,
  direction: 'both',
  stop_loss: null,
  take_profit: null,
  cooldown: 0,
  max_positions: 1,
  on_opposite: 'reverse',
  session_filter: null,
  min_atr: null,
  trend_filter: null,
  target_horizon: 4,
  objective: '',
  notes: '',
  title: 'bench',
});

const EIGHT: OptimizeSearchInput['parameters'] = {
  stop_loss: { type: 'float', low: 10, high: 60 },
  take_profit: { type: 'float', low: 20, high: 120 },
  confidence_threshold: { type: 'float', low: 0.5, high: 0.8 },
  cooldown: { type: 'int', low: 0, high: 20 },
  max_positions: { type: 'int', low: 1, high: 3 },
  'model_params.n_estimators': { type: 'int', low: 50, high: 300, step: 50 },
  direction: { type: 'choice', values: ['both', 'long', 'short'] },
  on_opposite: { type: 'choice', values: ['reverse', 'close_only'] },
};
const TWELVE: OptimizeSearchInput['parameters'] = {
  ...EIGHT,
  'model_params.max_depth': { type: 'int', low: 3, high: 16 },
  'indicators.rsi_period': { type: 'int', low: 5, high: 30 },
  'indicators.ema_period': { type: 'int', low: 5, high: 200 },
  session_filter: { type: 'choice', values: [[7, 17], [12, 20], null] },
};
const GRID: OptimizeSearchInput['parameters'] = {
  stop_loss: { type: 'float', low: 10, high: 60, step: 5 },
  take_profit: { type: 'float', low: 20, high: 120, step: 10 },
  confidence_threshold: { type: 'float', low: 0.5, high: 0.8, step: 0.05 },
  direction: { type: 'choice', values: ['both', 'long', 'short'] },
};

const space = (method: 'grid' | 'random' | 'tpe', parameters: OptimizeSearchInput['parameters']): SearchSpace =>
  checkSearchSpace(OptimizeSearch.parse({ method, parameters }), { config: CONFIG, indicators: INDICATOR_RULES });

/** A history of `n` finished trials from the random sampler, valued by a smooth function (1 in 10 failed). */
async function history(runtime: StrategyRuntime, s: SearchSpace, method: 'grid' | 'random', n: number): Promise<TriedParams[]> {
  const out: TriedParams[] = [];
  while (out.length < n) {
    const batch = await suggest(runtime, {
      space: s,
      method,
      seed: 1,
      direction: 'maximize',
      history: out,
      n: Math.min(100, n - out.length),
    });
    for (const params of batch)
      out.push(out.length % 10 === 9 ? { params, state: 'failed' } : { params, state: 'complete', value: value(params) });
  }
  return out;
}

const value = (p: ParamValues) => -(((p.stop_loss as number) - 30) ** 2) - ((p.take_profit as number) - 80) ** 2 / 4;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export const benchmark: Benchmark = {
  name: 'optimize-sampler',
  description:
    'One suggest in the sandbox: 25 TPE parameter sets after 200 finished trials (8 parameters), with random, grid and 12 parameters for comparison',
  async run(ctx) {
    const runs = numberOption(ctx, 'runs', 5);
    const told = numberOption(ctx, 'told', 200);
    const runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 1 });
    ctx.defer(() => runtime.stop());
    const results: BenchResult[] = [];
    const cases: Array<[string, 'grid' | 'random' | 'tpe', OptimizeSearchInput['parameters']]> = [
      ['tpe-25-after-200', 'tpe', EIGHT],
      ['random-25-after-200', 'random', EIGHT],
      ['grid-25-after-200', 'grid', GRID],
      ['tpe-25-after-200-12-params', 'tpe', TWELVE],
    ];
    for (const [name, method, parameters] of cases) {
      const s = space(method, parameters);
      const told_ = await history(runtime, s, method === 'grid' ? 'grid' : 'random', told);
      const times: number[] = [];
      for (let i = 0; i < runs && !ctx.signal.aborted; i++) {
        const started = performance.now();
        const sets = await suggest(runtime, { space: s, method, seed: 7 + i, direction: 'maximize', history: told_, n: 25 });
        times.push(performance.now() - started);
        if (sets.length !== 25) throw new Error(`${name}: ${sets.length} sets`);
      }
      ctx.log(`${name}: median ${median(times).toFixed(0)} ms over ${times.length} runs`);
      results.push({
        name,
        params: s.params.length,
        told,
        asked: 25,
        runs: times.length,
        median_ms: Math.round(median(times)),
        max_ms: Math.round(Math.max(...times)),
      });
    }
    return results;
  },
};
