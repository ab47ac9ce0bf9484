/**
 * Triple-barrier labels and the per-label purge of the meta-labelling trainer
 * (src/sandbox/python/meta_labels.py), against hand-computed cases: the module itself, run by
 * the sandbox's interpreter outside the jail (it is pure numpy; trainer.py calls these functions).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const PYTHON_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../src/sandbox/python');

/** Calls meta_labels.<fn>(**args) in python3; arrays in and out as lists, NaN as null. */
function call(fn: string, args: Record<string, unknown>): unknown {
  const script = `
import json, sys
import numpy as np
sys.path.insert(0, ${JSON.stringify(PYTHON_DIR)})
import meta_labels
args = json.load(sys.stdin)
conv = {k: (np.array([np.nan if x is None else x for x in v], dtype=float) if isinstance(v, list) and k not in ("t", "names") else v) for k, v in args.items()}
if "t" in conv: conv["t"] = np.array(conv["t"], dtype=np.int64)
if "X" in args: conv["X"] = np.array(args["X"], dtype=float)
out = getattr(meta_labels, ${JSON.stringify(fn)})(**conv)
print(json.dumps([o.tolist() if hasattr(o, "tolist") else o for o in out]).replace("NaN", "null"))
`;
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', script], { input: JSON.stringify(args) }).toString());
}

/** Bars from [open, high, low, close] rows. */
const bars = (rows: number[][]) => ({
  open_: rows.map((r) => r[0]!),
  high: rows.map((r) => r[1]!),
  low: rows.map((r) => r[2]!),
  close: rows.map((r) => r[3]!),
});

/** One trade signalled at bar 0 (entry at bar 1's open, 100), stop 1 and take 2 away unless said, horizon 3. */
function label(
  rows: number[][],
  o: { side?: number; stop?: number | null; take?: number | null; horizon?: number; limit?: number } = {},
): [number, number] {
  const b = bars([[100, 100, 100, 100], ...rows]);
  const [labels, ends] = call('triple_barrier', {
    ...b,
    t: [0],
    side: [o.side ?? 1],
    stop: [o.stop === undefined ? 1 : o.stop],
    take: [o.take === undefined ? 2 : o.take],
    horizon: o.horizon ?? 3,
    limit: o.limit ?? b.close.length,
  }) as [number[], number[]];
  return [labels[0]!, ends[0]!];
}

describe('triple-barrier labels (entry at the next open, 100; stop 99, take 102 for a long)', () => {
  it('take-profit touched first: 1, ending at that bar', () => {
    assert.deepEqual(
      label([
        [100, 101, 99.5, 100.5],
        [100.5, 102.5, 100, 102],
        [102, 102, 101, 101],
      ]),
      [1, 2],
    );
  });
  it('stop touched first: 0, ending at that bar (the take reached later does not count)', () => {
    assert.deepEqual(
      label([
        [100, 101, 99.5, 100.5],
        [100.5, 101, 98.9, 99],
        [99, 103, 99, 103],
      ]),
      [0, 2],
    );
  });
  it('both in one bar: the stop (conservative, as the engine without finer bars)', () => {
    assert.deepEqual(
      label([
        [100, 102.5, 98.5, 101],
        [101, 101, 101, 101],
        [101, 101, 101, 101],
      ]),
      [0, 1],
    );
  });
  it('a bar opening beyond the take is a win even when its low reaches the stop (the gap fills first)', () => {
    assert.deepEqual(
      label([
        [100, 101, 99.5, 100.8],
        [103, 103, 98, 99],
        [99, 99, 99, 99],
      ]),
      [1, 2],
    );
  });
  it('a bar opening beyond the stop is a loss', () => {
    assert.deepEqual(
      label([
        [100, 101, 99.5, 99.6],
        [98.5, 103, 98.5, 102.5],
        [102, 102, 102, 102],
      ]),
      [0, 2],
    );
  });
  it('the time limit: the sign of the return at the close of the horizon-th bar, ending there', () => {
    const quiet = (last: number) => [
      [100, 100.5, 99.5, 100],
      [100, 100.5, 99.5, 100],
      [100, 100.5, 99.5, last],
    ];
    assert.deepEqual(label(quiet(100.4)), [1, 3]);
    assert.deepEqual(label(quiet(99.6)), [0, 3]);
    assert.deepEqual(label(quiet(100)), [0, 3], 'no gain is no win');
  });
  it('null barriers: no stop and no take leave the time limit; no take leaves the stop', () => {
    const rows = [
      [100, 105, 95, 100],
      [100, 100, 100, 101],
      [101, 101, 101, 101],
    ];
    assert.deepEqual(label(rows, { stop: null, take: null }), [1, 3]);
    assert.deepEqual(label(rows, { take: null }), [0, 1]);
    assert.deepEqual(label(rows, { stop: null }), [1, 1]);
  });
  it('a short: stop above (101), take below (98)', () => {
    assert.deepEqual(
      label(
        [
          [100, 100.5, 99, 99.5],
          [99.5, 99.6, 97.9, 98],
          [98, 98, 98, 98],
        ],
        { side: -1 },
      ),
      [1, 2],
    );
    assert.deepEqual(
      label(
        [
          [100, 101.2, 99, 99.5],
          [99.5, 99.6, 97.9, 98],
          [98, 98, 98, 98],
        ],
        { side: -1 },
      ),
      [0, 1],
    );
    assert.deepEqual(
      label(
        [
          [100, 100.5, 99.5, 100],
          [100, 100.5, 99.5, 100],
          [100, 100.5, 99.5, 99.7],
        ],
        { side: -1 },
      ),
      [1, 3],
    );
  });
  it('a trade whose bars run past the trained span is unlabelled (-1), unless a barrier came first', () => {
    const rows = [
      [100, 100.5, 99.5, 100],
      [100, 100.5, 99.5, 100],
      [100, 100.5, 99.5, 100.4],
    ];
    assert.deepEqual(label(rows, { limit: 3 }), [-1, -1]);
    assert.deepEqual(label([[100, 102.5, 99.5, 102], ...rows.slice(1)], { limit: 3 }), [1, 1]);
  });
});

describe('rule rows and the per-label purge', () => {
  it('a train row is kept only when its label ended before the test starts; test rows are labelled rows from the split', () => {
    const [train, test] = call('train_test_rows', {
      t: [0, 5, 8, 9, 10, 12, 14],
      labels: [1, 0, 1, -1, 1, 0, 1],
      ends: [3, 9, 12, -1, 13, 14, 16],
      test_from: 10,
      fit_to: 16,
    }) as [boolean[], boolean[]];
    assert.deepEqual(train, [true, true, false, false, false, false, false], 'row 8 ends at 12, in the test: purged; row 9 is unlabelled');
    assert.deepEqual(test, [false, false, false, false, true, true, true]);
    const [embargoed] = call('train_test_rows', { t: [0, 5], labels: [1, 0], ends: [3, 9], test_from: 10, fit_to: 16, embargo: 1 }) as [
      boolean[],
    ];
    assert.deepEqual(embargoed, [true, false], 'an embargo of 1 bar purges a label ending at 9 before a test at 10');
  });

  it('rule sides: long where entry_long > 0, short where entry_short > 0, nothing where both fire or the direction excludes the side', () => {
    const X = [
      [1, 0],
      [0, 1],
      [1, 1],
      [0, 0],
    ];
    const base = { entry_long: 'up', entry_short: 'down', direction: 'both' };
    assert.deepEqual(call('rule_sides', { config: base, X, names: ['up', 'down'], close: [1, 1, 1, 1] }), [[1, -1, 0, 0], 1]);
    assert.deepEqual(call('rule_sides', { config: { ...base, direction: 'long' }, X, names: ['up', 'down'], close: [1, 1, 1, 1] }), [
      [1, 0, 1, 0],
      0,
    ]);
    assert.deepEqual(
      call('rule_sides', { config: { entry_long: 'up', direction: 'both' }, X, names: ['up', 'down'], close: [1, 1, 1, 1] }),
      [[1, 0, 1, 0], 0],
    );
  });

  it('barrier distances: ratios of the entry; a trailing stop starts as the lower barrier, the tighter of it and stop_loss', () => {
    const args = { entry: [100, 200], t: [0, 1], high: [1, 1], low: [1, 1], close: [1, 1], pip_size: 0.0001 };
    assert.deepEqual(call('stop_take_distances', { config: { stop_loss: 0.01, take_profit: 0.02 }, ...args }), [
      [1, 2],
      [2, 4],
    ]);
    const [stop, take] = call('stop_take_distances', { config: { stop_loss: 0.01, take_profit: null, trailing_stop: 0.005 }, ...args }) as [
      number[],
      (number | null)[],
    ];
    assert.deepEqual(stop, [0.5, 1]);
    assert.deepEqual(take, [null, null], 'no take-profit: no upper barrier');
    const [pips] = call('stop_take_distances', {
      config: { stop_loss: null, take_profit: null, trailing_stop: { pips: 20 } },
      ...args,
    }) as [number[]];
    assert.deepEqual(
      pips.map((v) => +v.toFixed(6)),
      [0.002, 0.002],
    );
  });
});
