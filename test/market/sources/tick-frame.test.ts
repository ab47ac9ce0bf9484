/**
 * Tick frames, the compact binary form of a tick batch: every batch our feeds send comes back
 * exactly (the same ticks as its JSON, into objects and into columns) at a fraction of the bytes;
 * what does not fit a frame exactly is refused to the encoder (it goes as JSON); and a hostile
 * frame — cut short, overlong, its ticks breaking the rules — is counted malformed, never thrown.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeTicks, type TickMessage } from '../../../src/market/sources/tick-decoder.ts';
import { decodeTicksInto } from '../../../src/market/sources/columns-decoder.ts';
import { decodeTickFrame, decodeTickFrameInto, encodeTickFrame, isTickFrame, zigzagBytes } from '../../../src/market/sources/tick-frame.ts';
import { countTickRecords, decodeTickPayload, decodeTickPayloadInto, TickTopic } from '../../../src/market/sources/tick-payload.ts';
import { TickColumns } from '../../../src/store/index.ts';

/** A seeded random walk of quotes with `digits` decimals, ticks 0–24 ms apart (some in the same ms). */
function walk(n: number, digits: number, seed = 1, volume = false): TickMessage[] {
  let s = seed;
  const rnd = () => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const scale = 10 ** digits;
  let ts = Date.UTC(2024, 4, 1, 9);
  let points = Math.round((digits === 3 ? 155.123 : 1.08506) * scale);
  return Array.from({ length: n }, () => {
    ts += Math.floor(rnd() * 25);
    points += Math.floor(rnd() * 7) - 3;
    const tick: TickMessage = { ts, bid: points / scale, ask: (points + 1 + Math.floor(rnd() * 20)) / scale };
    if (volume && rnd() < 0.7) tick.bid_volume = Math.round(rnd() * 1e6) / 100;
    return tick;
  });
}

const columns = (decode: (out: TickColumns) => unknown) => {
  const out = new TickColumns('EURUSD', 4);
  const result = decode(out);
  return { result, rows: Array.from({ length: out.length }, (_, i) => [out.ts[i], out.seq[i], out.bid[i], out.ask[i], out.volume[i]]) };
};

describe('tick frames', () => {
  it('give back exactly the ticks of the JSON array, into objects and into columns, at a fraction of its bytes', () => {
    for (const [digits, volume] of [
      [5, false],
      [3, false],
      [5, true],
      [2, true],
    ] as const) {
      const ticks = walk(500, digits, digits + (volume ? 10 : 0), volume);
      const json = new TextEncoder().encode(JSON.stringify(ticks));
      const frame = encodeTickFrame(ticks, digits)!;
      assert.ok(frame, `${digits} digits${volume ? ' with volumes' : ''} fit a frame`);
      assert.ok(isTickFrame(frame) && !isTickFrame(json));
      assert.deepEqual(decodeTickFrame(frame), decodeTicks(json));
      assert.deepEqual(decodeTickFrame(frame).ticks, ticks);
      assert.deepEqual(
        columns((out) => decodeTickFrameInto(frame, out)),
        columns((out) => decodeTicksInto(json, out)),
      );
      assert.equal(countTickRecords(frame), 500);
      if (!volume) assert.ok(frame.length * 5 < json.length, `${frame.length} bytes against ${json.length} of JSON`);
    }
  });

  it('readers take either form: the payload decoders and the TICKS topic (its schema judges the decoded ticks)', () => {
    const ticks = walk(50, 5);
    const frame = encodeTickFrame(ticks, 5)!;
    const json = new TextEncoder().encode(JSON.stringify(ticks));
    assert.deepEqual(decodeTickPayload(frame), decodeTickPayload(json));
    assert.deepEqual(
      columns((out) => decodeTickPayloadInto(frame, out)),
      columns((out) => decodeTickPayloadInto(json, out)),
    );
    assert.deepEqual(TickTopic.schema.parse(TickTopic.decode(frame)), ticks);
    assert.deepEqual(TickTopic.schema.parse(TickTopic.decode(json)), ticks);
  });

  it('refuses to frame what it cannot give back exactly: those ticks go as JSON', () => {
    const ticks = walk(10, 5);
    assert.equal(encodeTickFrame([...ticks, { ts: ticks[9]!.ts + 1, bid: 1.085061, ask: 1.0851 }], 5), null, 'a sixth decimal');
    assert.equal(encodeTickFrame([{ ts: 1.5, bid: 1.1, ask: 1.2 }], 5), null, 'a fractional timestamp');
    assert.equal(encodeTickFrame([{ ts: 1, bid: 1.1, ask: 1.2, ask_volume: 3 }], 5), null, 'an ask volume');
    assert.equal(encodeTickFrame([], 5), null, 'nothing to send');
    assert.equal(encodeTickFrame(ticks, 11), null, 'more digits than a frame says');
  });

  it('counts a hostile frame as malformed and never throws: cut at every length, overlong, bad header, ticks breaking the rules', () => {
    const frame = encodeTickFrame(walk(20, 5, 3, true), 5)!;
    for (let cut = 6; cut < frame.length; cut++) {
      const part = frame.subarray(0, cut);
      const result = decodeTickFrame(part);
      assert.equal(result.ticks.length, 0, `cut at ${cut}`);
      assert.equal(result.malformed, 1);
      assert.deepEqual(columns((out) => decodeTickFrameInto(part, out)).rows, []);
    }
    const longer = new Uint8Array([...frame, 0]);
    assert.equal(decodeTickFrame(longer).malformed, 1, 'bytes after the last column');
    const flags = frame.slice();
    flags[5] = 0x80;
    assert.equal(decodeTickFrame(flags).malformed, 1, 'an unknown flag');
    const huge = new Uint8Array([0x53, 0x46, 0x54, 0x01, 5, 0, 0xff, 0xff, 0xff, 0xff, 0x7f]);
    assert.equal(decodeTickFrame(huge).malformed, 1, 'more ticks than a frame can hold');
    assert.equal(countTickRecords(huge), 0);
    // A count its bytes cannot hold reserves nothing: a few bytes never make the reader allocate for a million ticks.
    assert.equal(countTickRecords(new Uint8Array([0x53, 0x46, 0x54, 0x01, 5, 0, 0x80, 0x80, 0x40, 2, 2, 2])), 0);
    // Random bytes behind the magic: whatever they say, an answer and no exception.
    let s = 7;
    for (let k = 0; k < 2000; k++) {
      const bytes = new Uint8Array(6 + (k % 40));
      bytes.set([0x53, 0x46, 0x54, 0x01]);
      for (let i = 4; i < bytes.length; i++) bytes[i] = (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) & 0xff;
      const r = decodeTickFrame(bytes);
      assert.ok(r.malformed >= 0 && r.ticks.every((t) => t.bid > 0 && t.ask > 0 && t.ts > 0));
    }
    // Ticks that break TickMessage's rules are counted one by one; the rest pass: here the second
    // goes back to ts 0 with a bid of 0 (deltas −1000 ms and −110000 points).
    const frameOf = (...fields: number[]) => new Uint8Array([0x53, 0x46, 0x54, 0x01, 5, 0, 2, ...fields.flatMap(zigzagBytes)]);
    const judged = decodeTickFrame(frameOf(1000, 110_000, 10_000, -1000, -110_000, 10_000));
    assert.deepEqual(judged.ticks, [{ ts: 1000, bid: 1.1, ask: 1.2 }]);
    assert.equal(judged.malformed, 1);
  });
});
