/**
 * RunningExtreme gives, step by step, what windowMax / windowMin scan over the same window:
 * real closes, NaN gaps, ties of 0 and −0 (the scan keeps the oldest), ±Infinity, and a window
 * length that stays, grows, shrinks or jumps from one step to the next.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RunningExtreme, windowMax, windowMin } from '../../src/indicators/math.ts';
import { loadBars } from '../helpers/strategy-bars.ts';

/** A small deterministic generator (no Math.random: a failure must replay). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function check(name: string, xs: number[], lengthAt: (t: number) => number): void {
  for (const higher of [true, false]) {
    const running = new RunningExtreme(higher);
    for (let t = 0; t < xs.length; t++) {
      const n = lengthAt(t);
      const got = running.push(xs[t]!, n);
      const want = t + 1 < n ? NaN : (higher ? windowMax : windowMin)(xs, t + 1 - n, t + 1);
      assert.ok(Object.is(got, want), `${name}, ${higher ? 'max' : 'min'} at ${t} over ${n}: ${got} ≠ ${want}`);
    }
  }
}

describe('RunningExtreme', () => {
  const closes = Array.from(loadBars('EURUSD', '15min', 3000).close);
  const rnd = lcg(17);
  const lumpy = Array.from({ length: 3000 }, () => {
    const r = rnd();
    return r < 0.03 ? NaN : r < 0.08 ? 0 : r < 0.13 ? -0 : r < 0.14 ? Infinity : r < 0.15 ? -Infinity : Math.round(rnd() * 8) - 4;
  });

  for (const [name, xs] of [
    ['real closes', closes],
    ['NaN, ±0, ±Infinity and many ties', lumpy],
  ] as const) {
    it(`${name}: a fixed length`, () => {
      for (const n of [1, 2, 14, 100]) check(`${name} n=${n}`, xs, () => n);
    });
    it(`${name}: a length growing, shrinking and jumping`, () => {
      check(`${name} growing`, xs, (t) => 1 + Math.floor(t / 20));
      check(`${name} shrinking`, xs, (t) => Math.max(1, 200 - Math.floor(t / 10)));
      const jumps = lcg(5);
      check(`${name} jumping`, xs, () => 1 + Math.floor(jumps() * 120));
    });
  }
});
