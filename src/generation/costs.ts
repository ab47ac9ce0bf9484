import type { Config } from '../config.ts';
import type { CapName } from '../../schemas/accounts.ts';
import type { ClaudeChoice } from './claude/index.ts';

/** Credits per call, by who writes the code (GENERATE_COST_* settings). */
export interface GenerationCosts {
  offline: number;
  template: number;
  haiku: number;
  'sonnet-haiku': number;
  sonnet: number;
  opus: number;
}

export type CostSettings = Pick<
  Config,
  | 'GENERATE_COST_OFFLINE'
  | 'GENERATE_COST_TEMPLATE'
  | 'GENERATE_COST_HAIKU'
  | 'GENERATE_COST_SONNET_HAIKU'
  | 'GENERATE_COST_SONNET'
  | 'GENERATE_COST_OPUS'
>;

export function costsFrom(config: CostSettings): GenerationCosts {
  return {
    offline: config.GENERATE_COST_OFFLINE,
    template: config.GENERATE_COST_TEMPLATE,
    haiku: config.GENERATE_COST_HAIKU,
    'sonnet-haiku': config.GENERATE_COST_SONNET_HAIKU,
    sonnet: config.GENERATE_COST_SONNET,
    opus: config.GENERATE_COST_OPUS,
  };
}

/** The daily cap a Claude generation counts against: sonnet-haiku counts as Haiku (Haiku drafts). */
export function capFor(choice: ClaudeChoice): CapName {
  if (choice === 'sonnet') return 'generate_sonnet';
  if (choice === 'opus') return 'generate_opus';
  return 'generate_haiku';
}

/** The cost table in words, for the OpenAPI description and errors. */
export function describeCosts(c: GenerationCosts): string {
  return (
    `offline generator ${c.offline} credit${c.offline === 1 ? '' : 's'}, from-template ${c.template}, ` +
    `Claude haiku ${c.haiku}, sonnet-haiku ${c['sonnet-haiku']}, sonnet ${c.sonnet}, opus ${c.opus}`
  );
}
