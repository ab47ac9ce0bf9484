import { z } from 'zod';

/** Who may call an endpoint: the X-API-Key header, the key or the web app's session cookie, or anyone. */
export const EndpointAuth = z.enum(['key', 'key-or-session', 'none']);
export type EndpointAuth = z.infer<typeof EndpointAuth>;

export const CatalogueEndpoint = z.object({
  method: z.string(),
  path: z.string(),
  summary: z.string(),
  purpose: z.string(),
  auth: EndpointAuth,
  credits: z.number().int().describe('Credits a call costs at least (0 = free)'),
  credits_note: z.string().optional().describe('What the cost depends on'),
  request: z
    .object({
      path: z.record(z.string(), z.unknown()).optional().describe('The path parameters, by name: put each in place of its {name}'),
      query: z.unknown().optional(),
      body: z.unknown().optional(),
    })
    .optional()
    .describe('An example request, the smallest valid one: on every endpoint that takes input (path, query or body)'),
  response: z.object({ status: z.number().int(), content_type: z.string(), example: z.unknown() }),
});
export type CatalogueEndpoint = z.infer<typeof CatalogueEndpoint>;

/** A topic that spans several endpoints (e.g. "is the edge real?"), in a paragraph. */
export const CatalogueGuide = z.object({ topic: z.string(), text: z.string() });
export type CatalogueGuide = z.infer<typeof CatalogueGuide>;

/** GET /api/v1/docs: every endpoint of /openapi.json, grouped by task. */
export const Catalogue = z
  .object({
    service: z.string(),
    version: z.string(),
    base_url: z.string(),
    openapi_url: z.string(),
    mcp_url: z.string(),
    auth: z.string(),
    tasks: z.array(z.object({ task: z.string(), endpoints: z.array(CatalogueEndpoint) })),
    guides: z
      .array(CatalogueGuide)
      .describe(
        'Topics that span several endpoints: the robustness report on every model (is the edge real?), one_shot’s deploy_if, the leaderboard by deflated Sharpe, optimisation',
      ),
  })
  .meta({ id: 'Catalogue' });
export type Catalogue = z.infer<typeof Catalogue>;
