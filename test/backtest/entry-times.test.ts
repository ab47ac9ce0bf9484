/** Entry times (src/backtest/entry-times.ts): session hours and skipped days as a table of the week's 168 hours. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entryHourTable, weekdayOf, type EntryTimes } from '../../src/backtest/index.ts';
import { checkEntryTimes, hourOfWeek } from '../../src/backtest/entry-times.ts';
import { WEEKDAYS } from '../../schemas/strategy.ts';

const H = 3_600_000;
const MONDAY = Date.UTC(2024, 0, 8);

test('weekdayOf names the UTC day of an epoch-ms time; hourOfWeek counts from Thursday 00:00 UTC', () => {
  assert.deepEqual(
    Array.from({ length: 7 }, (_, d) => weekdayOf(MONDAY + d * 24 * H + 5 * H)),
    [...WEEKDAYS],
  );
  assert.equal(weekdayOf(Date.UTC(2024, 0, 12, 23, 59)), 'fri');
  assert.equal(weekdayOf(Date.UTC(2024, 0, 13, 0, 0)), 'sat');
  assert.equal(hourOfWeek(0), 0);
  assert.equal(hourOfWeek(Date.UTC(2024, 0, 11, 5, 30)), 5); // a Thursday
  assert.equal(hourOfWeek(Date.UTC(2024, 0, 10, 23, 59)), 167); // the Wednesday before
});

test('the table says, for every hour of a week, what the session and the days say', () => {
  const cases: EntryTimes[] = [
    { session: [8, 17], skipDays: [] },
    { session: [22, 3], skipDays: ['fri'] },
    { session: null, skipDays: ['mon', 'sun'] },
    { session: [0, 1], skipDays: ['tue', 'wed', 'thu'] },
  ];
  for (const times of cases) {
    const table = entryHourTable(times)!;
    for (let h = 0; h < 168; h++) {
      const ts = MONDAY + h * H + 17 * 60_000; // any minute of the hour
      const hour = new Date(ts).getUTCHours();
      const [start, end] = times.session ?? [0, 24];
      const inside = start > end ? hour >= start || hour < end : hour >= start && hour < end;
      assert.equal(
        table[hourOfWeek(ts)],
        inside && !times.skipDays.includes(weekdayOf(ts)) ? 1 : 0,
        `${JSON.stringify(times)} at ${new Date(ts).toISOString()}`,
      );
    }
  }
  assert.equal(entryHourTable(null), null);
  assert.equal(entryHourTable({ session: null, skipDays: [] }), null, 'no filter: no table, nothing to look up');
});

test('bad entry times are refused with what is wrong', () => {
  assert.throws(() => checkEntryTimes({ session: [8, 8], skipDays: [] }), /two differing whole hours/);
  assert.throws(() => checkEntryTimes({ session: [8, 24], skipDays: [] }), /two differing whole hours/);
  assert.throws(() => checkEntryTimes({ session: [7.5, 9], skipDays: [] }), /two differing whole hours/);
  assert.throws(() => checkEntryTimes({ session: null, skipDays: ['friday' as 'fri'] }), /friday is not one of mon/);
  checkEntryTimes({ session: [22, 6], skipDays: ['sat', 'sun'] });
  checkEntryTimes(null);
});
