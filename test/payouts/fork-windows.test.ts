import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstForkDay, openForks, spendWithin } from '../../src/payouts/index.ts';
import type { EntryLink } from '../../schemas/payouts.ts';

const MAR1 = Date.UTC(2025, 2, 1);
const at = (iso: string) => Date.parse(iso);

const entries = (...list: EntryLink[]) => new Map(list.map((e) => [e.community_id, e]));
const link = (community_id: number, user_id: number, parent_id: number | null, created: string): EntryLink => ({
  community_id,
  user_id,
  author: `u${user_id}`,
  parent_id,
  created_at: at(created),
});

describe('openForks: which forks pay whom on a UTC day', () => {
  const all = entries(
    link(1, 10, null, '2025-02-20T00:00:00Z'),
    link(2, 20, 1, '2025-03-03T10:00:00Z'),
    link(4, 10, 1, '2025-03-02T08:00:00Z'), // a self-fork
    link(5, 30, 99, '2025-03-02T08:00:00Z'), // its parent is gone
  );

  it('opens a fork at its publication, for 30 days', () => {
    assert.deepEqual(openForks(all, Date.UTC(2025, 2, 2)), [], 'the day before the fork: nothing');
    const publishDay = openForks(all, Date.UTC(2025, 2, 3));
    assert.equal(publishDay.length, 1);
    assert.deepEqual(publishDay[0], {
      parentUser: 10,
      parentAuthor: 'u10',
      childUser: 20,
      parentEntry: 1,
      childEntry: 2,
      spans: [[at('2025-03-03T10:00:00Z'), Date.UTC(2025, 2, 4)]],
    });
    assert.deepEqual(openForks(all, Date.UTC(2025, 2, 20))[0]!.spans, [[Date.UTC(2025, 2, 20), Date.UTC(2025, 2, 21)]]);
    assert.deepEqual(
      openForks(all, Date.UTC(2025, 3, 2))[0]!.spans,
      [[Date.UTC(2025, 3, 2), at('2025-04-02T10:00:00Z')]],
      'the last day ends 30 days after',
    );
    assert.deepEqual(openForks(all, Date.UTC(2025, 3, 3)), []);
  });

  it('a publisher forking one author twice pays once, over the union of the windows, filed under the older fork', () => {
    const twice = entries(
      link(1, 10, null, '2025-02-20T00:00:00Z'),
      link(7, 10, null, '2025-02-21T00:00:00Z'),
      link(8, 40, 1, '2025-03-12T06:00:00Z'),
      link(9, 40, 7, '2025-02-10T12:00:00Z'), // its window ends 2025-03-12T12:00Z
    );
    const pairs = openForks(twice, Date.UTC(2025, 2, 12));
    assert.equal(pairs.length, 1);
    assert.equal(pairs[0]!.childEntry, 8);
    assert.equal(pairs[0]!.parentEntry, 1);
    assert.deepEqual(pairs[0]!.spans, [[Date.UTC(2025, 2, 12), Date.UTC(2025, 2, 13)]], '[00:00, 12:00) ∪ [06:00, 24:00) = the whole day');
  });

  it('spendWithin counts [from, to) and nets refunds, never below 0', () => {
    const spans: Array<[number, number]> = [[MAR1 + 10, MAR1 + 20]];
    assert.equal(
      spendWithin(spans, [
        [MAR1 + 9, 100],
        [MAR1 + 10, 5],
        [MAR1 + 19, 7],
        [MAR1 + 20, 100],
      ]),
      12,
    );
    assert.equal(
      spendWithin(spans, [
        [MAR1 + 10, 5],
        [MAR1 + 11, -9],
      ]),
      0,
    );
  });

  it('firstForkDay is the UTC day of the oldest fork', () => {
    assert.equal(firstForkDay(all), Date.UTC(2025, 2, 2));
    assert.equal(firstForkDay(entries(link(1, 10, null, '2025-02-20T00:00:00Z'))), null);
  });
});
