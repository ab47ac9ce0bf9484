import { z } from 'zod';
import { CHIP_PRESETS, EXAMPLE_CATEGORIES, EXAMPLE_PROMPTS, TEMPLATES } from '../../generation/index.ts';
import { ExamplesQuery, ExamplesResponse, PosRules, PresetsResponse } from '../../../schemas/generation.ts';
import type { App } from '../types.ts';

/** The pos_rules JSON Schema, inlined (not a $ref into $defs), descriptions kept. */
function posRulesSchema(): Record<string, unknown> {
  const doc = z.toJSONSchema(PosRules) as { $schema?: string; $defs?: Record<string, object> };
  return { $schema: doc.$schema, ...(doc.$defs?.PosRules ?? doc) };
}

const PRESETS: PresetsResponse = {
  chips: CHIP_PRESETS.map(({ label, text }) => ({ label, text })),
  pos_rules_schema: posRulesSchema(),
  templates: Object.values(TEMPLATES).map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    indicators: t.request.indicators,
    pos_rules: t.request.pos_rules,
    model: t.request.model,
  })),
};

/** GET /presets and GET /examples: the static catalogues of the generator (public). */
export function catalogueRoutes(app: App): void {
  app.get('/api/v1/presets', {
    config: { auth: 'none' },
    schema: {
      tags: ['generation'],
      summary: 'Prompt chips, the pos_rules schema and the strategy templates',
      description:
        'What a client needs to build a generate form: prompt chips (label + the words they add to the description), ' +
        'the JSON Schema of `pos_rules`, and the five templates of POST /api/v1/generate/from-template with their ' +
        'descriptions, indicators, pos_rules and model (a from-template request’s indicators and pos_rules are merged over these).',
      response: { 200: PresetsResponse },
    },
    handler: async () => PRESETS,
  });

  app.get('/api/v1/examples', {
    config: { auth: 'none' },
    schema: {
      tags: ['generation'],
      summary: 'Example strategy prompts, by category',
      description: `Ready-made ideas to send as a generate \`description\`, each known to give valid code. Categories: ${EXAMPLE_CATEGORIES.join(', ')}.`,
      querystring: ExamplesQuery,
      response: { 200: ExamplesResponse },
    },
    handler: async (request) => {
      const { category } = request.query;
      const examples = EXAMPLE_PROMPTS.filter((e) => !category || e.category === category).map(({ category: c, prompt }) => ({
        category: c,
        prompt,
      }));
      return { count: examples.length, categories: [...EXAMPLE_CATEGORIES], examples };
    },
  });
}
