import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResponseCache } from '../../src/edge/response-cache.ts';

describe('ResponseCache', () => {
  it('serves the bytes built at the same stamp, and rebuilds when the stamp moves', () => {
    const cache = new ResponseCache();
    let builds = 0;
    const build = () => `{"n":${++builds}}`;
    const first = cache.get('k', '1:0:100', build);
    assert.equal(first.toString(), '{"n":1}');
    assert.equal(cache.get('k', '1:0:100', build), first, 'the same Buffer, not rebuilt');
    assert.equal(cache.get('k', '1:0:101', build).toString(), '{"n":2}', 'a new bar: rebuilt');
    assert.equal(cache.get('k', '2:0:101', build).toString(), '{"n":3}', 'a reloaded series: rebuilt');
  });

  it('keeps at most maxEntries, evicting the least recently used', () => {
    const cache = new ResponseCache(2);
    cache.get('a', 's', () => 'A');
    cache.get('b', 's', () => 'B');
    cache.get('a', 's', () => 'A2'); // a is now the most recent
    cache.get('c', 's', () => 'C'); // evicts b
    assert.equal(cache.size, 2);
    assert.equal(cache.get('a', 's', () => 'A3').toString(), 'A');
    assert.equal(cache.get('b', 's', () => 'B2').toString(), 'B2');
  });
});
