import { sourceName } from '../store/index.ts';
import type { ResponseSource } from '../../schemas/market.ts';

/**
 * The response-level `source` of a stretch of rows from their per-row source codes (see
 * `sourceCode`): the one source they all share, `mixed`, or `none` for no rows. Every response
 * that reports where its rows come from (candles, indicators, ticks, a training run) says it
 * through this.
 */
export function sourceMix(codes: ArrayLike<number>, from = 0, to = codes.length): ResponseSource {
  let bits = 0;
  for (let i = from; i < to; i++) bits |= 1 << codes[i]!;
  if (bits === 0) return 'none';
  if ((bits & (bits - 1)) !== 0) return 'mixed';
  return sourceName(Math.log2(bits));
}
