/**
 * The five curated templates. Each stands for a generate request (description text, indicators
 * object, pos_rules, model), which the offline generator — or Claude — turns into code like any
 * other request. POST /generate/from-template merges the caller's indicators and pos_rules over
 * the template's (contract endpoint rule 3).
 */
import type { FromTemplateRequest, GenerateRequest, PosRules, TemplateName } from '../../../schemas/generation.ts';
import type { IndicatorsObject } from '../../../schemas/indicators.ts';

/** What a template is: its name, title, a one-paragraph description and the request it stands for. */
export interface TemplateSpec {
  name: TemplateName;
  title: string;
  description: string;
  request: {
    description: string;
    signals?: string;
    risk?: string;
    risk_function?: string;
    model: string;
    indicators: IndicatorsObject;
    pos_rules: PosRules;
  };
}

export const TEMPLATES: Record<TemplateName, TemplateSpec> = {
  macd_momentum: {
    name: 'macd_momentum',
    title: 'MACD momentum',
    description:
      'Rides momentum: MACD(12,26,9) line crossing its signal line and the histogram turning positive or negative, with the trend above or below the 200 EMA; reverses on the opposite signal.',
    request: {
      description:
        'MACD momentum: buy when the MACD line crosses above the signal line and the histogram turns positive, sell when it crosses below and the histogram turns negative',
      risk_function: 'only trade with the trend above the 200 EMA',
      risk: 'stop 1.5 x ATR, reward to risk 2:1',
      model: 'xgboost',
      indicators: {
        macd_enabled: true,
        macd_fast: 12,
        macd_slow: 26,
        macd_signal: 9,
        ema_enabled: true,
        ema_period: 200,
        atr_enabled: true,
        atr_period: 14,
      },
      pos_rules: { direction: 'both', cooldown: 2, max_pos: 1, on_opposite: 'reverse' },
    },
  },
  mean_reversion: {
    name: 'mean_reversion',
    title: 'RSI + Bollinger mean reversion',
    description:
      'Fades stretched moves: RSI(14) below 30 with price under the lower Bollinger band (20, 2) to buy, RSI above 70 over the upper band to sell; skips the Asian session; closes on an opposite signal.',
    request: {
      description:
        'mean reversion: buy when RSI is below 30 and price closes below the lower bollinger band, sell when RSI is above 70 and price is above the upper band',
      risk_function: 'avoid the asian session',
      risk: 'stop loss 20 pips, take profit 30 pips',
      model: 'random forest',
      indicators: { rsi_enabled: true, rsi_period: 14, bb_enabled: true, bb_period: 20, bb_std: 2 },
      pos_rules: { direction: 'both', cooldown: 3, max_pos: 1, on_opposite: 'close_only' },
    },
  },
  trend_following: {
    name: 'trend_following',
    title: 'EMA trend following',
    description:
      'Follows established trends: EMA 20 crossing EMA 50 in the direction of the 200 SMA, only when volatility is up, aiming a few hours ahead; reverses on the opposite signal.',
    request: {
      description: 'trend following: enter when EMA 20 crosses EMA 50, predict the next 4 hours',
      risk_function: 'only trade with the trend above the 200 SMA, volatility filter',
      risk: 'stop 2 x ATR, take profit 3 x the stop',
      model: 'gradient boosting',
      indicators: { ema_enabled: true, sma_enabled: true, sma_period: 200, atr_enabled: true, atr_period: 14 },
      pos_rules: { direction: 'both', cooldown: 4, max_pos: 1, on_opposite: 'reverse' },
    },
  },
  scalper: {
    name: 'scalper',
    title: 'Session scalper',
    description:
      'Quick in-and-out trades in the London and New York sessions: EMA 5 crossing EMA 13 with the stochastic (5, 3) %K crossing %D, tight stops and targets.',
    request: {
      description: 'scalper: fast EMA 5 crossing slow EMA 13 and stochastic %K crossing %D, predict the next 15 minutes',
      risk_function: 'London and New York sessions only',
      risk: 'stop 6 pips, take profit 9 pips',
      model: 'extra trees',
      indicators: { stoch_enabled: true, stoch_k_period: 5, stoch_d_period: 3 },
      pos_rules: { direction: 'both', cooldown: 2, max_pos: 1, on_opposite: 'close_only' },
    },
  },
  conservative_long: {
    name: 'conservative_long',
    title: 'Conservative long-only dip buyer',
    description:
      'Buys dips in an uptrend only: RSI(14) under 35 while price holds above the 200 SMA, high-confidence signals only, one position at a time, 1% stop and 2% target.',
    request: {
      description: 'conservative long only: buy dips when RSI drops below 35 while price is above the 200 SMA, only when 60% confident',
      risk: 'stop 1%, take profit 2%',
      model: 'logistic regression',
      indicators: { rsi_enabled: true, rsi_period: 14, sma_enabled: true, sma_period: 200 },
      pos_rules: { direction: 'long', cooldown: 5, max_pos: 1, on_opposite: 'close_only' },
    },
  },
};

/**
 * The template's generate request with the caller's indicators and pos_rules merged over the
 * template's (key by key), the caller's model (when given) over the template's, and symbol,
 * timeframe, dates, train_split and ai_model passed through.
 */
export function templateRequest(request: FromTemplateRequest): GenerateRequest {
  const spec = TEMPLATES[request.template].request;
  const out: GenerateRequest = {
    description: spec.description,
    model: request.model?.trim() ? request.model : spec.model,
    indicators: { ...spec.indicators, ...(request.indicators ?? {}) },
    pos_rules: { ...spec.pos_rules, ...(request.pos_rules ?? {}) },
    symbol: request.symbol ?? 'EURUSD',
    timeframe: request.timeframe ?? '15min',
  };
  if (spec.signals) out.signals = spec.signals;
  if (spec.risk) out.risk = spec.risk;
  if (spec.risk_function) out.risk_function = spec.risk_function;
  if (request.ai_model !== undefined) out.ai_model = request.ai_model;
  if (request.start_date !== undefined) out.start_date = request.start_date;
  if (request.end_date !== undefined) out.end_date = request.end_date;
  if (request.train_split !== undefined) out.train_split = request.train_split;
  return out;
}
