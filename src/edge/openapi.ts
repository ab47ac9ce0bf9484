import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { MCP_SESSION_IDLE_MINUTES } from '../mcp/index.ts';

export const API_VERSION = '1.0.0';

type Limits = Pick<
  Config,
  | 'TRIAL_CREDITS'
  | 'MONTHLY_CREDITS_FREE'
  | 'MONTHLY_CREDITS_PRO'
  | 'TRIAL_MINTS_PER_HOUR'
  | 'RATE_LIMIT_PER_MIN'
  | 'BODY_LIMIT_BYTES'
  | 'ANON_RATE_PER_MIN'
  | 'ANON_RATE_BURST'
  | 'HTTP_HEADERS_TIMEOUT_MS'
  | 'HTTP_REQUEST_TIMEOUT_MS'
>;

/** The document's introduction: the decisions the contract leaves open, with this service's figures. */
const description = (c: Limits) =>
  `
signalforge turns a trading idea into strategy code, trains and backtests it on forex bars, and
deploys it as a live signal.

**Authentication.** Send your key in the \`X-API-Key\` header. Get one with \`POST /api/v1/key/trial\`
(no signup). Keys are \`sf_\` followed by 40 random characters; only their SHA-256 is stored, so a key
is shown once, and \`whoami-key\` returns it masked. Routes marked with a lock answer 401 without a valid key.

**Errors.** Every error, from every layer (router, body parser, auth, handlers, the HTTP parser
itself), is \`{ "error": string, "code": number, "error_code": string }\`: \`code\` repeats the HTTP status,
\`error_code\` is a stable machine code (the table is in the \`Error\` schema): 400 bad input (the message
names each bad field; a JSON body field the endpoint does not know is refused by name with the field it
likely meant), 401 key, 402 out of credits, 403 a cookie-authenticated change from another site,
404 unknown route or resource, 408 request not received in time, 409 conflict (a taken username),
413 body over ${c.BODY_LIMIT_BYTES} bytes, 414 path parameter too long, 415 a body that is not JSON, 422 well-formed
but unusable, 429 rate limit, daily cap or stream limit (with \`Retry-After\` in seconds), 431 headers too
large, 503 at the connection limit.

**Limits.** ${c.RATE_LIMIT_PER_MIN} requests per key per rolling minute. Without a valid key, ${c.ANON_RATE_BURST} requests at once
and ${c.ANON_RATE_PER_MIN} per minute per client address (IPv6: per /64). Trial keys: ${c.TRIAL_MINTS_PER_HOUR} per
client IP per rolling hour (a taken username or an invalid body does not count); ${c.TRIAL_CREDITS} credits each on signup
(configurable; the contract states both 50 and 10,000 — the default is 50). Monthly credits: a claimed free account
${c.MONTHLY_CREDITS_FREE}, a pro account (trial or not) ${c.MONTHLY_CREDITS_PRO} — see \`GET /api/v1/key/usage\`. Daily caps per UTC day: training-compute 100,
Sonnet generations 1, Haiku 3, Opus 1 (our choice: Opus is the most expensive). One concurrent SSE stream per key.
\`GET /api/v1/caps\` shows your own figures. Headers must arrive within ${c.HTTP_HEADERS_TIMEOUT_MS} ms and the whole
request within ${c.HTTP_REQUEST_TIMEOUT_MS} ms (408 after). Numbers in request bodies are bounded (each field's
schema gives its range).

**Sessions.** \`POST /api/v1/key/trial\` and every sign-in set the HttpOnly \`sf_session\` cookie (\`Secure\` over HTTPS),
which \`whoami-key\`, \`key/generate\` and the \`/api/v1/auth/…\` routes accept instead of the key. A session ends at
\`POST /api/v1/logout\`, at a key rotation or password change (except the caller's, renewed), when revoked
(\`DELETE /api/v1/auth/sessions…\`), or after 30 days.

**Accounts.** A trial account is **claimed** by attaching a passkey (WebAuthn) or a password (Argon2id, m = 19 MiB, t = 2,
p = 1): it stops being \`is_trial\`, gets 10 one-time recovery codes, shown once, and its credits are raised to the
monthly allowance at once; its key, plan and models stay. It then signs in from any browser (\`POST /api/v1/auth/sign-in/password | passkey | recovery-code\`), and
\`POST /api/v1/key/generate\` issues its personal key. Sign-in attempts wait longer and longer after 5 per username or
20 per address (429 \`SF_SIGN_IN_THROTTLED\`); a failure is the same 401 whether or not the username exists. A state-changing request that carries the cookie, whatever the route, is refused
(403 \`SF_FOREIGN_ORIGIN\`) when its \`Origin\` (or, without one, \`Sec-Fetch-Site\`) names another site.

**MCP (tool server).** \`{mcp_url}\` is this service's base URL: the hosted MCP server answers at
\`{mcp_url}/mcp\` (Streamable HTTP, stateful sessions by the \`mcp-session-id\` header, ended by DELETE or
after ${MCP_SESSION_IDLE_MINUTES} idle minutes) and \`{mcp_url}/_healthz\` answers the text \`ok\`. Tools: \`one_shot\` (with progress
notifications; it returns the robustness verdict and takes \`deploy_if\`), \`optimize\` (POST /api/v1/optimize, followed to the
end with progress notifications), \`list_models\`, \`list_deployed\`, \`generate_strategy\`; they call this REST API. No account
is needed: each session mints its own trial key on its first tool call (counted against your IP's
${c.TRIAL_MINTS_PER_HOUR} per hour), or uses the \`X-API-Key\` sent with \`initialize\`. A session lives on the server
process that opened it: a session id it does not know (the session ended, or that process stopped) is 404, and the
client then opens a new session (\`initialize\` without a session id) — with a new trial key unless it sends its own
\`X-API-Key\`. \`signalforge mcp\`
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
