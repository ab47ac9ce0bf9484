import { z } from 'zod';
import { ErrorCodeName, errorCodeTable } from './errors.ts';

/**
 * Every error leaves the service in this shape, from every layer (router, body parser, auth,
 * handlers, even the HTTP parser): `code` equals the HTTP status, `error_code` is stable.
 */
export const ErrorBody = z
  .object({
    error: z.string().describe('What went wrong and, where it helps, what to do about it'),
    code: z.number().int().describe('The HTTP status code, repeated in the body'),
    error_code: ErrorCodeName.describe(`Stable machine code of the error (match on this, not on the wording):\n\n${errorCodeTable()}`),
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof ErrorBody>;

export const SYMBOLS = ['EURUSD', 'GBPUSD', 'USDJPY', 'USDCHF', 'AUDUSD', 'NZDUSD', 'USDCAD', 'BTCUSD'] as const;
export const Symbol = z.enum(SYMBOLS).describe('Instrument; BTCUSD is accepted beside the seven forex majors');
export type Symbol = z.infer<typeof Symbol>;

export const TIMEFRAMES = ['1min', '5min', '15min', '1h'] as const;
export const Timeframe = z.enum(TIMEFRAMES);
export type Timeframe = z.infer<typeof Timeframe>;

/** A calendar date as the contract writes it: YYYY-MM-DD (UTC). */
export const IsoDate = z.iso.date().describe('UTC calendar date, YYYY-MM-DD');

/** Timestamps leave the service as ISO-8601 UTC strings with milliseconds. */
export const IsoDateTime = z.iso.datetime({ offset: true }).describe('ISO-8601 timestamp, UTC');
