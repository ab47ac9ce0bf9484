/**
 * The `suggest` op (optimizer.py) in the real sandbox, every wall up: optuna rebuilds a study from
 * the trials it is told and answers n parameter sets inside the distributions; the same request
 * answers the same sets; a grid never repeats a point and answers fewer when it runs out; a
 * request out of shape fails the job with its reason, and the zygote serves the next one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { StrategyJobError, StrategyRuntime, type SuggestRequest, type SuggestTrial } from '../../src/sandbox/runtime-pool.ts';

const SPACE: SuggestRequest['space'] = {
  x: { type: 'float', low: -5, high: 5 },
  k: { type: 'int', low: 10, high: 50, step: 5 },
  lr: { type: 'float', low: 0.001, high: 1, log: true },
  c: { type: 'categorical', choices: [0, 1, 2] },
};

function inSpace(p: SuggestTrial['params']): boolean {
  const { x, k, lr, c } = p as Record<string, number>;
  return (
    x! >= -5 &&
    x! <= 5 &&
    Number.isInteger(k) &&
    k! >= 10 &&
    k! <= 50 &&
    (k! - 10) % 5 === 0 &&
    lr! >= 0.001 &&
    lr! <= 1 &&
    [0, 1, 2].includes(c!)
  );
}

describe('suggest op (optuna in the sandbox)', () => {
  let runtime: StrategyRuntime;
  before(async () => {
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 1 });
  });
  after(() => runtime.stop());

  const ask = (r: Partial<SuggestRequest>) =>
    runtime.suggest({ space: SPACE, sampler: 'random', seed: 7, direction: 'maximize', history: [], n: 5, ...r }, { timeoutMs: 20_000 });

  it('answers n sets inside the distributions, for random and for TPE after told trials', async () => {
    const first = await ask({ n: 12 });
    assert.equal(first.length, 12);
    assert.ok(first.every(inSpace), JSON.stringify(first));
    const history: SuggestTrial[] = first.map((params, i) =>
      i === 3
        ? { params, state: 'failed' }
        : i === 4
          ? { params, state: 'running' }
          : { params, state: 'complete', value: -((params.x as number) ** 2) },
    );
    const tpe = await ask({ sampler: 'tpe', history, n: 8 });
    assert.equal(tpe.length, 8);
    assert.ok(tpe.every(inSpace), JSON.stringify(tpe));
  });

  it('answers the same sets to the same request, and other sets after more trials', async () => {
    const a = await ask({ sampler: 'tpe', n: 4 });
    assert.deepEqual(await ask({ sampler: 'tpe', n: 4 }), a);
    assert.notDeepEqual(await ask({ sampler: 'tpe', n: 4, seed: 8 }), a);
    const told: SuggestTrial[] = a.map((params) => ({ params, state: 'complete', value: 1 }));
    assert.notDeepEqual(await ask({ sampler: 'tpe', n: 4, history: told }), a);
  });

  it('walks a grid without repeating a point, running ones included, and stops at its end', async () => {
    const grid: SuggestRequest['space'] = {
      a: { type: 'categorical', choices: [1, 2, 3] },
      b: { type: 'categorical', choices: [0.5, null] },
    };
    const first = await ask({ space: grid, sampler: 'grid', n: 4 });
    assert.equal(first.length, 4);
    const history: SuggestTrial[] = first.map((params, i) =>
      i === 0 ? { params, state: 'running' } : { params, state: 'complete', value: i },
    );
    const rest = await ask({ space: grid, sampler: 'grid', n: 4, history });
    assert.equal(rest.length, 2, 'six points, four taken');
    const all = [...first, ...rest].map((p) => JSON.stringify([p.a, p.b]));
    assert.equal(new Set(all).size, 6);
    const done = [...history, ...rest.map((params): SuggestTrial => ({ params, state: 'complete', value: 0 }))];
    assert.deepEqual(await ask({ space: grid, sampler: 'grid', n: 4, history: done }), []);
  });

  it('fails a request out of shape with its reason, and serves the next', async () => {
    const cases: Array<[string, Partial<SuggestRequest>, RegExp]> = [
      [
        'a told trial outside the grid',
        {
          space: { a: { type: 'categorical', choices: [1, 2] } },
          sampler: 'grid',
          history: [{ params: { a: 9 }, state: 'complete', value: 1 }],
        },
        /not a point of the grid/,
      ],
      [
        'a complete trial without a value',
        { sampler: 'tpe', history: [{ params: { x: 0, k: 10, lr: 0.1, c: 0 }, state: 'complete' }] },
        /finite value/,
      ],
      ['a trial missing a parameter', { sampler: 'tpe', history: [{ params: { x: 0 }, state: 'failed' }] }, /not the space's/],
      ['an empty space', { space: {} }, /empty/],
      ['a grid over a range', { sampler: 'grid' }, /must be categorical/],
    ];
    for (const [what, request, message] of cases) {
      await assert.rejects(
        ask(request),
        (err: unknown) => err instanceof StrategyJobError && err.kind === 'error' && message.test(err.message),
        what,
      );
    }
    assert.equal((await ask({ n: 2 })).length, 2);
  });
});
