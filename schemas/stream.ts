/**
 * The WebSocket protocol of GET /api/v1/predict (issue 18): JSON text frames, one message union
 * per direction. The same schemas parse what clients send and document what the server sends.
 */
import { z } from 'zod';
import { BarMessage, TickMessage } from './market.ts';
import { BarPrediction, SignalEvent } from './live.ts';
import { PredictRequest, PredictResponse } from './training.ts';
import { Symbol, Timeframe } from './common.ts';
import { strictObject } from './strict.ts';

/** The protocol version: sent in `welcome`; a breaking change gets a new number. */
export const STREAM_PROTOCOL_VERSION = 1;

/**
 * Close codes (RFC 6455 §7.4: 4000–4999 are the application's; 4xxx mirrors the REST status).
 * A client reconnects after 1001, 1006, 4408 and 4413 (resuming), not after 4401 / 4403.
 */
export const CloseCodes = {
  /** The service is shutting down (or restarting): reconnect, with `since` to resume. */
  goingAway: 1001,
  /** A frame larger than the message size limit. */
  tooBig: 1009,
  /** No valid X-API-Key, session cookie or `auth` message (within the auth timeout). */
  unauthorized: 4401,
  /** The session cookie came from a page of another site (Origin): send an X-API-Key instead. */
  foreignOrigin: 4403,
  /** No pong to a ping, or nothing subscribed and nothing sent for the idle timeout. */
  idle: 4408,
  /** The client did not read fast enough: its send buffer passed the limit after a `lagging` warning. */
  tooSlow: 4413,
  /** Too many connections for this key or this client address. */
  tooManyConnections: 4429,
} as const;

const Ref = z.string().min(1).max(64).describe('Echoed in the answer (and in an error about this message), so a client can match them');

/** A channel: what a `subscribe` names, echoed in `subscribed` and in every frame of the channel. */
export const BarsChannel = strictObject({ channel: z.literal('bars'), symbol: Symbol, timeframe: Timeframe });
export const TicksChannel = strictObject({ channel: z.literal('ticks'), symbol: Symbol });
export const PredictionsChannel = strictObject({
  channel: z.literal('predictions'),
  model: z.string().min(1).max(200).describe('Stem or display name of one of your deployed models (404 otherwise)'),
});
export const Channel = z.discriminatedUnion('channel', [BarsChannel, TicksChannel, PredictionsChannel]);
export type Channel = z.infer<typeof Channel>;

// ---- client → server --------------------------------------------------------------------------

export const AuthMessage = strictObject({
  type: z.literal('auth'),
  api_key: z
    .string()
    .min(1)
    .max(200)
    .describe('Your API key: for clients that cannot set the X-API-Key header; the first message, within 5 s'),
});

export const SubscribeMessage = strictObject({
  type: z.literal('subscribe'),
  ref: Ref.optional(),
  channel: Channel,
  since: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'Resume: predictions — the last signal id you saw (`sig_…`); bars — the last bar time you saw (ISO-8601 or epoch ms). ' +
        'What you missed comes first, then live frames, without duplicates',
    ),
});

export const UnsubscribeMessage = strictObject({ type: z.literal('unsubscribe'), ref: Ref.optional(), channel: Channel });

export const PredictMessage = strictObject({
  type: z.literal('predict'),
  ref: Ref.optional(),
  request: PredictRequest.describe('The same body as POST /api/v1/predict'),
});

export const PingMessage = strictObject({ type: z.literal('ping'), ref: Ref.optional() });

export const ClientMessage = z
  .discriminatedUnion('type', [AuthMessage, SubscribeMessage, UnsubscribeMessage, PredictMessage, PingMessage])
  .meta({ id: 'StreamClientMessage' });
export type ClientMessage = z.infer<typeof ClientMessage>;

// ---- server → client --------------------------------------------------------------------------

export const WelcomeMessage = z.object({
  type: z.literal('welcome'),
  protocol: z.literal(STREAM_PROTOCOL_VERSION),
  user: z.string().describe('Your username'),
  limits: z.object({
    subscriptions: z.number().int().describe('Subscriptions per connection'),
    message_bytes: z.number().int().describe('Largest frame accepted from the client'),
    ticks_per_second: z.number().int().describe('Most tick frames per second per ticks subscription (conflated: the latest tick wins)'),
    send_buffer_bytes: z.number().int().describe('Unsent bytes the server holds for you before `lagging`, then close 4413 at twice that'),
  }),
});
export const SubscribedMessage = z.object({
  type: z.literal('subscribed'),
  ref: Ref.optional(),
  channel: Channel,
  resumed: z.number().int().describe('Frames replayed from `since`'),
});
export const UnsubscribedMessage = z.object({ type: z.literal('unsubscribed'), ref: Ref.optional(), channel: Channel });
export const BarFrame = z.object({ type: z.literal('bar'), bar: BarMessage });
export const TickFrame = z.object({
  type: z.literal('tick'),
  symbol: Symbol,
  tick: TickMessage,
  conflated: z.number().int().describe('Ticks dropped since the previous frame (only the latest is sent)'),
});
export const PredictionFrame = z.object({
  type: z.literal('prediction'),
  prediction: BarPrediction.describe('A scored bar; its `signal` frames (signal_ids) came just before it'),
});
export const SignalFrame = z.object({
  type: z.literal('signal'),
  signal: SignalEvent,
  replayed: z.boolean().optional().describe('true when sent from the stored history (resume)'),
});
export const PredictResultMessage = z.object({ type: z.literal('predict_result'), ref: Ref.optional(), result: PredictResponse });
export const PongMessage = z.object({ type: z.literal('pong'), ref: Ref.optional() });
export const LaggingMessage = z.object({ type: z.literal('lagging'), buffered_bytes: z.number().int(), limit_bytes: z.number().int() });
export const ErrorMessage = z.object({
  type: z.literal('error'),
  ref: Ref.optional(),
  error: z.string().describe('What went wrong and what to do'),
  code: z.number().int().describe('The REST status: 400, 401, 404, 429…'),
});

export const ServerMessage = z
  .discriminatedUnion('type', [
    WelcomeMessage,
    SubscribedMessage,
    UnsubscribedMessage,
    BarFrame,
    TickFrame,
    PredictionFrame,
    SignalFrame,
    PredictResultMessage,
    PongMessage,
    LaggingMessage,
    ErrorMessage,
  ])
  .meta({ id: 'StreamServerMessage' });
export type ServerMessage = z.infer<typeof ServerMessage>;
export type ErrorMessage = z.infer<typeof ErrorMessage>;
export type StreamLimits = z.infer<typeof WelcomeMessage>['limits'];
