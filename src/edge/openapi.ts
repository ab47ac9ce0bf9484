import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { MCP_SESSION_IDLE_MINUTES } from '../mcp/index.ts';

export const API_VERSION = '1.0.0';

type Limits = Pick<Config, 'TRIAL_CREDITS' | 'TRIAL_MINTS_PER_HOUR' | 'RATE_LIMIT_PER_MIN' | 'BODY_LIMIT_BYTES'>;

/** The document's introduction: the decisions the contract leaves open, with this service's figures. */
const description = (c: Limits) =>
  `
signalforge turns a trading idea into strategy code, trains and backtests it on forex bars, and
deploys it as a live signal.

**Authentication.** Send your key in the \`X-API-Key\` header. Get one with \`POST /api/v1/key/trial\`
(no signup). Keys are \`sf_\` followed by 40 random characters; only their SHA-256 is stored, so a key
is shown once, and \`whoami-key\` returns it masked. Routes marked with a lock answer 401 without a valid key.

**Errors.** Every error is \`{ "error": string, "code": number }\`, \`code\` repeating the HTTP status:
400 bad input (the message names each bad field), 401 key, 402 out of credits, 404 unknown route or
resource, 409 conflict (a taken username), 413 body over ${c.BODY_LIMIT_BYTES} bytes, 422 well-formed but
unusable, 429 rate limit or daily cap (with \`Retry-After\` in seconds).

**Limits.** ${c.RATE_LIMIT_PER_MIN} requests per key per rolling minute. Trial keys: ${c.TRIAL_MINTS_PER_HOUR} per
client IP per rolling hour (a refused username still counts, so the limit also bounds probing for taken
names); ${c.TRIAL_CREDITS} credits each on signup (configurable; the contract states both 50 and 10,000 —
the default is 50). Daily caps per UTC day: training-compute 100, Sonnet generations 1, Haiku 3, Opus 1
(our choice: Opus is the most expensive). One concurrent SSE stream per key. \`GET /api/v1/caps\`
shows your own figures.

**MCP (tool server).** \`{mcp_url}\` is this service's base URL: the hosted MCP server answers at
\`{mcp_url}/mcp\` (Streamable HTTP, stateful sessions by the \`mcp-session-id\` header, ended by DELETE or
after ${MCP_SESSION_IDLE_MINUTES} idle minutes) and \`{mcp_url}/_healthz\` answers the text \`ok\`. Tools: \`one_shot\` (with progress
notifications), \`list_models\`, \`list_deployed\`, \`generate_strategy\`; they call this REST API. No account
is needed: each session mints its own trial key on its first tool call (counted against your IP's
${c.TRIAL_MINTS_PER_HOUR} per hour), or uses the \`X-API-Key\` sent with \`initialize\`. \`signalforge mcp\`
serves the same tools plus \`get_trial_key\` over stdio. \`/mcp\` speaks JSON-RPC, so it is not listed below.
`.trim();

/** /openapi.json (generated from the zod schemas of the routes) and the offline docs at /api-docs. */
export async function registerOpenApi(app: FastifyInstance, limits: Limits): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'signalforge', version: API_VERSION, description: description(limits) },
      components: {
        securitySchemes: {
          ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          SessionCookie: { type: 'apiKey', in: 'cookie', name: 'sf_session' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/api-docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
