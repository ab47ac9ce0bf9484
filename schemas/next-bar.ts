import { z } from 'zod';

/** When a deployment will first be heard from (src/lib/market-hours.ts computes it): in the deploy answer and one_shot's `done`. */
export const NextBarFields = {
  next_bar_at: z.iso
    .datetime()
    .describe(
      "When the next bar of the model's symbol and timeframe closes (UTC): the first moment it can signal. Forex is shut from Friday 22:00 to Sunday 22:00 UTC; BTCUSD trades every day",
    ),
  note: z
    .string()
    .optional()
    .describe(
      'Present when the market is shut now (a forex weekend): says when it reopens and when the first bar closes, so a quiet deployment is not taken for a broken one',
    ),
};
