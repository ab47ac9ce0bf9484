/**
 * The code's header line and the market a request with code runs on: the request's, else the
 * header's, else the default; refused only when both name a symbol and they differ.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BadRequestError } from '../../src/errors.ts';
import { codeHeader, readCodeHeader, resolveMarket } from '../../src/sandbox/code-header.ts';

const BODY = 'import numpy as np\n\ndef feature_engineering(df, close, open_, high, low):\n    return df\n';
const audusd = `${codeHeader('AUDUSD', '1h')}\n${BODY}`;

describe('the code header and the market it implies', () => {
  it('reads the header our generators write, and nothing from code without one', () => {
    assert.deepEqual(readCodeHeader(audusd), { symbol: 'AUDUSD', timeframe: '1h' });
    assert.deepEqual(readCodeHeader(BODY), {});
    assert.deepEqual(readCodeHeader(`# signalforge: symbol=XAUUSD timeframe=4h\n${BODY}`), {}, 'a market with no bars here is not read');
  });

  it('header only: the header’s symbol and timeframe, said to come from it', () => {
    assert.deepEqual(resolveMarket({ code: audusd }, 'train'), {
      symbol: 'AUDUSD',
      timeframe: '1h',
      symbol_from: 'code header',
      timeframe_from: 'code header',
    });
  });

  it('both name the same symbol: the request’s; a timeframe of the request’s own wins over the header’s', () => {
    assert.deepEqual(resolveMarket({ code: audusd, symbol: 'AUDUSD' }, 'train'), {
      symbol: 'AUDUSD',
      timeframe: '1h',
      symbol_from: 'request',
      timeframe_from: 'code header',
    });
    assert.deepEqual(resolveMarket({ code: audusd, symbol: 'AUDUSD', timeframe: '5min' }, 'train'), {
      symbol: 'AUDUSD',
      timeframe: '5min',
      symbol_from: 'request',
      timeframe_from: 'request',
    });
    assert.deepEqual(resolveMarket({ code: audusd, timeframe: '15min' }, 'train'), {
      symbol: 'AUDUSD',
      timeframe: '15min',
      symbol_from: 'code header',
      timeframe_from: 'request',
    });
  });

  it('both name a symbol and they differ: 400 naming both and what to do', () => {
    assert.throws(
      () => resolveMarket({ code: audusd, symbol: 'EURUSD' }, 'optimise'),
      (err: unknown) =>
        err instanceof BadRequestError &&
        /symbol EURUSD does not match the code, which was generated for AUDUSD: optimise it on AUDUSD \(or leave symbol out/.test(
          err.message,
        ),
    );
  });

  it('neither names one: the default (EURUSD, 15min), or the fallback given (one_shot: what its prompt names)', () => {
    assert.deepEqual(resolveMarket({ code: BODY }, 'train'), {
      symbol: 'EURUSD',
      timeframe: '15min',
      symbol_from: 'default',
      timeframe_from: 'default',
    });
    assert.deepEqual(resolveMarket({ code: BODY, symbol: 'GBPUSD' }, 'train'), {
      symbol: 'GBPUSD',
      timeframe: '15min',
      symbol_from: 'request',
      timeframe_from: 'default',
    });
    assert.deepEqual(resolveMarket({ code: BODY }, 'train', { symbol: 'USDJPY', timeframe: '5min' }), {
      symbol: 'USDJPY',
      timeframe: '5min',
      symbol_from: 'default',
      timeframe_from: 'default',
    });
    assert.equal(
      resolveMarket({ code: audusd }, 'train', { symbol: 'USDJPY', timeframe: '5min' }).symbol,
      'AUDUSD',
      'the header before the fallback',
    );
  });
});
