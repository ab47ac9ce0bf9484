/**
 * A small seeded generator (the robustness report's resampling, tests' random markets and options): the
 * same seed gives the same report on any machine. mulberry32: 32-bit state, period 2³², plenty
 * for a few million draws per report and fast enough to stay out of the profile.
 */
export type Random = () => number;

/** Uniform numbers in [0, 1) from a 32-bit seed. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A uniform integer in [0, n). */
export const randomInt = (random: Random, n: number): number => Math.floor(random() * n);
