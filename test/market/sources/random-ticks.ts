/**
 * Random tick JSON for the decoder equivalence tests: valid ticks, ticks with one field spoiled,
 * every kind of value JSON can carry, unknown and repeated keys.
 */

/** Deterministic PRNG so a failure can be replayed. */
export function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// JSON tokens, written as text so that values JSON.stringify cannot make (1e400, -0, 1e-400) occur.
export const NUMBER_TOKENS = [
  '1',
  '0',
  '-0',
  '-1',
  '1.5',
  '0.5',
  '1e400',
  '-1e400',
  '1e-400',
  '5e-324',
  '9007199254740991',
  '9007199254740992',
  '1700000000000',
  '1700000000000.0',
  '1.7e12',
  '1.08501',
  '1.08511',
  '151.234',
  '2',
  '100',
];
export const OTHER_TOKENS = ['"1.1"', '""', 'null', 'true', 'false', '{}', '[]', '[1]', '{"ts":1}'];
const KEYS = ['ts', 'bid', 'ask', 'bid_volume', 'ask_volume'];

export function randomTickText(r: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const token = () => (r() < 0.85 ? pick(NUMBER_TOKENS) : pick(OTHER_TOKENS));
  // Half the ticks start from valid values (one field maybe spoiled), so both outcomes are common.
  const nearValid = r() < 0.5;
  const good: Record<string, readonly string[]> = {
    ts: ['1', '1700000000000', '1.7e12', '9007199254740991', '1700000000000.0'],
    bid: ['1.08501', '1', '5e-324'],
    ask: ['1.08511', '151.234', '1.08501'],
    bid_volume: ['0', '-0', '1.5', '100'],
    ask_volume: ['0', '2', '1e-400'],
  };
  const spoil = nearValid && r() < 0.5 ? pick(KEYS) : null;
  const parts: string[] = [];
  for (const key of KEYS) {
    const required = key === 'ts' || key === 'bid' || key === 'ask';
    if (r() < (required ? (nearValid ? 0.99 : 0.93) : 0.5)) {
      parts.push(`"${key}":${nearValid && key !== spoil ? pick(good[key]!) : token()}`);
    }
  }
  if (r() < 0.2) parts.push(`"extra":${token()}`);
  if (r() < 0.05) parts.push(`"bid":${token()}`); // duplicate key: JSON.parse keeps the last
  if (r() < 0.03) parts.push(`"__proto__":{"ts":1,"bid":1,"ask":1}`);
  for (let i = parts.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [parts[i], parts[j]] = [parts[j]!, parts[i]!];
  }
  const obj = `{${parts.join(',')}}`;
  return r() < 0.03 ? pick(OTHER_TOKENS.concat(NUMBER_TOKENS)) : obj;
}
