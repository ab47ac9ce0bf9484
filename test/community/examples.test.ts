/** The OpenAPI examples of the community's shapes are valid instances of them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { z } from 'zod';
import { Catalogue, CommunityEntry, ForkResponse, Leaderboard, Lineage, ShareRequest } from '../../schemas/community.ts';

describe('community OpenAPI examples', () => {
  const schemas: Record<string, z.ZodType> = { ShareRequest, CommunityEntry, Leaderboard, Lineage, ForkResponse, Catalogue };
  for (const [name, schema] of Object.entries(schemas)) {
    it(`${name}: every example parses`, () => {
      const examples = (schema.meta() as { examples?: unknown[] } | undefined)?.examples ?? [];
      assert.ok(examples.length > 0, `${name} has an example`);
      for (const example of examples) schema.parse(example);
    });
  }
});
