import { UpgradeRequiredError } from '../../errors.ts';
import { ErrorBody } from '../../../schemas/common.ts';
import { ClientMessage, CloseCodes, ServerMessage, STREAM_PROTOCOL_VERSION } from '../../../schemas/stream.ts';
import { BAR_REPLAY_LIMIT, SIGNAL_REPLAY_LIMIT } from '../ws/channels.ts';
import { attachStreamGateway, STREAM_PATH, type GatewayDeps } from '../ws/gateway.ts';
import type { App } from '../types.ts';

const codes = Object.entries(CloseCodes)
  .map(([name, code]) => `${code} ${name}`)
  .join(', ');

/** The protocol as /openapi.json and /api-docs tell it (the message schemas are in the 101 response). */
const description = (c: GatewayDeps['config']) =>
  `A WebSocket (protocol version ${STREAM_PROTOCOL_VERSION}): JSON text frames, \`StreamClientMessage\` from you, \`StreamServerMessage\` from the server. ` +
  '**Auth**: the `X-API-Key` header (bots), the `sf_session` cookie (browsers; refused with close 4403 when the page is another site’s), ' +
  `or \`{"type":"auth","api_key":…}\` as the first message within ${c.WS_AUTH_TIMEOUT_MS} ms — never a key in the URL. A good one gets \`welcome\` (with the limits); ` +
  'a bad or missing one closes with 4401. ' +
  '**Channels** (`{"type":"subscribe","channel":{…},"since"?:…,"ref"?:…}`, `unsubscribe` likewise; answered `subscribed` / `unsubscribed`): ' +
  '`{"channel":"predictions","model":<stem or name>}` — one of your deployed models (404 like REST otherwise): for every bar it scores, a `signal` frame per ' +
  "signal it produced (the SignalEvent of the webhook and SSE, same ids), then the bar's `prediction` (bar, p_up, decision long/short/flat, position after " +
  'the bar, `signal_ids` naming those signals), in order; `{"channel":"bars","symbol","timeframe"}` — every closed bar as it is stored; ' +
  `\`{"channel":"ticks","symbol"}\` — live ticks conflated to at most ${c.WS_TICKS_PER_SECOND} frames per second per subscription (the latest tick wins, \`conflated\` counts the dropped ones). ` +
  '`{"type":"predict","request":<POST /predict body>}` answers `predict_result` with the same answer as POST /api/v1/predict. ' +
  `**Resume**: subscribe with \`since\` = the last signal id (predictions; the stored signals after it are replayed from JetStream, up to ${SIGNAL_REPLAY_LIMIT}, marked \`replayed\`) ` +
  `or the last bar time (bars: the latest ${BAR_REPLAY_LIMIT} missed bars at most; predictions: signals of later bars) — then live frames, without duplicates; \`subscribed.resumed\` counts the replayed frames. ` +
  'Predictions themselves are live only. ' +
  `**Flow control**: past ${c.WS_SEND_BUFFER_BYTES} unsent bytes you get \`lagging\`, ahead of the frames held for you (only what your socket already had in flight comes before it); at twice that the held frames are dropped and the socket closes with 4413 right behind it (resume with \`since\`). The server pings every ${c.WS_PING_MS} ms ` +
  `(close 4408 without a pong by the next one); a socket with nothing subscribed that sends nothing for ${c.WS_IDLE_MS} ms is closed (4408). ` +
  `**Limits**: ${c.WS_PER_KEY} connections per key (over every server process of the service), ${c.WS_PER_ADDRESS} per client address (close 4429), ${c.WS_SUBSCRIPTIONS} subscriptions per connection, ` +
  `frames up to ${c.WS_MESSAGE_BYTES} bytes (close 1009); subscribe and predict count against the key's rate limit. A refused message is answered ` +
  '`{"type":"error","error","code","ref"?}` with the REST status (400, 401, 404, 409, 429). Shutdown closes with 1001 (reconnect with `since`). ' +
  `Close codes: ${codes}. A plain GET (no upgrade) is 426.`;

/**
 * GET /api/v1/predict: the WebSocket stream (src/edge/ws) on the HTTP server's upgrade, its
 * documentation as a route, and its shutdown (sockets closed with 1001) before the server's.
 */
export function predictStreamRoutes(app: App, deps: GatewayDeps): void {
  const gateway = attachStreamGateway(app.server, deps);
  app.addHook('preClose', async () => gateway.close());

  app.get(STREAM_PATH, {
    config: { auth: 'none' },
    schema: {
      tags: ['live'],
      summary: 'Real-time stream (WebSocket): predictions and signals of your deployed models, bars, ticks, on-demand predict',
      description: description(deps.config),
      response: {
        101: {
          description:
            'Switching Protocols: the WebSocket. Server messages are `StreamServerMessage`; yours are `StreamClientMessage` (the second media type).',
          content: { 'application/json': { schema: ServerMessage }, 'application/x-stream-client-message+json': { schema: ClientMessage } },
        },
        426: ErrorBody,
      },
    },
    handler: async () => {
      throw new UpgradeRequiredError(`GET ${STREAM_PATH} is a WebSocket: connect with Upgrade: websocket (ws:// or wss://)`);
    },
  });
}
