/**
 * The five templates, the request merge of POST /generate/from-template (contract rule 3) and
 * the catalogues of GET /examples and GET /presets.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FromTemplateRequest, TEMPLATE_NAMES } from '../../../schemas/generation.ts';
import { StrategyConfig } from '../../../schemas/strategy.ts';
import { codeHeader } from '../../../src/sandbox/code-header.ts';
import {
  CHIP_PRESETS,
  EXAMPLE_CATEGORIES,
  EXAMPLE_PROMPTS,
  TEMPLATES,
  generateOffline,
  templateRequest,
} from '../../../src/generation/offline/index.ts';
import { checkStrategyCode } from '../../../src/sandbox/static-check.ts';

describe('offline generator: templates and catalogues', () => {
  it('has the five templates of the contract, each with a title, a description and its request', () => {
    assert.deepEqual(Object.keys(TEMPLATES).sort(), [...TEMPLATE_NAMES].sort());
    for (const [name, spec] of Object.entries(TEMPLATES)) {
      assert.equal(spec.name, name);
      assert.ok(spec.title.length > 0 && spec.title.length <= 60);
      assert.ok(spec.description.length > 20);
      assert.ok(spec.request.description.length > 0 && spec.request.model.length > 0);
      assert.ok(Object.keys(spec.request.indicators).length > 0 && Object.keys(spec.request.pos_rules).length > 0);
    }
  });

  for (const name of TEMPLATE_NAMES) {
    it(`${name}: generates valid code on every timeframe`, async () => {
      for (const timeframe of ['1min', '5min', '15min', '1h'] as const) {
        const request = templateRequest(FromTemplateRequest.parse({ template: name, symbol: 'GBPUSD', timeframe }));
        const { code, intent } = generateOffline(request);
        assert.equal(code.split('\n', 1)[0], codeHeader('GBPUSD', timeframe));
        assert.ok(StrategyConfig.safeParse(intent.config).success);
        const check = await checkStrategyCode(code);
        assert.ok(check.ok, JSON.stringify(check.violations));
      }
    });
  }

  it('templates mean what they say', () => {
    const at = (name: (typeof TEMPLATE_NAMES)[number]) =>
      generateOffline(templateRequest(FromTemplateRequest.parse({ template: name }))).intent;
    const macd = at('macd_momentum');
    assert.equal(macd.config.model_type, 'XGBClassifier');
    assert.equal(macd.config.trend_filter, 'ema_200');
    assert.equal(macd.config.on_opposite, 'reverse');
    assert.ok(macd.features.includes('macd_12_26_9_xup_macd_signal_12_26_9'));
    const mr = at('mean_reversion');
    assert.ok(mr.features.includes('rsi_14_lt_30') && mr.features.includes('bb_below_20_2'));
    assert.deepEqual(mr.config.session_filter, [9, 0]);
    const trend = at('trend_following');
    assert.equal(trend.config.trend_filter, 'sma_200');
    assert.equal(trend.config.target_horizon, 16);
    assert.ok(trend.config.min_atr !== null);
    const scalper = at('scalper');
    assert.deepEqual(scalper.config.session_filter, [7, 21]);
    assert.ok(scalper.features.includes('ema_5_x_ema_13') && scalper.features.includes('stoch_k_5_3_x_stoch_d_5_3'));
    const cl = at('conservative_long');
    assert.equal(cl.config.direction, 'long');
    assert.equal(cl.config.signal_threshold, 0.6);
    assert.equal(cl.config.model_type, 'LogisticRegression');
  });

  it('templateRequest merges the caller’s indicators and pos_rules over the template’s, key by key', () => {
    const request = templateRequest(
      FromTemplateRequest.parse({
        template: 'macd_momentum',
        symbol: 'USDJPY',
        timeframe: '1h',
        model: 'random forest',
        ai_model: 'haiku',
        start_date: '2024-01-01',
        end_date: '2024-06-30',
        train_split: 0.6,
        indicators: { macd_fast: 8, rsi_enabled: true },
        pos_rules: { direction: 'long', cooldown: 0 },
      }),
    );
    const spec = TEMPLATES.macd_momentum.request;
    // The template's own values stay where the caller says nothing.
    assert.equal(request.pos_rules?.on_opposite, 'reverse');
    assert.equal(request.indicators?.macd_slow, 26);
    assert.deepEqual(request.indicators, { ...spec.indicators, macd_fast: 8, rsi_enabled: true });
    assert.deepEqual(request.pos_rules, { ...spec.pos_rules, direction: 'long', cooldown: 0 });
    assert.equal(request.model, 'random forest');
    assert.equal(request.description, spec.description);
    assert.deepEqual(
      [request.symbol, request.timeframe, request.ai_model, request.start_date, request.end_date, request.train_split],
      ['USDJPY', '1h', 'haiku', '2024-01-01', '2024-06-30', 0.6],
    );
    const { intent } = generateOffline(request);
    assert.ok(intent.features.includes('macd_8_26_9'), intent.features.join(','));
    assert.ok(intent.features.includes('rsi_14'));
    assert.equal(intent.config.direction, 'long');
    assert.equal(intent.config.cooldown, 0);
    assert.equal(intent.config.model_type, 'RandomForestClassifier');
    // Without caller fields: the template as it is; symbol and timeframe default.
    const plain = templateRequest(FromTemplateRequest.parse({ template: 'scalper' }));
    assert.deepEqual(plain.pos_rules, TEMPLATES.scalper.request.pos_rules);
    assert.equal(plain.model, TEMPLATES.scalper.request.model);
    assert.deepEqual([plain.symbol, plain.timeframe], ['EURUSD', '15min']);
  });

  it('has example prompts in every category and short chips', () => {
    for (const category of EXAMPLE_CATEGORIES) assert.ok(EXAMPLE_PROMPTS.filter((e) => e.category === category).length >= 3, category);
    for (const chip of CHIP_PRESETS) {
      assert.ok(chip.label.length > 0 && chip.label.length <= 24, chip.label);
      assert.ok(chip.text.length > 0 && chip.text.length <= 80, chip.text);
    }
  });
});
