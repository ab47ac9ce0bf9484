import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Symbol } from '../../../schemas/common.ts';
import { Backoff } from '../../../src/market/sources/backoff.ts';
import { parseOandaLine, parseOandaTime, toOandaInstrument } from '../../../src/market/sources/oanda-price.ts';

const instruments = new Map<string, Symbol>([
  ['EUR_USD', 'EURUSD'],
  ['USD_JPY', 'USDJPY'],
]);
const price = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: 'PRICE',
    instrument: 'EUR_USD',
    time: '2016-09-20T15:05:47.960449532Z',
    tradeable: true,
    bids: [
      { price: '1.11590', liquidity: 10000000 },
      { price: '1.11580', liquidity: 50000000 },
    ],
    asks: [{ price: '1.11601', liquidity: 10000000 }],
    closeoutBid: '1.11575',
    closeoutAsk: '1.11616',
    ...over,
  });

describe('OANDA price lines', () => {
  it('names instruments BASE_QUOTE', () => {
    assert.equal(toOandaInstrument('EURUSD'), 'EUR_USD');
    assert.equal(toOandaInstrument('USDJPY'), 'USD_JPY');
  });

  it('keeps milliseconds of a nanosecond timestamp, truncating', () => {
    assert.equal(parseOandaTime('2016-09-20T15:05:47.960449532Z'), Date.UTC(2016, 8, 20, 15, 5, 47, 960));
    assert.equal(parseOandaTime('2016-09-20T15:05:59.999999999Z'), Date.UTC(2016, 8, 20, 15, 5, 59, 999));
    assert.equal(parseOandaTime('2016-09-20T15:05:47Z'), Date.UTC(2016, 8, 20, 15, 5, 47));
    assert.equal(parseOandaTime('2016-09-20T15:05:47.5Z'), Date.UTC(2016, 8, 20, 15, 5, 47, 500));
    for (const bad of ['1474383947.960449532', '2016-09-20 15:05:47Z', '2016-09-20T15:05:47.1+01:00', 5, null]) {
      assert.equal(parseOandaTime(bad), null, String(bad));
    }
  });

  it('maps a PRICE to a tick from the best bid and ask, without volume', () => {
    assert.deepEqual(parseOandaLine(price(), instruments), {
      kind: 'price',
      symbol: 'EURUSD',
      tick: { ts: Date.UTC(2016, 8, 20, 15, 5, 47, 960), bid: 1.1159, ask: 1.11601 },
    });
  });

  it('keeps a crossed quote (ask below bid) as a tick, as every tick source does', () => {
    assert.deepEqual(parseOandaLine(price({ asks: [{ price: '1.11580', liquidity: 1 }] }), instruments), {
      kind: 'price',
      symbol: 'EURUSD',
      tick: { ts: Date.UTC(2016, 8, 20, 15, 5, 47, 960), bid: 1.1159, ask: 1.1158 },
    });
  });

  it('recognises heartbeats, untradeable quotes and unknown types', () => {
    assert.deepEqual(parseOandaLine('{"type":"HEARTBEAT","time":"2016-09-20T15:05:50.163791738Z"}', instruments), { kind: 'heartbeat' });
    assert.deepEqual(parseOandaLine(price({ tradeable: false }), instruments), { kind: 'untradeable', symbol: 'EURUSD' });
    assert.deepEqual(parseOandaLine('{"type":"SOMETHING_NEW"}', instruments), { kind: 'other', type: 'SOMETHING_NEW' });
  });

  const bad: Array<[string, string, RegExp]> = [
    ['not JSON', '{"type":"PRICE",', /not JSON/],
    ['a JSON string', '"PRICE"', /not an object/],
    ['an instrument not asked for', price({ instrument: 'XAU_USD' }), /XAU_USD was not asked for/],
    ['a bad time', price({ time: 'yesterday' }), /not RFC 3339/],
    ['no bids', price({ bids: [] }), /best bid\/ask/],
    ['a numeric price', price({ asks: [{ price: 1.2, liquidity: 1 }] }), /best bid\/ask/],
    ['an empty price', price({ asks: [{ price: '', liquidity: 1 }] }), /best bid\/ask/],
    ['a zero price', price({ asks: [{ price: '0', liquidity: 1 }] }), /best bid\/ask/],
  ];
  for (const [name, line, reason] of bad) {
    it(`rejects ${name}`, () => {
      const r = parseOandaLine(line, instruments);
      assert.equal(r.kind, 'malformed');
      assert.match(r.kind === 'malformed' ? r.reason : '', reason);
    });
  }
});

describe('Backoff', () => {
  it('doubles up to the ceiling, with jitter between half and all of the step', () => {
    const low = new Backoff({ initialMs: 100, maxMs: 1000, healthyAfterMs: 5000 }, () => 0);
    assert.deepEqual(
      Array.from({ length: 6 }, () => low.next()),
      [50, 100, 200, 400, 500, 500],
    );
    const high = new Backoff({ initialMs: 100, maxMs: 1000, healthyAfterMs: 5000 }, () => 1);
    assert.deepEqual(
      Array.from({ length: 6 }, () => high.next()),
      [100, 200, 400, 800, 1000, 1000],
    );
  });

  it('starts over only after a connection that stayed up long enough', () => {
    const b = new Backoff({ initialMs: 100, maxMs: 10_000, healthyAfterMs: 5000 }, () => 1);
    b.next();
    b.next();
    b.connectionEnded(4999);
    assert.equal(b.next(), 400);
    b.connectionEnded(5000);
    assert.equal(b.next(), 100);
  });
});
