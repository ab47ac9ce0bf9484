/**
 * The offline strategy generator (the embedded default when no ANTHROPIC_API_KEY is set): a
 * parser of trader language — indicators with their parameters, conditions, direction,
 * sessions, stops and targets in pips / percent / dollars, cooldown, max positions,
 * on_opposite, trend and volatility filters, model class, horizon and confidence — and a code
 * writer using the indicator registry's pandas snippets. Plus the templates and the prompt
 * catalogues of GET /examples and GET /presets.
 *
 * Parsing rules in brief (details in each module's header):
 * - text: lower-cased, misspellings repaired against the parser's vocabulary (edit distance 1
 *   from 5 letters, 2 from 8), number words as digits (text.ts);
 * - precedence: structured fields > the field about the setting > description > other fields;
 *   within a field the last statement wins; conflicts become remarks in the code (settings.ts);
 * - units: pips and dollars → ratios at the symbol's typical price, dollars at 1 standard lot
 *   (market.ts); sessions in UTC without daylight saving (parse-sessions.ts).
 */
export { generateOffline, offlineTokens, type OfflineGeneration } from './offline.ts';
export { buildIntent } from './build-intent.ts';
export { understand, understoodFrom } from './understood.ts';
export { TEMPLATES, templateRequest, type TemplateSpec } from './templates.ts';
export { CHIP_PRESETS, EXAMPLE_CATEGORIES, EXAMPLE_PROMPTS, type ChipPreset, type ExampleCategory, type ExamplePrompt } from './catalog.ts';
export type { StrategyIntent, Setting, Source, RiskLevel, Condition, ConditionSpec, Instance, Operand, Style } from './intent.ts';
export { TEXT_FIELDS } from './intent.ts';
export { GEN, isRegistry, type GenName } from './gen-indicators.ts';
export { DIVERGENCE_MARGIN, RUN_CAP } from './trader-indicators.ts';
export { instanceLabel } from './features.ts';
export { MIRROR_REMARK } from './entry-rules.ts';
