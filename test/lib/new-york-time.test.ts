import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newYorkWallToUtc } from '../../src/lib/new-york-time.ts';

const HOUR = 3_600_000;
const ny = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});

/** New York wall time of an instant per the tz database, encoded as if UTC. */
function intlWall(ts: number): number {
  const parts = ny.formatToParts(ts);
  const get = (type: string): number => Number(parts.find((p) => p.type === type)!.value);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'));
}

describe('newYorkWallToUtc: the hand-written US DST rules', () => {
  it("agrees with Intl's America/New_York every 30 minutes around every transition, 1987–2037", () => {
    let checked = 0;
    let repeated = 0;
    for (let year = 1987; year <= 2037; year++) {
      for (const [from, to] of [
        [Date.UTC(year, 2, 1), Date.UTC(year, 4, 1)],
        [Date.UTC(year, 9, 1), Date.UTC(year, 11, 1)],
      ] as const) {
        for (let ts = from; ts < to; ts += HOUR / 2) {
          const wall = intlWall(ts);
          const utc = newYorkWallToUtc(wall, new Date(wall).getUTCFullYear());
          checked++;
          if (utc === ts) continue;
          // The repeated hour on the fall-back Sunday is read as its first (EDT) occurrence.
          assert.equal(utc, ts - HOUR, `${new Date(ts).toISOString()} → ${new Date(wall).toISOString()}`);
          assert.equal(new Date(wall).getUTCHours(), 1);
          assert.equal(new Date(wall).getUTCDay(), 0);
          repeated++;
        }
      }
    }
    assert.equal(checked, 51 * (61 + 61) * 48);
    assert.equal(repeated, 51 * 2, 'two half hours per year are the repeated ones');
  });

  it('refuses wall times inside the spring-forward gap', () => {
    for (const [y, mo, d] of [
      [2014, 3, 9],
      [2007, 3, 11],
      [2006, 4, 2],
      [1990, 4, 1],
    ] as const) {
      assert.ok(Number.isNaN(newYorkWallToUtc(Date.UTC(y, mo - 1, d, 2, 30), y)), `${y}-${mo}-${d} 02:30`);
      assert.equal(newYorkWallToUtc(Date.UTC(y, mo - 1, d, 3, 0), y), Date.UTC(y, mo - 1, d, 7, 0));
      assert.equal(newYorkWallToUtc(Date.UTC(y, mo - 1, d, 1, 59), y), Date.UTC(y, mo - 1, d, 6, 59));
    }
  });
});
