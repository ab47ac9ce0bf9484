import { TIMEFRAMES, type Timeframe } from '../../schemas/common.ts';

export const TIMEFRAME_MS: Record<Timeframe, number> = {
  '1min': 60_000,
  '5min': 300_000,
  '15min': 900_000,
  '1h': 3_600_000,
};

/** The bar (open time, epoch ms UTC) a timestamp falls in. */
export const bucketOf = (ts: number, timeframe: Timeframe): number => {
  const size = TIMEFRAME_MS[timeframe];
  return Math.floor(ts / size) * size;
};

export { TIMEFRAMES, type Timeframe };
