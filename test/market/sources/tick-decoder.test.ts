import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeTicks, describeProblem, parseTick, parseTickWithZod, tickVolume } from '../../../src/market/sources/tick-decoder.ts';
import { randomTickText, rng } from './random-ticks.ts';

const enc = new TextEncoder();

describe('decodeTicks', () => {
  it('decodes one tick from a string or bytes, keeping only the schema keys', () => {
    const text = '{"ts":1700000000000,"bid":1.085,"ask":1.0851,"bid_volume":2,"ask_volume":3,"venue":"x"}';
    for (const payload of [text, enc.encode(text)]) {
      const r = decodeTicks(payload);
      assert.equal(r.malformed, 0);
      assert.deepEqual(r.ticks, [{ ts: 1700000000000, bid: 1.085, ask: 1.0851, bid_volume: 2, ask_volume: 3 }]);
      assert.equal(r.problem, undefined);
    }
    const [tick] = decodeTicks(text).ticks;
    assert.equal(tickVolume(tick!), 5);
    assert.equal(tickVolume({ ts: 1, bid: 1, ask: 1 }), 0);
  });

  it('decodes an array (batch), keeps good elements and counts each bad one', () => {
    const batch = [
      { ts: 1, bid: 1.1, ask: 1.2 },
      { ts: 2, bid: 1.3, ask: 0 }, // ask not positive
      { ts: 3, bid: 1.1, ask: 1.1 },
      'nope',
      [{ ts: 4, bid: 1, ask: 1 }], // nested arrays are not flattened
    ];
    const r = decodeTicks(JSON.stringify(batch));
    assert.deepEqual(
      r.ticks.map((t) => t.ts),
      [1, 3],
    );
    assert.equal(r.malformed, 3);
    assert.equal(r.problem?.kind, 'tick');
    assert.match(describeProblem(r.problem!), /ask: .*>0/);
    assert.deepEqual(decodeTicks('[]'), { ticks: [], malformed: 0 });
  });

  it('accepts a crossed quote (ask below bid) as it is: real vendor feeds publish them', () => {
    // FXCM's EURUSD feed has 10 % crossed ticks; its own bars include them.
    const r = decodeTicks('[{"ts":1,"bid":1.38727,"ask":1.38705},{"ts":2,"bid":1.2,"ask":1.1,"bid_volume":1}]');
    assert.equal(r.malformed, 0);
    assert.deepEqual(r.ticks, [
      { ts: 1, bid: 1.38727, ask: 1.38705 },
      { ts: 2, bid: 1.2, ask: 1.1, bid_volume: 1 },
    ]);
    assert.deepEqual(parseTickWithZod({ ts: 1, bid: 1.2, ask: 1.1 }), { ts: 1, bid: 1.2, ask: 1.1 });
  });

  const malformed: Array<[string, string | Uint8Array, RegExp]> = [
    ['empty payload', '', /not JSON/],
    ['truncated JSON', '{"ts":1,"bid":1', /not JSON/],
    ['NDJSON (two values)', '{"ts":1,"bid":1,"ask":1}\n{"ts":2,"bid":1,"ask":1}', /not JSON/],
    ['invalid UTF-8 bytes', new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), /not JSON/],
    ['a number', '42', /neither a tick/],
    ['a string', '"EURUSD 1.1 1.2"', /neither a tick/],
    ['null', 'null', /neither a tick/],
    ['an empty object', '{}', /ts: .*expected number/],
    ['missing ask', '{"ts":1,"bid":1}', /ask: /],
    ['ts as ISO string', '{"ts":"2024-01-01T00:00:00Z","bid":1,"ask":1}', /ts: .*expected number/],
    ['price as string', '{"ts":1,"bid":"1.1","ask":1.2}', /bid: .*expected number/],
    ['ts zero', '{"ts":0,"bid":1,"ask":1}', /ts: .*>0/],
    ['ts negative', '{"ts":-5,"bid":1,"ask":1}', /ts: /],
    ['ts fractional', '{"ts":1.5,"bid":1,"ask":1}', /ts: .*int/],
    ['ts beyond 2^53', '{"ts":9007199254740992,"bid":1,"ask":1}', /ts: /],
    ['bid zero', '{"ts":1,"bid":0,"ask":1}', /bid: /],
    ['bid negative', '{"ts":1,"bid":-1.1,"ask":1}', /bid: /],
    ['bid overflowing to Infinity', '{"ts":1,"bid":1e400,"ask":1e400}', /bid: /],
    ['ask zero', '{"ts":1,"bid":1.2,"ask":0}', /ask: .*>0/],
    ['volume null', '{"ts":1,"bid":1,"ask":1,"bid_volume":null}', /bid_volume: /],
    ['volume negative', '{"ts":1,"bid":1,"ask":1,"ask_volume":-1}', /ask_volume: /],
    ['volume as string', '{"ts":1,"bid":1,"ask":1,"ask_volume":"3"}', /ask_volume: /],
    ['ts in a nested object', '{"tick":{"ts":1,"bid":1,"ask":1}}', /ts: /],
  ];
  for (const [name, payload, reason] of malformed) {
    it(`counts ${name} as one malformed record and never throws`, () => {
      const r = decodeTicks(payload);
      assert.equal(r.ticks.length, 0);
      assert.equal(r.malformed, 1);
      assert.ok(r.problem);
      assert.match(describeProblem(r.problem), reason);
    });
  }
});

// ---- fast path ≡ zod ---------------------------------------------------------------------------

describe('parseTick (fast path) agrees with the TickMessage zod schema', () => {
  it('on 50 000 random valid and invalid JSON ticks', (t) => {
    const r = rng(20240601);
    let valid = 0;
    for (let i = 0; i < 50_000; i++) {
      const text = randomTickText(r);
      const value: unknown = JSON.parse(text);
      const fast = parseTick(value);
      const ref = parseTickWithZod(value);
      assert.deepStrictEqual(fast, ref, `disagreement on ${text}`);
      if (ref) valid++;
    }
    // Both sides of the rule must be well exercised for the comparison to mean anything.
    assert.ok(valid > 5_000 && valid < 45_000, `valid=${valid}`);
    t.diagnostic(`${valid} of 50000 random ticks valid`);
  });

  it('on hand-picked edge values, including ones JSON cannot carry', () => {
    const base = { ts: 1, bid: 1, ask: 1 };
    const edges: unknown[] = [
      base,
      { ...base, ts: Number.MAX_SAFE_INTEGER },
      { ...base, ts: NaN },
      { ...base, bid: NaN },
      { ...base, ask: -Infinity },
      { ...base, bid_volume: NaN },
      { ...base, bid_volume: -0 },
      { ...base, ask_volume: Infinity },
      { ...base, bid_volume: undefined },
      { ...base, ts: '1' },
      { ...base, ts: 1n },
      Object.create(base),
      new Date(),
      [],
      null,
      undefined,
      'x',
      1,
      { ...base, bid: Number.MIN_VALUE, ask: Number.MIN_VALUE },
      { ...base, ask: Number.MAX_VALUE },
    ];
    for (const value of edges) {
      assert.deepStrictEqual(parseTick(value), parseTickWithZod(value), `disagreement on ${String(value)}`);
    }
  });

  it('decodeTicks on whole random batches matches a zod-only decoder', () => {
    const r = rng(7);
    for (let i = 0; i < 2_000; i++) {
      const n = Math.floor(r() * 20);
      const text = `[${Array.from({ length: n }, () => randomTickText(r)).join(',')}]`;
      const values = JSON.parse(text) as unknown[];
      const ref = values.map(parseTickWithZod);
      const got = decodeTicks(text);
      assert.deepStrictEqual(
        got.ticks,
        ref.filter((t) => t !== null),
      );
      assert.equal(got.malformed, ref.filter((t) => t === null).length);
    }
  });
});
