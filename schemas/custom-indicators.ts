import { z } from 'zod';
import { ErrorBody, IsoDateTime, Symbol, Timeframe } from './common.ts';
import { strictObject } from './strict.ts';

/**
 * POST /api/v1/indicators/custom: a Pine Script (v5/v6) or a plain-language description, run
 * bar by bar over our bars by our own interpreter.
 */
export const PINE_PROVIDERS = ['offline', 'haiku', 'sonnet'] as const;
export const PineProvider = z
  .enum(PINE_PROVIDERS)
  .describe(
    'Who turns a plain-language description into Pine: `offline` (default) = our offline generator’s indicator and ' +
      'condition grammar (SMA, EMA, WMA, Hull MA, Bollinger, RSI, MACD, Stochastic, ATR, ADX/DMI, CCI, Keltner, Donchian, session VWAP ' +
      '(time-weighted: bars carry no volume), daily pivots, Ichimoku, Parabolic SAR, SuperTrend, ROC, Williams %R, z-score, ' +
      'N-bar highs/lows, engulfing/pin/inside-bar candles, volatility regime; rules on them become markers and alerts); `haiku` / `sonnet` = Claude (when the service has an Anthropic key; otherwise, or when Claude ' +
      'fails, the offline generator). Ignored when `source` is Pine Script.',
  );
export type PineProvider = z.infer<typeof PineProvider>;

export const FE_MODES = ['full', 'basic', 'none'] as const;
export const FeMode = z
  .enum(FE_MODES)
  .describe(
    '`none`: no features. `basic`: every plotted series, one column each (named from its title). `full`: the basic ' +
      'columns plus, per price-pane series, `<name>_slope` (x − x[1]), `<name>_dist` ((close − x) / close) and ' +
      '`<name>_cross` (+1 when close crosses above it on the bar, −1 below, else 0); per panel series `<name>_slope` ' +
      'and per level of its panel `<name>_above_<level>` (1 / 0); per signal title `signal_<title>` (1 on bars with ' +
      'that signal, else 0).',
  );
export type FeMode = z.infer<typeof FeMode>;

export const CUSTOM_MAX_LIMIT = 5000;
export const CUSTOM_WARMUP_BARS = 500;
export const MAX_SOURCE_CHARS = 20_000;

export const CustomIndicatorRequest = strictObject({
  source: z
    .string()
    .min(1)
    .max(MAX_SOURCE_CHARS)
    // Blank text is neither a script nor a description (the offline writer would answer its default set).
    .refine((s) => s.trim().length > 0, 'source is blank: send a Pine Script or describe the indicator in words')
    .describe(
      'Pine Script v5/v6 (recognised by `//@version`, `indicator(`, `strategy(` or a `plot…(` call), or a plain-language description of the indicator',
    ),
  provider: PineProvider.default('offline'),
  fe_mode: FeMode.default('basic'),
  symbol: Symbol.default('EURUSD'),
  timeframe: Timeframe.default('15min'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(CUSTOM_MAX_LIMIT)
    .default(2000)
    .describe(
      `Bars returned (the newest, at most ${CUSTOM_MAX_LIMIT}); the script runs over up to ${CUSTOM_WARMUP_BARS} earlier bars first`,
    ),
}).meta({
  id: 'CustomIndicatorRequest',
  examples: [
    {
      source: [
        '//@version=5',
        'indicator("RSI with levels", overlay=false)',
        'len = input.int(14, "Length", minval=1)',
        'r = ta.rsi(close, len)',
        'plot(r, "RSI", color=color.purple)',
        'hline(70, "Overbought")',
        'hline(30, "Oversold")',
        'plotshape(ta.crossover(r, 30), "Leaving oversold", style=shape.triangleup, location=location.bottom)',
      ].join('\n'),
      fe_mode: 'full',
      symbol: 'EURUSD',
      timeframe: '15min',
      limit: 500,
    },
    {
      source: 'a 20-period Keltner channel with 2 ATR bands, and mark where price closes outside it',
      provider: 'offline',
      fe_mode: 'basic',
    },
  ],
});
export type CustomIndicatorRequest = z.infer<typeof CustomIndicatorRequest>;

const Values = z.array(z.number().nullable()).describe('One value per returned bar (aligned with `timestamps`); null = na');

export const PlotSeries = z.object({
  name: z.string().describe('Identifier: the plot title in snake case (unique in the response)'),
  title: z.string(),
  color: z.string().nullable().describe('#rrggbb or #rrggbbaa (the first colour the plot used)'),
  style: z.string().describe('Pine plot style, e.g. style_line, style_histogram'),
  linewidth: z.number(),
  values: Values,
});
export type PlotSeries = z.infer<typeof PlotSeries>;

export const Panel = z.object({
  name: z.string(),
  series: z.array(PlotSeries),
  levels: z
    .array(z.object({ title: z.string(), price: z.number(), color: z.string().nullable() }))
    .describe('Horizontal levels from hline()'),
  bounds: z
    .object({ min: z.number().nullable(), max: z.number().nullable() })
    .describe('Smallest and largest value of its series and levels'),
});
export type Panel = z.infer<typeof Panel>;

export const CustomSignal = z.object({
  ts: IsoDateTime.describe('Open time of the bar'),
  kind: z.enum(['plotshape', 'plotchar', 'alertcondition', 'strategy.entry', 'strategy.close', 'strategy.exit', 'strategy.close_all']),
  title: z.string().describe('The plot title, alert title or order id'),
  text: z.string().describe('The shape text, the char, or the alert message'),
  direction: z.enum(['long', 'short']).optional().describe('strategy.entry only'),
  location: z.string().optional().describe('plotshape / plotchar only: abovebar, belowbar, …'),
});

export const CustomInput = z.object({
  name: z.string().describe('The variable it is assigned to'),
  title: z.string(),
  type: z.enum(['int', 'float', 'bool', 'string', 'source', 'color', 'timeframe']),
  default: z.union([z.number(), z.boolean(), z.string()]).nullable().describe('The value used (a source input: the series name)'),
  options: z.array(z.union([z.number(), z.string()])).optional(),
  min: z.number().optional(),
  max: z.number().optional(),
});

export const CustomIndicatorResponse = z
  .object({
    source_kind: z.enum(['pine', 'text']),
    generated_pine: z.string().nullable().describe('The Pine written from the description (source_kind text), else null'),
    remarks: z
      .array(z.string())
      .describe(
        'How the offline writer read your description (what it recognised, assumed or left out); empty for Pine sources and Claude',
      ),
    generator: z.enum(['pine', 'offline', 'claude']).describe('Who wrote the Pine that ran: pine = your own script'),
    title: z.string(),
    script_kind: z.enum(['indicator', 'strategy', 'library', 'none']),
    symbol: Symbol,
    timeframe: Timeframe,
    count: z.number().int(),
    warmup: z.number().int().describe('Bars the script ran over before the first returned one'),
    timestamps: z.array(IsoDateTime),
    overlays: z.array(PlotSeries).describe('Series drawn on the price pane (indicator(overlay=true))'),
    panels: z.array(Panel).describe('Separate panes (indicator(overlay=false)): the series and the hline levels'),
    signals: z.array(CustomSignal),
    features: z.record(z.string(), Values).describe('ML feature columns by name, per fe_mode'),
    inputs: z.array(CustomInput),
    run: z
      .object({
        steps: z.number().int().describe('Expression evaluations spent (budget: 30 million)'),
        parse_ms: z
          .number()
          .describe(
            'Parsing and checking the script; near 0 when this worker ran the same script text recently (it keeps the checked program, never a result)',
          ),
        run_ms: z.number().describe('Interpreting over every bar, warm-up included, and shaping the response'),
      })
      .describe('What the run cost'),
    credits_charged: z.number().int(),
    credits_remaining: z.number().int(),
  })
  .meta({ id: 'CustomIndicatorResponse' });
export type CustomIndicatorResponse = z.infer<typeof CustomIndicatorResponse>;

/** 422: the script (or the Pine written from the description) cannot be run as written. */
export const PineErrorBody = ErrorBody.extend({
  line: z.number().int().describe('1-based line of the problem'),
  column: z.number().int().describe('1-based column of the problem'),
  construct: z.string().nullable().describe('The unsupported construct, when that is the problem (e.g. `request.security()`)'),
  generated_pine: z.string().optional().describe('The Pine written from your description, when that is what failed'),
}).meta({ id: 'PineError' });
