/** Small smooth 15-min bars (a sine wave around 1.10) for tests that run Pine over a few hundred bars. */
export function waveBars(n: number) {
  const wave = (i: number) => Math.sin(i / 7) / 100;
  return {
    ts: Float64Array.from({ length: n }, (_, i) => Date.UTC(2024, 0, 2) + i * 900_000),
    open: Float64Array.from({ length: n }, (_, i) => 1.1 + wave(i)),
    high: Float64Array.from({ length: n }, (_, i) => 1.102 + wave(i)),
    low: Float64Array.from({ length: n }, (_, i) => 1.098 + wave(i)),
    close: Float64Array.from({ length: n }, (_, i) => 1.1 + wave(i + 1)),
    volume: new Float64Array(n).fill(1),
  };
}
