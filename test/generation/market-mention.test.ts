/**
 * The one rule every entry point uses to settle a request's market: the field, else what the text
 * names (symbols however traders write them, one timeframe), else EURUSD 15min.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { marketMentioned, withMarket } from '../../src/generation/index.ts';

describe('marketMentioned', () => {
  it('reads symbols however they are written, the first one named winning', () => {
    for (const [text, symbol] of [
      ['buy GBPUSD dips', 'GBPUSD'],
      ['EUR/USD breakout', 'EURUSD'],
      ['usd-jpy carry', 'USDJPY'],
      ['nzd usd at the Asian open', 'NZDUSD'],
      ['cable at the London open', 'GBPUSD'],
      ['the loonie after oil news', 'USDCAD'],
      ['bitcoin on weekends', 'BTCUSD'],
      ['USDCHF, then EURUSD if it fails', 'USDCHF'],
      ['swissy hourly flips', 'USDCHF'],
      ['fibre breakout', 'EURUSD'],
      ['btc scalps', 'BTCUSD'],
      ['gu 1h pullbacks', 'GBPUSD'],
      ['long uj on the dip', 'USDJPY'],
      ['eu 15m range', 'EURUSD'],
      ['euro dollar at the open', 'EURUSD'],
    ] as const) {
      assert.equal(marketMentioned(text).symbol, symbol, text);
    }
    assert.equal(marketMentioned('RSI below 30').symbol, undefined);
    // Shorthands that are English words too count only where a pair stands.
    assert.equal(marketMentioned('buy the dip, eg when RSI is below 30').symbol, undefined);
    assert.equal(marketMentioned('gopher 5m scalp, then usdjpy').symbol, 'USDJPY', 'a pair with no bars (GBPJPY) is not a symbol');
  });

  it('reads a timeframe only when exactly one is named', () => {
    for (const [text, timeframe] of [
      ['15 minute bars', '15min'],
      ['on the hourly chart', '1h'],
      ['5-min scalps', '5min'],
      ['M1 entries', '1min'],
      ['one hour candles', '1h'],
      ['60 minute bars', '1h'],
      ['kiwi hrly pullbacks', '1h'],
    ] as const) {
      assert.equal(marketMentioned(text).timeframe, timeframe, text);
    }
    assert.equal(marketMentioned('enter on 5 min, confirm on the hourly').timeframe, undefined, 'two named: neither is taken');
    assert.equal(marketMentioned('hold for 20 bars').timeframe, undefined);
  });

  it('takes the timeframe a correction names when several are named ("on the 15m, no wait, make that hourly")', () => {
    assert.equal(marketMentioned('sell usdcad rsi 70 on the 15m, no wait, make that hourly').timeframe, '1h');
    assert.equal(marketMentioned('scalp the 1 minute chart, or rather the m5').timeframe, '5min');
    assert.equal(marketMentioned('enter on 5 min, confirm on the hourly').timeframe, undefined, 'no correction: neither is taken');
  });
});

describe('withMarket', () => {
  it('lets a field win over the text, the text over the default, and reads every text field', () => {
    assert.deepEqual(pick(withMarket({ description: 'USDJPY hourly trend' })), ['USDJPY', '1h']);
    assert.deepEqual(pick(withMarket({ description: 'USDJPY hourly trend', symbol: 'EURUSD' })), ['EURUSD', '1h']);
    assert.deepEqual(pick(withMarket({ description: 'USDJPY hourly trend', timeframe: '5min' })), ['USDJPY', '5min']);
    assert.deepEqual(pick(withMarket({ description: 'trend', signals: 'enter on the 15 minute close', risk: 'stop 20 pips on aud/usd' })), [
      'AUDUSD',
      '15min',
    ]);
    assert.deepEqual(pick(withMarket({ description: 'RSI mean reversion' })), ['EURUSD', '15min']);
  });
});

const pick = (r: { symbol: string; timeframe: string }) => [r.symbol, r.timeframe];
