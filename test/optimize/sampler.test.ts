/**
 * The optimiser's sampler over the real sandbox, driven like a job drives it: ask a batch, run it,
 * tell the results, ask again. A grid covers every point of the enumerated grid exactly once across
 * batches; random is reproducible by its seed and answers the strategy's own values (choices as
 * listed); TPE concentrates near the optimum of a simple quadratic once it has been told enough.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { StrategyRuntime } from '../../src/sandbox/index.ts';
import { suggest, suggestBudget, type ParamValues, type SuggestInput, type TriedParams } from '../../src/optimize/sampler.ts';
import { checkSearchSpace, enumerateGrid, type SearchSpace } from '../../src/optimize/search-space.ts';
import { INDICATOR_RULES } from '../../src/indicators/index.ts';
import { OptimizeSearch, type OptimizeSearchInput } from '../../schemas/optimize-space.ts';
import { strategyConfig } from '../helpers/strategy-config.ts';

const space = (search: OptimizeSearchInput): SearchSpace =>
  checkSearchSpace(OptimizeSearch.parse(search), { config: strategyConfig('RandomForestClassifier'), indicators: INDICATOR_RULES });

/** Runs `trials` trials in batches as a job would; `score` null = the trial failed. */
async function drive(
  runtime: StrategyRuntime,
  input: Omit<SuggestInput, 'history' | 'n'>,
  trials: number,
  batch: number,
  score: (p: ParamValues) => number | null,
): Promise<ParamValues[]> {
  const history: TriedParams[] = [];
  while (history.length < trials) {
    const next = await suggest(runtime, { ...input, history, n: Math.min(batch, trials - history.length) });
    if (next.length === 0) break;
    for (const params of next) {
      const value = score(params);
      history.push(value === null ? { params, state: 'failed' } : { params, state: 'complete', value });
    }
  }
  return history.map((t) => t.params);
}

const key = (p: ParamValues) =>
  JSON.stringify(
    Object.keys(p)
      .sort()
      .map((k) => [k, p[k]]),
  );

describe('sampler (optuna in the sandbox)', () => {
  let runtime: StrategyRuntime;
  before(async () => {
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 1 });
  });
  after(() => runtime.stop());

  it('covers the grid exactly once across batches, failed trials included', async () => {
    const grid = space({
      method: 'grid',
      parameters: {
        session_filter: { type: 'choice', values: [[7, 17], null] },
        cooldown: { type: 'int', low: 0, high: 4, step: 2 },
        confidence_threshold: { type: 'float', low: 0.5, high: 0.6, step: 0.05 },
        direction: { type: 'choice', values: ['both', 'long'] },
      },
    });
    assert.equal(grid.gridSize, 36);
    let i = 0;
    const tried = await drive(runtime, { space: grid, method: 'grid', seed: 1, direction: 'maximize' }, 100, 7, () =>
      i++ % 5 === 0 ? null : i,
    );
    assert.equal(tried.length, 36, 'the sampler stops at the end of the grid');
    const expected = [...enumerateGrid(grid)].map(key).sort();
    assert.deepEqual(tried.map(key).sort(), expected);
  });

  it('draws random trials reproducibly by seed, as the strategy’s values', async () => {
    const s = space({
      method: 'random',
      parameters: {
        stop_loss: { type: 'float', low: 10, high: 50 },
        cooldown: { type: 'int', low: 0, high: 20 },
        skip_days: { type: 'choice', values: [[], ['fri'], ['mon', 'fri']] },
        direction: { type: 'choice', values: ['both', 'long', 'short'] },
      },
    });
    const run = (seed: number) =>
      drive(runtime, { space: s, method: 'random', seed, direction: 'maximize' }, 12, 4, (p) => p.stop_loss as number);
    const a = await run(5);
    assert.deepEqual(await run(5), a, 'same seed, same trials');
    assert.notDeepEqual(await run(6), a, 'another seed, other trials');
    assert.equal(new Set(a.map(key)).size, 12, 'each batch draws anew');
    for (const p of a) {
      assert.ok((p.stop_loss as number) >= 10 && (p.stop_loss as number) <= 50);
      assert.ok(Number.isInteger(p.cooldown) && (p.cooldown as number) <= 20);
      assert.ok(
        [[], ['fri'], ['mon', 'fri']].some((d) => JSON.stringify(d) === JSON.stringify(p.skip_days)),
        JSON.stringify(p.skip_days),
      );
      assert.ok(['both', 'long', 'short'].includes(p.direction as string));
    }
  });

  it('concentrates TPE near the optimum of a quadratic once told enough trials', async () => {
    const s = space({
      method: 'tpe',
      parameters: {
        stop_loss: { type: 'float', low: 1, high: 101 },
        take_profit: { type: 'float', low: 1, high: 101 },
      },
    });
    // Best at stop_loss 30, take_profit 70; failed where the take is under 5.
    const distance = (p: ParamValues) => Math.hypot((p.stop_loss as number) - 30, (p.take_profit as number) - 70);
    const score = (p: ParamValues) => ((p.take_profit as number) < 5 ? null : -(distance(p) ** 2));
    const tpe = await drive(runtime, { space: s, method: 'tpe', seed: 11, direction: 'maximize' }, 60, 6, score);
    const random = await drive(runtime, { space: s, method: 'random', seed: 11, direction: 'maximize' }, 60, 6, score);
    const near = (list: ParamValues[]) => list.slice(-20).filter((p) => distance(p) < 15).length;
    // Within 15 of the optimum is ~7 % of the square: random puts 1 or 2 of 20 there.
    assert.ok(near(tpe) >= 10, `TPE's last 20: ${near(tpe)} near the optimum (random: ${near(random)})`);
    assert.ok(near(tpe) > 2 * near(random), `TPE ${near(tpe)} vs random ${near(random)}`);
  });

  it('minimises when told to', async () => {
    const s = space({ method: 'tpe', parameters: { cooldown: { type: 'int', low: 0, high: 100 } } });
    const tried = await drive(runtime, { space: s, method: 'tpe', seed: 2, direction: 'minimize' }, 40, 8, (p) => p.cooldown as number);
    const last = tried.slice(-16).map((p) => p.cooldown as number);
    assert.ok(last.filter((c) => c < 30).length >= 8, `last 16: ${last.join(', ')}`);
  });

  it('gives a suggestion the budget of a small job, growing with the history', () => {
    assert.equal(suggestBudget(2, 0, 5).timeoutMs, 5_003);
    assert.ok(suggestBudget(8, 200, 25).timeoutMs > suggestBudget(8, 20, 25).timeoutMs);
    assert.equal(suggestBudget(30, 10_000, 100).timeoutMs, 120_000);
    assert.match(suggestBudget(30, 10_000, 100).why, /ceiling of 120 s/);
  });
});
