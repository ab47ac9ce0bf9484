import { z } from 'zod';
import { IsoDate, Symbol, Timeframe } from './common.ts';
import { IndicatorsObject } from './indicators.ts';
import { strictObject } from './strict.ts';
import { AiModel } from './training.ts';

/**
 * Strategy generation: the contract's Generate and From-template requests, their responses and
 * stream events, and the presets/examples catalogues. The code written always follows the
 * strategy code contract (schemas/strategy.ts) and starts with the `# signalforge:` header line.
 */

const text = (what: string) => z.string().max(4000).optional().describe(what);

/** The contract's position rules (pos_rules). */
export const PosRules = strictObject({
  cooldown: z.number().int().min(0).max(500).optional().describe('Bars to wait after a close'),
  direction: z.enum(['both', 'long', 'short']).optional(),
  max_pos: z.number().int().min(1).max(10).optional().describe('Open positions at most'),
  on_opposite: z.enum(['reverse', 'close_only', 'ignore']).optional(),
}).meta({ id: 'PosRules' });
export type PosRules = z.infer<typeof PosRules>;

export const TEMPLATE_NAMES = ['macd_momentum', 'mean_reversion', 'trend_following', 'scalper', 'conservative_long'] as const;
export const TemplateName = z.enum(TEMPLATE_NAMES);
export type TemplateName = z.infer<typeof TemplateName>;

export const GenerateRequest = strictObject({
  description: text('One-line idea in plain language; the primary request'),
  features: text('Indicators / features to compute, in plain language'),
  signals: text('Entry and exit conditions, in plain language'),
  model: text('Model choice, in plain language (e.g. "random forest", "xgboost")'),
  optimization: text('Metric to maximise'),
  risk: text('Stop loss, take profit, sizing'),
  risk_function: text('Custom filter logic (sessions, volatility, trend)'),
  indicators: IndicatorsObject.optional(),
  pos_rules: PosRules.optional(),
  ai_model: AiModel.optional().describe(
    'sonnet, opus, haiku or sonnet-haiku; without ANTHROPIC_API_KEY the offline generator writes the code',
  ),
  symbol: Symbol.optional().describe('Default: the first symbol the text names ("GBP/USD", "gbpusd", "cable"), else EURUSD'),
  timeframe: Timeframe.optional().describe('Default: the one timeframe the text names ("hourly", "5 minute bars", "M15"), else 15min'),
  start_date: IsoDate.optional(),
  end_date: IsoDate.optional(),
  train_split: z.number().min(0.3).max(0.9).optional(),
}).meta({ id: 'GenerateRequest' });
export type GenerateRequest = z.infer<typeof GenerateRequest>;
/** A generate request whose market is settled: the field, else the text, else the default (src/generation/market-mention.ts). */
export type MarketGenerateRequest = GenerateRequest & { symbol: Symbol; timeframe: Timeframe };

export const FromTemplateRequest = strictObject({
  template: TemplateName,
  symbol: Symbol.default('EURUSD'),
  timeframe: Timeframe.default('15min'),
  model: text('Model choice in plain language, overriding the template’s'),
  ai_model: AiModel.optional(),
  start_date: IsoDate.optional().describe('Default: the start of the stored history'),
  end_date: IsoDate.optional().describe('Default: the latest bar'),
  train_split: z.number().min(0.3).max(0.9).optional(),
  indicators: IndicatorsObject.optional().describe('Merged over the template’s indicators'),
  pos_rules: PosRules.optional().describe('Merged over the template’s pos_rules'),
}).meta({ id: 'FromTemplateRequest' });
export type FromTemplateRequest = z.infer<typeof FromTemplateRequest>;

export const Generator = z
  .enum(['offline', 'claude'])
  .describe('Which generator wrote the code: offline = our embedded generator, claude = the Anthropic API');
export type Generator = z.infer<typeof Generator>;

/** One setting as it was read: its value, where it came from, and the words that said so. */
const decided = <T extends z.ZodType>(value: T) =>
  z.object({
    value,
    from: z.string().describe('The request field that set it (description, signals, risk…, pos_rules, indicators), or default'),
    phrase: z.string().optional().describe('The words of the request that set it'),
  });

/** A condition as read: in words, the side it was asked for, the field it came from. */
const Rule = z.object({
  condition: z.string(),
  side: z.enum(['long', 'short']).nullable().describe('The side it is for; null = either'),
  from: z.string(),
});

/**
 * What the request was read to ask, setting by setting (the offline generator's reading: the same
 * one every entry point makes), so a client can show it and the user correct it.
 */
export const Understood = z
  .object({
    direction: decided(z.enum(['both', 'long', 'short'])),
    indicators: z.array(z.string()).describe('The indicators computed, e.g. "EMA 20", "RSI(14)"'),
    conditions: z
      .array(
        z.object({
          condition: z.string(),
          side: z.enum(['long', 'short']).nullable().describe('The entry it was asked for; null = either'),
          from: z.string(),
        }),
      )
      .describe('Every condition computed as a feature (entries, exits and filters alike); the model decides the entries from them'),
    entries: z
      .array(Rule)
      .describe(
        'The entry conditions: features the model learns from and, where the request states them, the conditions of entry_rules (which gate entries)',
      ),
    entry_rules: z
      .object({
        long: z
          .string()
          .nullable()
          .describe(
            'The long entry rule in words (strategy_config entry_long): longs open only where it holds and the model confirms; null = no long rule',
          ),
        short: z.string().nullable().describe('The short entry rule in words (strategy_config entry_short); null = no short rule'),
        columns: z
          .object({ entry_long: z.string().nullable(), entry_short: z.string().nullable() })
          .optional()
          .describe('The rule columns; absent when the entries are left to the model'),
      })
      .describe(
        "The trader's entry rules, which gate entries (meta-labelling: the rule proposes, the model confirms). Both null: the model decides the entries (no rule stated). One set: the other side opens nothing",
      )
      .optional(),
    exits: z
      .array(Rule)
      .describe(
        "Exit rules: where one holds at a bar's close, that side closes at the next open (strategy_config exit_long / exit_short); targets and stops named by an indicator are exits too",
      ),
    filters: z
      .array(z.object({ filter: z.string(), from: z.string() }))
      .describe('What gates entries: filter conditions (entry_filter), session, days, trend, volatility'),
    stops: z
      .array(z.string())
      .describe(
        'The stops: the fixed stop_loss ("fixed: …"), the trailing stop ("trailing: …", strategy_config trailing_stop), and stop levels named by an indicator, expressed as exit rules',
      ),
    targets: z.array(z.string()).describe('The targets: the fixed take_profit, and indicator targets expressed as exit rules'),
    approximations: z
      .array(z.object({ asked: z.string(), done: z.string(), why: z.string() }))
      .describe('What the strategy model expresses only approximately: the words, what the code does, and why'),
    session: decided(z.string()).describe('Hours entries may open (UTC)'),
    skip_days: decided(z.array(z.string())).describe('UTC days on which no entry opens (strategy_config skip_days)'),
    trend_filter: decided(z.string().nullable()).describe('Longs only above this column, shorts only below'),
    min_atr: decided(z.number().nullable()).describe('Minimum NATR(14) in percent for entries'),
    stop_loss: decided(z.string().nullable()),
    take_profit: decided(z.string().nullable()),
    trailing_stop: decided(z.string().nullable()).describe('The trailing stop (strategy_config trailing_stop) in words; null = none'),
    model: decided(z.string()),
    defaults: z
      .array(z.string())
      .describe(
        'The defaults the code adds that the request did not ask for, each with its value (e.g. "take_profit: 1.5 x the stop"). A default the words rule out is not added ' +
          '(no fixed take profit under a trailing stop or "let it run", no fixed stop or take where the opposite signal is the only exit); remarks say which and why',
      ),
    remarks: z.array(z.string()).describe('What was approximated, left out, or chosen between conflicting words, and why'),
  })
  .meta({ id: 'Understood' });
export type Understood = z.infer<typeof Understood>;

export const GenerateResponse = z
  .object({
    code: z.string().describe('Full strategy code: feature_engineering + strategy_config'),
    credits_remaining: z.number().int(),
    generator: Generator,
    ai_model: z.string().nullable().describe('The model id that wrote it (claude), null for offline'),
    symbol: Symbol.describe('The symbol the code is written for: the request field, else the one the text names, else EURUSD'),
    timeframe: Timeframe.describe('The timeframe the code is written for: the request field, else the one the text names, else 15min'),
    understood: Understood.describe(
      'How the request was read, setting by setting (when Claude wrote the code, this is our reading of the same request; Claude’s own is in the code’s comments)',
    ),
  })
  .meta({ id: 'GenerateResponse' });
export type GenerateResponse = z.infer<typeof GenerateResponse>;

/** SSE events of POST /generate/stream (and the generate phase of /one_shot). */
export const TokenEvent = z.object({ text: z.string() });
export const GenerateDoneEvent = GenerateResponse;
export const StreamErrorEvent = z.object({ error: z.string() });
/** `reset` of POST /generate/stream: the text streamed so far is discarded (a repair of Claude's answer, or the offline fallback, follows). */
export const StreamResetEvent = z.object({ reason: z.string() });
/** The data of any POST /generate/stream frame (token, reset, done or error), for the API description. */
export const GenerateStreamFrame = z
  .union([TokenEvent, StreamResetEvent, GenerateDoneEvent, StreamErrorEvent])
  .describe('event: token → {text}; event: reset → {reason}; event: done → GenerateResponse; event: error → {error}');

/** A prompt chip of GET /presets: a short label and the text it adds to the prompt box. */
export const ChipPreset = z.object({
  label: z.string(),
  text: z.string().describe('The words the chip adds to the prompt (a generate `description`)'),
});

/** A curated template of GET /presets, with what POST /generate/from-template merges over. */
export const TemplateInfo = z.object({
  name: TemplateName,
  title: z.string(),
  description: z.string(),
  indicators: IndicatorsObject.describe('The template’s indicators; a from-template request’s `indicators` are merged over them'),
  pos_rules: PosRules.describe('The template’s pos_rules; a from-template request’s `pos_rules` are merged over them'),
  model: z.string().describe('The template’s model, in plain language; a from-template request’s `model` replaces it'),
});

/** Body of GET /api/v1/presets. */
export const PresetsResponse = z
  .object({
    chips: z.array(ChipPreset).describe('Prompt chips a client shows under its prompt box'),
    pos_rules_schema: z
      .record(z.string(), z.unknown())
      .describe('JSON Schema (draft 2020-12) of the `pos_rules` object of the generate requests'),
    templates: z.array(TemplateInfo).describe('The five curated templates of POST /generate/from-template'),
  })
  .meta({ id: 'Presets' });
export type PresetsResponse = z.infer<typeof PresetsResponse>;

export const ExamplesQuery = z.object({
  category: z
    .string()
    .max(50)
    .optional()
    .describe('Only the examples of this category (see `categories`); an unknown one gives an empty list'),
});

/** Body of GET /api/v1/examples. */
export const ExamplesResponse = z
  .object({
    count: z.number().int(),
    categories: z.array(z.string()).describe('Every category there is'),
    examples: z.array(z.object({ category: z.string(), prompt: z.string().describe('Ready to send as a generate `description`') })),
  })
  .meta({ id: 'Examples' });
export type ExamplesResponse = z.infer<typeof ExamplesResponse>;
