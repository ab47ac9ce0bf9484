import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitPayout } from '../../src/payouts/index.ts';
import type { PayoutMark } from '../../schemas/payouts.ts';

const child = (entry: number, spend: number): PayoutMark['children'][number] => [1, entry, 100 + entry, spend];
const view = (lines: ReturnType<typeof splitPayout>) => lines.map((l) => [l.childEntry, l.share, l.credited, l.charity]);

describe('splitPayout: one parent author, one day', () => {
  it('pays 10 % of the spend, rounded down on the total (not per fork)', () => {
    assert.deepEqual(view(splitPayout([child(2, 80)], 'free')), [[2, 8, 8, 0]]);
    assert.deepEqual(view(splitPayout([child(2, 89)], 'free')), [[2, 8, 8, 0]], '8.9 → 8');
    // Two forks of 5 each: 10 % of 10 = 1 credit, not 0 + 0; the tie goes to the older child entry.
    assert.deepEqual(view(splitPayout([child(3, 5), child(2, 5)], 'free')), [
      [2, 1, 1, 0],
      [3, 0, 0, 0],
    ]);
  });

  it('splits in proportion to spend by largest remainder: the parts add up to the total', () => {
    // 30 + 45 = 75 → 7; 7·30/75 = 2.8, 7·45/75 = 4.2 → 2 + 4, the left-over credit to the larger remainder (2.8).
    assert.deepEqual(view(splitPayout([child(2, 30), child(3, 45)], 'free')), [
      [2, 3, 3, 0],
      [3, 4, 4, 0],
    ]);
  });

  it('caps the day at 200 credits over all forks', () => {
    // 3075 → 307 → 200; 200·30/3075 = 1.95, 200·3045/3075 = 198.05 → 1 + 198 + the left-over credit to the first.
    const lines = splitPayout([child(2, 30), child(3, 3045)], 'free');
    assert.deepEqual(view(lines), [
      [2, 2, 2, 0],
      [3, 198, 198, 0],
    ]);
    const many = splitPayout(
      Array.from({ length: 7 }, (_, i) => child(10 + i, 1000 + i)),
      'free',
    );
    assert.equal(
      many.reduce((s, l) => s + l.share, 0),
      200,
    );
  });

  it('on pro, 20 % of each share goes to charity; the author gets 80 % rounded down', () => {
    assert.deepEqual(view(splitPayout([child(2, 1000)], 'pro')), [[2, 100, 80, 20]]);
    // 7 → 5.6 → 5 credited, 2 donated (the rounding goes to charity).
    assert.deepEqual(view(splitPayout([child(2, 70)], 'pro')), [[2, 7, 5, 2]]);
    // 1 → 0 credited, 1 donated.
    assert.deepEqual(view(splitPayout([child(2, 10)], 'pro')), [[2, 1, 0, 1]]);
    const capped = splitPayout([child(2, 5000), child(3, 2500)], 'pro');
    assert.equal(
      capped.reduce((s, l) => s + l.share, 0),
      200,
    );
    assert.equal(
      capped.reduce((s, l) => s + l.credited + l.charity, 0),
      200,
    );
  });

  it('spends below 10 credits in all pay nothing', () => {
    assert.deepEqual(view(splitPayout([child(2, 9)], 'pro')), [[2, 0, 0, 0]]);
  });
});
