import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { costsFrom, CUSTOM_INDICATOR_CREDITS, describeCosts } from '../../generation/index.ts';
import { ENGINE_TRIAL_CREDITS, MODEL_TRIAL_CREDITS } from '../../optimize/index.ts';
import { Catalogue } from '../../../schemas/discovery.ts';
import { buildAiPlugin, buildCatalogue, buildLlmsTxt, buildSitemap, queryBound, type CostTable } from '../web/discovery.ts';
import type { App } from '../types.ts';

export interface DiscoveryRoutesDeps {
  config: Parameters<typeof costsFrom>[0] & Pick<Config, 'ONE_SHOT_FEE' | 'PUBLIC_URL'>;
  /** The web app's public pages, for the sitemap. */
  pages: readonly string[];
}

/** What the charging routes cost; the figures are the same settings the charging code reads. */
export function costTable(config: DiscoveryRoutesDeps['config']): CostTable {
  const costs = costsFrom(config);
  const generation = { credits: costs.offline, note: `by who writes the code: ${describeCosts(costs)}` };
  return {
    'POST /api/v1/generate': generation,
    'POST /api/v1/generate/stream': generation,
    'POST /api/v1/generate/from-template': { credits: costs.template },
    'POST /api/v1/one_shot': {
      credits: costs.offline + config.ONE_SHOT_FEE,
      note: `generation (${describeCosts(costs)}) plus a pipeline fee of ${config.ONE_SHOT_FEE}; none but a training-compute run with your own code; the fee is refunded when deploy_if keeps the model off live`,
    },
    'POST /api/v1/optimize': {
      credits: ENGINE_TRIAL_CREDITS,
      note: `${ENGINE_TRIAL_CREDITS} per trial when every parameter is an engine parameter, ${MODEL_TRIAL_CREDITS} per trial when the space changes the model; charged at the start, the trials not run refunded`,
    },
    'POST /api/v1/indicators/custom': {
      credits: CUSTOM_INDICATOR_CREDITS,
      note: 'refunded when the script cannot run (422) or our retry fails too',
    },
  };
}

const text = (type: string, what: string) => ({ description: what, content: { [type]: { schema: z.string() } } });

/** /api/v1/docs, /llms.txt, /.well-known/ai-plugin.json and /sitemap.xml, built from /openapi.json. */
export function discoveryRoutes(app: App, { config, pages }: DiscoveryRoutesDeps): void {
  const costs = costTable(config);
  const catalogues = new Map<string, Catalogue>();
  /** The base URL clients reach us at: PUBLIC_URL, else the request's own scheme and host. */
  const catalogueFor = (request: FastifyRequest): Catalogue => {
    const baseUrl = config.PUBLIC_URL?.replace(/\/$/, '') ?? `${request.protocol}://${request.host}`;
    let catalogue = catalogues.get(baseUrl);
    if (!catalogue) {
      catalogue = buildCatalogue(app.swagger() as Record<string, unknown>, { baseUrl, costs });
      // A handful of host spellings at most; a flood of Host headers must not grow memory.
      if (catalogues.size > 16) catalogues.clear();
      catalogues.set(baseUrl, catalogue);
    }
    return catalogue;
  };

  app.get('/api/v1/docs', {
    config: { auth: 'none' },
    schema: {
      tags: ['discovery'],
      summary: 'Catalogue of every endpoint, grouped by task',
      description:
        'Generated from /openapi.json: per endpoint its purpose, auth (`key`, `key-or-session`, `none`), the credits a call ' +
        'costs at least, an example request (the smallest valid one) and an example response.',
      response: { 200: Catalogue },
    },
    handler: async (request) => catalogueFor(request),
  });

  app.get('/llms.txt', {
    config: { auth: 'none' },
    schema: {
      tags: ['discovery'],
      summary: 'Plain-text reference for AI agents',
      description: 'What the service does, how to get a key, the main flows with curl examples, the MCP URL and every endpoint.',
      response: { 200: text('text/plain', 'The reference') },
    },
    handler: async (request, reply) => reply.type('text/plain; charset=utf-8').send(buildLlmsTxt(catalogueFor(request))),
  });

  app.get('/.well-known/ai-plugin.json', {
    config: { auth: 'none' },
    schema: {
      tags: ['discovery'],
      summary: 'AI plugin manifest',
      description: 'Points at /openapi.json; the key goes in the X-API-Key header.',
      response: { 200: text('application/json', 'The manifest') },
    },
    handler: async (request, reply) =>
      reply.type('application/json; charset=utf-8').send(JSON.stringify(buildAiPlugin(catalogueFor(request)))),
  });

  app.get('/sitemap.xml', {
    config: { auth: 'none' },
    schema: {
      tags: ['discovery'],
      summary: 'The public pages and documents',
      response: { 200: text('application/xml', 'A sitemaps.org urlset') },
    },
    handler: async (request, reply) =>
      reply
        .type('application/xml; charset=utf-8')
        .send(buildSitemap(catalogueFor(request), pages, queryBound(app.swagger() as Record<string, unknown>))),
  });
}
