/**
 * Market hours (the one rule: forex Sunday 22:00 to Friday 22:00 UTC, BTCUSD always) and the next
 * bar a user deploying now will see close, on known dates.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextBarClose, nextBarNotice, nextTradingTime, tradesAt } from '../../src/lib/market-hours.ts';

const at = (iso: string) => Date.parse(iso);

describe('market hours', () => {
  it('forex is shut from Friday 22:00 to Sunday 22:00 UTC; BTCUSD never', () => {
    assert.equal(tradesAt(false, at('2026-11-27T21:59:59Z')), true, 'Friday before the close');
    assert.equal(tradesAt(false, at('2026-11-27T22:00:00Z')), false, 'Friday at the close');
    assert.equal(tradesAt(false, at('2026-11-28T12:00:00Z')), false, 'Saturday');
    assert.equal(tradesAt(false, at('2026-11-29T21:59:59Z')), false, 'Sunday before the open');
    assert.equal(tradesAt(false, at('2026-11-29T22:00:00Z')), true, 'Sunday at the open');
    assert.equal(tradesAt(true, at('2026-11-28T12:00:00Z')), true, 'crypto on Saturday');
    assert.equal(nextTradingTime(false, at('2026-11-28T12:00:00Z')), at('2026-11-29T22:00:00Z'));
    assert.equal(nextTradingTime(false, at('2026-11-27T22:00:00Z')), at('2026-11-29T22:00:00Z'));
  });

  it('deployed on a Saturday, EURUSD’s first bar closes after the Sunday 22:00 UTC reopening, and the user is told why', () => {
    const saturday = at('2026-11-28T10:17:00Z');
    assert.deepEqual(nextBarClose('EURUSD', '1h', saturday), {
      closesAt: at('2026-11-29T23:00:00Z'),
      reopensAt: at('2026-11-29T22:00:00Z'),
    });
    assert.equal(nextBarClose('EURUSD', '1min', saturday).closesAt, at('2026-11-29T22:01:00Z'));
    const notice = nextBarNotice('EURUSD', '1h', saturday);
    assert.equal(notice.next_bar_at, '2026-11-29T23:00:00.000Z');
    assert.match(notice.note ?? '', /shut for the weekend.*reopens Sun, 29 Nov 2026 22:00 UTC.*closes Sun, 29 Nov 2026 23:00 UTC/);
  });

  it('on a weekday, and for BTCUSD on a Saturday, the bar running now closes next, without a note', () => {
    const wednesday = at('2026-11-25T14:07:30Z');
    assert.deepEqual(nextBarClose('EURUSD', '15min', wednesday), { closesAt: at('2026-11-25T14:15:00Z'), reopensAt: null });
    assert.deepEqual(nextBarClose('USDJPY', '1h', wednesday), { closesAt: at('2026-11-25T15:00:00Z'), reopensAt: null });
    assert.deepEqual(nextBarNotice('BTCUSD', '5min', at('2026-11-28T10:17:00Z')), { next_bar_at: '2026-11-28T10:20:00.000Z' });
  });
});
