import { z } from 'zod';
import { Symbol, Timeframe } from './common.ts';

/**
 * What names a trained model to a user wherever it is listed (GET /models, GET /deployed): its
 * display name and the market it trades. Each listing spreads the shape where the fields sit
 * (`...ModelIdentity.shape`), so the property order of the wire and of the OpenAPI doc stays.
 */
export const ModelIdentity = z.object({
  model_name: z.string(),
  symbol: Symbol,
  timeframe: Timeframe,
});
export type ModelIdentity = z.infer<typeof ModelIdentity>;
