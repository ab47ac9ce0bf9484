import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INDICATOR_LIST } from '../../../src/indicators/index.ts';
import { costUsd, pricesFor, repairPrompt, requestPrompt, systemPrompt } from '../../../src/generation/claude/index.ts';
import { checkStrategyCode } from '../../../src/sandbox/static-check.ts';
import { GenerateRequest } from '../../../schemas/generation.ts';
import { withMarket } from '../../../src/generation/index.ts';
import { MODEL_TYPES } from '../../../schemas/strategy.ts';

const CONFIG_KEYS = [
  'model_type',
  'model_params',
  'signal_threshold',
  'direction',
  'stop_loss',
  'take_profit',
  'cooldown',
  'max_positions',
  'on_opposite',
  'session_filter',
  'min_atr',
  'trend_filter',
  'target_horizon',
  'objective',
  'notes',
  'title',
];
const BANNED = [
  'xgboost',
  'lightgbm',
  'tensorflow',
  'keras',
  'torch',
  'optuna',
  'ta,',
  'talib',
  'finta',
  'tulipy',
  'statsmodels',
  'plotly',
];
const ENGINE = ['build_model', 'generate_signals', 'apply_risk', 'train_and_backtest', 'risk_filter'];

describe('the system prompt carries the whole code contract', () => {
  const prompt = systemPrompt();

  it('names the two functions, the header line, the allowed imports, the banned packages and engine functions', () => {
    assert.match(prompt, /feature_engineering\(df, close, open_, high, low\)/);
    assert.match(prompt, /strategy_config\(\)/);
    assert.match(prompt, /# signalforge: symbol=<SYMBOL> timeframe=<TIMEFRAME>/);
    assert.match(prompt, /only numpy, pandas and sklearn/);
    for (const name of [...BANNED, ...ENGINE]) assert.ok(prompt.includes(name), name);
    for (const rule of ['shift(-n)', 'pd.cut', 'df = df.bfill().ffill()', 'center=True', 'exec, eval'])
      assert.ok(prompt.includes(rule), rule);
  });

  it('lists every strategy_config key, every model type and their bounds from the schema', () => {
    for (const key of CONFIG_KEYS) assert.match(prompt, new RegExp(`^- ${key}: `, 'm'), key);
    for (const type of MODEL_TYPES) assert.match(prompt, new RegExp(`^- ${type}: `, 'm'), type);
    assert.match(prompt, /signal_threshold: float 0\.5\.\.0\.95/);
    assert.match(prompt, /max_depth int 1\.\.16/);
    assert.match(prompt, /Never: use_label_encoder, eval_metric/);
  });

  it('explains the optional trailing_stop key: a ratio, pips or ATR, from the schema, and not as exit columns', () => {
    assert.match(
      prompt,
      /^- trailing_stop: float >0\.\.0\.2 or \{"atr": float 0\.1\.\.20, "period": int 2\.\.200 \(optional, default 14\)\} or \{"pips": float 0\.1\.\.10000\} or None/m,
    );
    assert.match(prompt, /"trail by 2 ATR"/);
    assert.match(prompt, /Do not approximate a trailing stop with exit columns/);
  });

  it('gives the indicator registry’s pandas conventions and column names', () => {
    for (const i of INDICATOR_LIST) for (const col of i.info.columns.defaults) assert.ok(prompt.includes(col), col);
    assert.match(prompt, /ewm\(alpha=1 \/ 14, adjust=False\)/);
    assert.match(prompt, /std\(ddof=0\)/);
  });

  it('is stable (the prompt cache needs byte-identical text) and long enough to be cached', () => {
    assert.equal(systemPrompt(), prompt);
    assert.ok(prompt.length > 8000, `${prompt.length} chars`);
  });

  it('shows an example that itself passes the static check', async () => {
    const example = /EXAMPLE[^`]*```python\n([\s\S]*?)```/.exec(prompt)?.[1];
    assert.ok(example);
    const check = await checkStrategyCode(example);
    assert.deepEqual(check.violations, []);
  });
});

describe('the user turns', () => {
  it('carries the market, the header, the idea, the requested indicators’ code and the binding pos_rules', () => {
    const text = requestPrompt(
      withMarket(
        GenerateRequest.parse({
          description: 'Fade RSI extremes',
          risk: '20 pip stop',
          indicators: { rsi_enabled: true, rsi_period: 7 },
          pos_rules: { cooldown: 3, on_opposite: 'close_only' },
          symbol: 'USDJPY',
          timeframe: '5min',
          start_date: '2024-01-01',
        }),
      ),
    );
    assert.match(text, /# signalforge: symbol=USDJPY timeframe=5min/);
    assert.match(text, /USDJPY, 5min bars, trained on 2024-01-01/);
    assert.match(
      text,
      /<request>\nIdea \(the primary request\): Fade RSI extremes\nStop loss, take profit, sizing: 20 pip stop\n<\/request>/,
    );
    assert.match(text, /df\['rsi_7'\]/);
    assert.match(text, /cooldown = 3, on_opposite = "close_only"/);
  });

  it('asks for a general strategy when no idea is given', () => {
    assert.match(requestPrompt(withMarket(GenerateRequest.parse({}))), /No idea was given/);
  });

  it('lists every violation with its position, rule and fix', () => {
    const text = repairPrompt([
      { line: 7, col: 5, rule: 'negative-shift', message: 'x', hint: 'use shift(1)' },
      { line: 0, col: 0, rule: 'config', message: 'model_params.n_jobs: refused', hint: 'remove it' },
    ]);
    assert.match(text, /2 rules/);
    assert.match(text, /- line 7, col 5 \[negative-shift\]: x\. Fix: use shift\(1\)/);
    assert.match(text, /- strategy_config\(\) \[config\]: model_params\.n_jobs: refused\. Fix: remove it/);
  });
});

describe('the price table', () => {
  it('prices every token class; unknown ids by family, unknown families as Opus', () => {
    assert.equal(costUsd('claude-sonnet-5-5', { input_tokens: 1_000_000, output_tokens: 0 }), 2);
    assert.equal(costUsd('claude-sonnet-5-5', { input_tokens: 0, output_tokens: 1_000_000 }), 10);
    assert.equal(costUsd('claude-sonnet-5-5', { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 1_000_000 }), 2.5);
    assert.ok(
      Math.abs(costUsd('claude-sonnet-5-5', { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 1_000_000 }) - 0.1) < 1e-12,
    );
    assert.deepEqual(pricesFor('claude-haiku-9'), pricesFor('some-haiku-model'));
    assert.ok(pricesFor('mystery-model').output >= pricesFor('claude-opus-5-5').output);
  });
});
