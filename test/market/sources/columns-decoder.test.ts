/**
 * The byte decoder (payload → TickColumns) against the reference decoder (decodeTicks: text,
 * JSON.parse, the TickMessage rules): the same ticks bit for bit, the same malformed count, the
 * same first problem — on random payloads, and on number spellings chosen to stress the exact
 * fast path and the grammar it must refuse.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countRecords, decodeTicksInto, scanTicksInto } from '../../../src/market/sources/columns-decoder.ts';
import { decodeTicks, tickVolume } from '../../../src/market/sources/tick-decoder.ts';
import { TickColumns } from '../../../src/store/tick-columns.ts';
import { randomTickText, rng } from './random-ticks.ts';

const enc = new TextEncoder();

/** Decodes with both and compares; returns whether the fast path took the payload. */
function agree(text: string | Uint8Array): boolean {
  const bytes = typeof text === 'string' ? enc.encode(text) : text;
  const ref = decodeTicks(bytes);
  const out = new TickColumns('EURUSD', 4);
  out.push(1, 0, 1, 1, 0); // rows already there are left alone
  const got = decodeTicksInto(bytes, out);
  const label = typeof text === 'string' ? text : `bytes ${[...text].join(',')}`;
  assert.equal(got.ticks, ref.ticks.length, label);
  assert.equal(out.length, 1 + ref.ticks.length, label);
  const rows = ref.ticks.map((_, i) => [out.ts[i + 1], out.bid[i + 1], out.ask[i + 1], out.volume[i + 1]]);
  assert.deepStrictEqual(
    rows,
    ref.ticks.map((t) => [t.ts, t.bid, t.ask, tickVolume(t)]),
    label,
  );
  assert.equal(got.malformed, ref.malformed, label);
  assert.deepStrictEqual(got.problem, ref.problem, label);
  return scanTicksInto(bytes, new TickColumns('EURUSD', 4)) !== null;
}

/** A JSON-ish number: valid spellings of every shape, and some that are not JSON at all. */
function numberText(r: () => number): string {
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(r() * 10)).join('');
  const x = r();
  if (x < 0.04) return ['01', '1.', '.5', '+1', '-', '1e', '1e+', '--1', '0x10', 'NaN', 'Infinity', '1_0'][Math.floor(r() * 12)]!;
  const sign = r() < 0.1 ? '-' : '';
  // Mostly within the fast path's 15 digits; now and then beyond it.
  const long = r() < 0.1;
  const int = r() < 0.2 ? '0' : `${1 + Math.floor(r() * 9)}${digits(Math.floor(r() * (long ? 20 : 9)))}`;
  const frac = r() < 0.6 ? `.${digits(1 + Math.floor(r() * (long ? 20 : 6)))}` : '';
  const exp = r() < 0.15 ? `${r() < 0.5 ? 'e' : 'E'}${['', '+', '-'][Math.floor(r() * 3)]}${Math.floor(r() * 30)}` : '';
  return sign + int + frac + exp;
}

/** Plain ticks (the shape publishers send) with random numbers and random whitespace. */
function plainTickText(r: () => number): string {
  const ws = () => (r() < 0.15 ? [' ', '\n', '\t', '\r\n', '  '][Math.floor(r() * 5)]! : '');
  const field = (key: string, value: string) => `${ws()}"${key}"${ws()}:${ws()}${value}${ws()}`;
  const ts = r() < 0.8 ? String(1_700_000_000_000 + Math.floor(r() * 1e9)) : numberText(r);
  const price = () => (r() < 0.6 ? (1 + r()).toFixed(1 + Math.floor(r() * 6)) : numberText(r));
  const fields = [field('ts', ts), field('bid', price()), field('ask', price())];
  if (r() < 0.3) fields.push(field('bid_volume', r() < 0.7 ? String(Math.floor(r() * 100)) : numberText(r)));
  if (r() < 0.3) fields.push(field('ask_volume', r() < 0.7 ? (r() * 10).toFixed(2) : numberText(r)));
  if (r() < 0.3) fields.reverse();
  return `{${fields.join(',')}${ws()}}`;
}

describe('decodeTicksInto (bytes → columns) agrees with decodeTicks', () => {
  it('on 20 000 random batches of plain ticks, with numbers of every spelling', (t) => {
    const r = rng(11);
    let fast = 0;
    for (let i = 0; i < 20_000; i++) {
      const n = Math.floor(r() * 6);
      const text = r() < 0.2 ? plainTickText(r) : `${r() < 0.2 ? ' ' : ''}[${Array.from({ length: n }, () => plainTickText(r)).join(',')}]`;
      if (agree(text)) fast++;
    }
    // Most of them must go the fast way, or the comparison says little about it.
    assert.ok(fast > 12_000, `fast path took ${fast}`);
    t.diagnostic(`fast path took ${fast} of 20000`);
  });

  it('on 20 000 random payloads of arbitrary tick-like JSON (unknown and repeated keys, strings, nulls)', () => {
    const r = rng(12);
    for (let i = 0; i < 20_000; i++) {
      const n = Math.floor(r() * 8);
      agree(r() < 0.3 ? randomTickText(r) : `[${Array.from({ length: n }, () => randomTickText(r)).join(',')}]`);
    }
  });

  it('on truncated and corrupted payloads', () => {
    const r = rng(13);
    for (let i = 0; i < 5_000; i++) {
      const bytes = enc.encode(`[${plainTickText(r)},${plainTickText(r)}]`);
      const cut = bytes.subarray(0, Math.floor(r() * bytes.length));
      agree(cut);
      const flipped = bytes.slice();
      flipped[Math.floor(r() * bytes.length)] = Math.floor(r() * 256);
      agree(flipped);
    }
  });

  it('on hand-picked cases', () => {
    const cases = [
      '',
      ' ',
      '[]',
      ' [ ] ',
      '[,]',
      '[{}]',
      '{}',
      '[{"ts":1,"bid":1,"ask":1},]',
      '[{"ts":1,"bid":1,"ask":1}]]',
      '{"ts":1,"bid":1,"ask":1} x',
      '\ufeff{"ts":1,"bid":1,"ask":1}',
      '{"ts":1,"bid":1,"ask":1,"ts":2}',
      '{"t\\u0073":1,"bid":1,"ask":1}',
      '{"ts":1,"bid":1,"ask":1,"x":[{"y":1}]}',
      '{"ts":9007199254740991,"bid":1,"ask":1}',
      '{"ts":9007199254740992,"bid":1,"ask":1}',
      '{"ts":1700000000000.0,"bid":1e-5,"ask":1E+2}',
      '{"ts":1.7e12,"bid":0.1,"ask":0.2}',
      '{"ts":17e11,"bid":1.0850100000000001,"ask":1.08501}',
      '{"ts":-0,"bid":1,"ask":1}',
      '{"ts":1,"bid":1,"ask":1,"bid_volume":-0}',
      '{"ts":1,"bid":1,"ask":1,"ask_volume":-0.0}',
      '{"ts":1,"bid":5e-324,"ask":1e308}',
      '{"ts":1,"bid":1e400,"ask":1}',
      '{"ts":1,"bid":-1,"ask":1}',
      '[{"ts":1,"bid":1,"ask":0},{"ts":2,"bid":1,"ask":1}]',
      '[1,{"ts":2,"bid":1,"ask":1}]',
      '[[{"ts":1,"bid":1,"ask":1}]]',
      '{"ts":1,"bid":1,"ask":1,"bid_volume":null}',
    ];
    for (const text of cases) agree(text);
    agree(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
  });

  it('reads the usual payload on the fast path', () => {
    assert.ok(
      agree(
        '[{"ts":1700000000000,"bid":1.08501,"ask":1.08511},{"ts":1700000000000,"bid":1.085,"ask":1.0851,"bid_volume":2,"ask_volume":3}]',
      ),
    );
    assert.ok(agree('{"ts":1700000000001,"bid":151.234,"ask":151.25}'));
  });
});

describe('countRecords', () => {
  it('counts the objects of an array without decoding it, and a single payload as one record', () => {
    assert.equal(countRecords(enc.encode('[{"ts":1,"bid":1,"ask":1},{"ts":2,"bid":1,"ask":1}]')), 2);
    assert.equal(countRecords(enc.encode(' \n[ ]')), 0);
    assert.equal(countRecords(enc.encode('{"ts":1,"bid":1,"ask":1}')), 1);
    assert.equal(countRecords(enc.encode('not json')), 1);
    const r = rng(14);
    for (let i = 0; i < 500; i++) {
      const n = Math.floor(r() * 50);
      const text = `[${Array.from({ length: n }, () => plainTickText(r)).join(',')}]`;
      assert.equal(countRecords(enc.encode(text)), n);
    }
  });
});
