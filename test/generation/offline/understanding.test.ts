/**
 * What the offline generator understands: for each request, the features the code computes and
 * the strategy_config values must say what the request asked (units converted at the symbol's
 * typical price, sessions in UTC, structured fields over prose, remarks for every conflict).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Symbol, Timeframe } from '../../../schemas/common.ts';
import type { GenerateRequest } from '../../../schemas/generation.ts';
import { labelMode } from '../../../schemas/strategy.ts';
import { INSTRUMENTS } from '../../../src/lib/instruments.ts';
import { generateOffline, understoodFrom } from '../../../src/generation/offline/index.ts';

type Req = Omit<Partial<GenerateRequest>, 'symbol' | 'timeframe'>;
const gen = (req: string | Req, symbol: Symbol = 'EURUSD', timeframe: Timeframe = '15min') =>
  generateOffline({ ...(typeof req === 'string' ? { description: req } : req), symbol, timeframe });
const cfg = (req: string | Req, symbol: Symbol = 'EURUSD', timeframe: Timeframe = '15min') => gen(req, symbol, timeframe).intent.config;
const features = (req: string | Req, symbol: Symbol = 'EURUSD', timeframe: Timeframe = '15min') =>
  gen(req, symbol, timeframe).intent.features;
const pipsRatio = (pips: number, symbol: Symbol) => (pips * INSTRUMENTS[symbol].pipSize) / INSTRUMENTS[symbol].synthetic.price;
const near = (actual: number | null, expected: number, what = '') => {
  assert.ok(actual !== null && Math.abs(actual - expected) <= expected * 1e-3, `${what}: ${actual} vs ${expected}`);
};
const has = (list: readonly string[], ...names: string[]) => {
  for (const n of names) assert.ok(list.includes(n), `${n} not in ${list.join(', ')}`);
};

describe('offline generator: what a request is understood to ask', () => {
  it('the brief example: RSI(7) below 25, long only, London, stop 20 pips, xgboost', () => {
    const { intent, code } = gen('RSI(7) below 25, long only, London session, stop 20 pips, xgboost');
    has(intent.features, 'rsi_7', 'rsi_7_lt_25');
    assert.equal(intent.config.direction, 'long');
    assert.deepEqual(intent.config.session_filter, [7, 16]);
    near(intent.config.stop_loss, pipsRatio(20, 'EURUSD'), 'stop');
    assert.equal(intent.config.model_type, 'XGBClassifier');
    assert.ok(code.includes("df[f'rsi_{_p_rsi_period}'] = "), 'the registry snippet computes RSI, named from its period');
    assert.deepEqual(intent.config.indicators, { rsi_period: 7 }, 'the period the code reads from strategy_config()');
  });

  it('converts pips at the pair’s pip size and price (JPY pairs: 0.01)', () => {
    near(cfg('stop 20 pips, take profit 40 pips', 'USDJPY').stop_loss, pipsRatio(20, 'USDJPY'), 'USDJPY stop');
    near(cfg('stop 20 pips, take profit 40 pips', 'USDJPY').take_profit, pipsRatio(40, 'USDJPY'), 'USDJPY take');
    near(cfg('stop loss 25 pips', 'GBPUSD').stop_loss, pipsRatio(25, 'GBPUSD'), 'GBPUSD stop');
  });

  it('converts percent and dollars (at 1 standard lot)', () => {
    const pct = cfg('EMA cross with a 0.5% stop and 1% target');
    assert.equal(pct.stop_loss, 0.005);
    assert.equal(pct.take_profit, 0.01);
    near(cfg('stop $50, take profit $120').stop_loss, 50 / 100_000 / 1.085, 'EURUSD $50');
    near(cfg('stop $50', 'USDJPY').stop_loss, 50 / 100_000, 'USDJPY $50 (USD-based: P&L ÷ price)');
  });

  it('sets the take as a multiple of the stop from a reward/risk ratio', () => {
    const c = cfg('stop 20 pips, 1:3 risk reward');
    near(c.take_profit, 3 * c.stop_loss!, 'rr 3');
    const twice = cfg('stop 10 pips and target twice the stop');
    near(twice.take_profit, 2 * twice.stop_loss!, 'twice');
  });

  it('disables a stop or a take when asked', () => {
    assert.equal(cfg('no stop loss, take profit 40 pips, RSI 2 extremes').stop_loss, null);
    assert.equal(cfg('stop 30 pips and let profits run').take_profit, null);
  });

  it('caps stops at the schema’s 20 % and says so', () => {
    const { intent } = gen('stop loss 50%, take profit 90%');
    assert.equal(intent.config.stop_loss, 0.2);
    assert.ok(intent.remarks.some((r) => r.includes('20%')));
  });

  it('reads trailing stops as strategy_config trailing_stop, which the engine trails exactly (no chandelier exit)', () => {
    const cases: Array<[string, unknown]> = [
      ['Go long on an EMA 20 50 cross, trail by 2 ATR', { atr: 2, period: 14 }],
      ['EMA cross, trail by two ATRs', { atr: 2, period: 14 }],
      ['EMA cross, trailing SL of 1.5 x ATR', { atr: 1.5, period: 14 }],
      ['EMA cross, trail by 3 ATR(20)', { atr: 3, period: 20 }],
      ['2x ATR trailing stop on an RSI dip', { atr: 2, period: 14 }],
      ['an ATR trailing stop on an RSI dip', { atr: 2, period: 14 }],
      ['Buy when RSI 14 is below 30, trailing stop 1%', 0.01],
      ['RSI dip with a trailing stop-loss of 0.5 percent', 0.005],
      ['Sell the MACD cross, trail the stop 30 pips', { pips: 30 }],
      ['MACD cross with a 25-pip trailing stop', { pips: 25 }],
    ];
    for (const [prompt, want] of cases) {
      const { intent, code } = gen(prompt);
      assert.deepEqual(intent.config.trailing_stop, want, prompt);
      assert.ok(code.includes(`"trailing_stop": `), `${prompt}: the key in the code`);
      for (const col of ['hh_22', 'll_22', 'atr_2', 'atr_3', 'atr_1']) assert.ok(!intent.features.includes(col), `${prompt}: no ${col}`);
      assert.equal(intent.config.exit_long, undefined, `${prompt}: no exit rule`);
      assert.ok(!intent.approximations.some((a) => /trail/.test(a.asked)), `${prompt}: not an approximation`);
      const understood = understoodFrom(intent);
      assert.ok(
        understood.stops.some((x) => x.startsWith('trailing: ')),
        `${prompt}: ${understood.stops.join(' | ')}`,
      );
      assert.ok(
        understood.trailing_stop.value?.includes('behind the best price'),
        `${prompt}: ${JSON.stringify(understood.trailing_stop)}`,
      );
      // The trailing stop is the stop: no default fixed stop under it, and the words are not read as a fixed stop.
      assert.equal(intent.config.stop_loss, null, `${prompt}: no fixed stop`);
    }
    // A fixed stop the text gives stays (a floor under the trail); pips in JPY pairs stay pips.
    const both = cfg('EMA 9 21 cross, stop 20 pips and a 1.5 ATR trailing stop');
    near(both.stop_loss, pipsRatio(20, 'EURUSD'), 'fixed stop kept');
    assert.deepEqual(both.trailing_stop, { atr: 1.5, period: 14 });
    assert.deepEqual(cfg('trail the stop 30 pips', 'USDJPY').trailing_stop, { pips: 30 });
    // No distance: the stop's; beyond the schema: clamped, and said.
    const bare = gen('EMA cross with a trailing stop');
    assert.equal(bare.intent.config.trailing_stop, cfg('EMA cross').stop_loss, 'the default stop distance');
    assert.equal(cfg('EMA cross with a trailing stop, stop 0.5%').trailing_stop, 0.005, 'the stated stop distance');
    assert.ok(bare.intent.remarks.some((r) => r.includes('without a distance')));
    const wide = gen('EMA cross, trail by 40 ATR, trailing stop 50%');
    assert.deepEqual(wide.intent.config.trailing_stop, 0.2);
    assert.ok(wide.intent.remarks.some((r) => r.includes('20%')));
    assert.deepEqual(cfg('EMA cross, trail by 40 ATR').trailing_stop, { atr: 20, period: 14 });
    // Code that asks for none has no key (code written before trailing_stop is unchanged).
    const none = gen('EMA cross, stop 20 pips');
    assert.equal(none.intent.config.trailing_stop, undefined);
    assert.ok(!none.code.includes('trailing_stop'));
    assert.equal(understoodFrom(none.intent).trailing_stop.value, null);
  });

  it('adds no default that fights the words: no fixed take under a trailing stop or "let it run", no stop or take where the opposite signal is the only exit', () => {
    // A trailing-stop trend idea: the trail is the stop and the trade runs; no 1.5R take caps it.
    for (const prompt of [
      'Donchian 20 breakout, trail the stop by 2 ATR',
      'ride the trend with a 3 ATR trailing stop',
      'EMA cross with a trailing stop',
      'Buy when RSI 14 is below 30, trailing stop 1%',
    ]) {
      const { intent, code } = gen(prompt);
      assert.equal(intent.config.take_profit, null, `${prompt}: no fixed take`);
      assert.equal(intent.config.stop_loss, null, `${prompt}: no default fixed stop under the trail`);
      assert.ok(code.includes('"take_profit": None,'), `${prompt}: None in the code`);
      const understood = understoodFrom(intent);
      assert.equal(understood.take_profit.value, null);
      assert.equal(understood.take_profit.from, 'description', `${prompt}: the words that ruled the default out`);
      assert.match(understood.take_profit.phrase ?? '', /trail/);
      assert.deepEqual(understood.targets, []);
      assert.ok(!understood.defaults.some((d) => /^(?:take_profit|stop_loss):/.test(d)), `${prompt}: ${understood.defaults.join(' | ')}`);
      assert.ok(
        intent.remarks.some((r) => r.startsWith('no fixed take profit: ') && r.includes('1.5 x the stop')),
        `${prompt}: said in the remarks`,
      );
    }
    // A take the trader gives still holds beside the trail, whatever its unit ("3R" is 3 x the stop, not 3 pips).
    near(cfg('Donchian 20 breakout, trail by 2 ATR, target 50 pips').take_profit, pipsRatio(50, 'EURUSD'), 'stated take');
    near(
      cfg('Donchian 20 breakout with a trailing stop, take profit 3R').take_profit,
      3 * cfg('EMA cross').stop_loss!,
      '3R of the default stop distance',
    );
    near(cfg('EMA cross, take profit 2r').take_profit, 2 * cfg('EMA cross').stop_loss!, '2r at the end of the text');
    assert.deepEqual(
      understoodFrom(gen('EMA cross, trail by 2 ATR, take profit 40 pips').intent).take_profit.phrase,
      'take profit 40 pips',
    );
    // Words that let the trade run rule out the default take only; the default stop stays.
    for (const prompt of ['RSI 14 below 30 buy, let it run', 'EMA 20 50 cross, no fixed take profit', 'EMA 20 50 cross, ride the trend']) {
      const c = cfg(prompt);
      assert.equal(c.take_profit, null, prompt);
      near(c.stop_loss, cfg('EMA cross').stop_loss!, `${prompt}: the default stop`);
    }
    assert.notEqual(
      cfg('EMA 20 50 cross, ride the trend, take profit 60 pips').take_profit,
      null,
      'a stated take wins over "ride the trend"',
    );
    // The opposite signal as the only exit: neither a default stop nor a default take; a stated stop holds.
    for (const prompt of [
      'MACD cross, hold until the opposite signal',
      'EMA 20 50 cross, exit only on the opposite signal',
      'EMA 9 21 cross; only exit on an opposite signal',
    ]) {
      const { intent } = gen(prompt);
      assert.equal(intent.config.stop_loss, null, `${prompt}: no default stop`);
      assert.equal(intent.config.take_profit, null, `${prompt}: no default take`);
      const understood = understoodFrom(intent);
      assert.match(understood.stop_loss.phrase ?? '', /opposite signal/);
      assert.ok(
        intent.remarks.some((r) => r.startsWith('no fixed stop: ')),
        prompt,
      );
    }
    near(cfg('MACD cross, stop 30 pips, hold until the opposite signal').stop_loss, pipsRatio(30, 'EURUSD'), 'a stated stop holds');
    assert.equal(cfg('EMA cross, no fixed stop').stop_loss, null, '"no fixed stop" is no stop');
    // A plain default strategy keeps its defaults, and says them.
    const plain = understoodFrom(gen('EMA cross').intent);
    assert.ok(
      plain.defaults.some((d) => d.startsWith('stop_loss: ')),
      plain.defaults.join(' | '),
    );
    assert.ok(
      plain.defaults.some((d) => d.startsWith('take_profit: 1.5 x the stop')),
      plain.defaults.join(' | '),
    );
    assert.ok(plain.defaults.some((d) => d.startsWith('direction: both')));
    assert.ok(!plain.defaults.some((d) => d.startsWith('entries: ')), 'an EMA cross is the trader’s entry');
    assert.ok(understoodFrom(gen('').intent).defaults.some((d) => d.startsWith('entries: the EMA 12/26 crossover')));
    const stated = understoodFrom(gen('RSI(7) below 25, long only, stop 20 pips, take profit 40 pips, xgboost').intent);
    assert.ok(!stated.defaults.some((d) => /^(?:direction|stop_loss|take_profit|model):/.test(d)), stated.defaults.join(' | '));
  });

  it('reads the 8 built-in indicators with their parameters', () => {
    has(features('fast EMA 12 crossing above slow EMA 26'), 'ema_12', 'ema_26', 'ema_12_xup_ema_26');
    has(features('price outside the 2-sigma Bollinger band'), 'bb_upper_20_2', 'bb_lower_20_2', 'bb_out_20_2', 'bb_pctb_20_2');
    has(features('stochastic %K over %D'), 'stoch_k_14_3', 'stoch_d_14_3', 'stoch_k_14_3_gt_stoch_d_14_3');
    has(features('MACD histogram turning positive'), 'macd_hist_12_26_9', 'macd_hist_12_26_9_xup_0');
    has(features('ATR(14)'), 'atr_14', 'natr_14');
    has(features('WMA 10 crosses WMA 30'), 'wma_10', 'wma_30', 'wma_10_x_wma_30');
    has(features('Buy when price crosses above the 50 SMA'), 'sma_50', 'close_xup_sma_50');
    has(features('rsi 7 oversold'), 'rsi_7', 'rsi_7_lt_30');
    has(features('MACD(8,21,5) crosses above signal line'), 'macd_8_21_5', 'macd_8_21_5_xup_macd_signal_8_21_5');
    has(features('Bollinger bands (20, 2.5): buy at the lower band, sell at the upper band'), 'bb_below_20_2p5', 'bb_above_20_2p5');
    has(features('stoch k 21 d 5 overbought above 85'), 'stoch_k_21_5', 'stoch_k_21_5_gt_85');
  });

  it('reads pairs, levels and named crosses', () => {
    has(features('EMA 9/21 crossover'), 'ema_9', 'ema_21', 'ema_9_x_ema_21');
    has(features('golden cross'), 'sma_50', 'sma_200', 'sma_50_xup_sma_200');
    has(features('RSI 14 30/70 reversal'), 'rsi_14_lt_30', 'rsi_14_gt_70');
    has(features('EMA 20, 50 and 200: long when price is above all three'), 'close_gt_ema_20', 'close_gt_ema_50', 'close_gt_ema_200');
    has(features('breakout of the 20 bar high'), 'breakout_20', 'range_pos_20');
  });

  it('reads direction', () => {
    assert.equal(cfg('shorts only when RSI above 70').direction, 'short');
    assert.equal(cfg('trade both ways on the EMA 20/50 cross').direction, 'both');
    assert.equal(cfg('no shorts, buy MACD crosses').direction, 'long');
    // "buy only when" is about timing, not an outright "long only" — but it names buys and no sells.
    assert.equal(cfg('buy only when RSI is below 30').direction, 'long');
  });

  it('reads roles: exits close their side, filters gate entries, a price-above-MA filter stays the trend filter', () => {
    const exit = gen('go long when RSI 14 crosses above 30, exit on a close below the 20 EMA');
    assert.deepEqual(
      exit.intent.conditions.map((c) => [c.role, c.side]),
      [
        ['entry', 'long'],
        ['exit', null],
      ],
    );
    assert.equal(exit.intent.config.exit_long, 'exit_long_rule');
    assert.equal(exit.intent.config.exit_short, undefined, 'long only: nothing short to close');
    assert.ok(
      exit.code.includes("df['exit_long_rule'] = np.where((df[f'close_xdn_ema_{_p_ema_period}'] != 0), 1.0, 0.0)"),
      'a close below the line is the close crossing below it: the state also holds where the entry fires',
    );
    const gate = gen('buy when RSI 14 is below 30 unless ADX is above 40');
    assert.ok(
      gate.code.includes("df['entry_gate'] = np.where((df['adx_14_gt_40'] == 0), 1.0, 0.0)"),
      'unless: entries where it does not hold',
    );
    assert.equal(gate.intent.config.entry_filter, 'entry_gate');
    const trend = gen('buy when RSI < 30, sell when RSI > 70, only when price is above the 200 SMA');
    assert.equal(trend.intent.config.trend_filter, 'sma_200');
    assert.equal(trend.intent.config.entry_filter, undefined, 'no gate that would block every short');
    const both = gen('buy when RSI 14 crosses above 30, sell when it crosses below 70, close when RSI crosses 50');
    assert.deepEqual(
      [both.intent.config.exit_long, both.intent.config.exit_short],
      ['exit_long_rule', 'exit_short_rule'],
      'an exit with no side closes both sides traded',
    );
  });

  it('applies day filters as strategy_config skip_days (UTC), and says so in the code', () => {
    const out = gen("RSI mean reversion on EURUSD, don't trade on Fridays");
    assert.deepEqual(out.intent.config.skip_days, ['fri']);
    assert.ok(out.code.includes('"skip_days": ["fri"],'), 'strategy_config carries it');
    assert.ok(/# {3}skip days +fri \(UTC\)/.test(out.code), 'the header says it');
    assert.deepEqual(cfg('no mondays or fridays, EMA cross').skip_days, ['mon', 'fri']);
    // Every other day, the weekend too: forex opens on Sunday evening, BTCUSD trades all week.
    assert.deepEqual(cfg('trade only on tuesdays, RSI 30/70').skip_days, ['mon', 'wed', 'thu', 'fri', 'sat', 'sun']);
    assert.deepEqual(cfg('only tuesdays to thursdays, RSI 30/70').skip_days, ['mon', 'fri', 'sat', 'sun']);
    assert.deepEqual(
      cfg('RSI 30/70, 8-17 utc, mon-thu').skip_days,
      ['fri', 'sat', 'sun'],
      'a range of days said on its own is the days traded',
    );
    assert.deepEqual(cfg('RSI 30/70, no weekend holding').skip_days, undefined, 'holding over the weekend is not a day filter');
    assert.deepEqual(cfg('weekdays only, MACD cross').skip_days, ['sat', 'sun']);
    assert.equal(cfg('buy the Monday open gap').skip_days, undefined, 'a day named as a time is not a filter');
  });

  it('takes the direction from the entries when nothing says it outright: buys only → long, sells only → short, both → both', () => {
    assert.equal(
      cfg('Fade the London open: if price is more than 2 ATR above the 50 EMA at 08:00 UTC, sell, stop 1.5 ATR').direction,
      'short',
    );
    assert.equal(cfg('Trend following: go long when the 20 EMA is above the 100 EMA, exit on a close below the 20 EMA').direction, 'long');
    assert.equal(cfg('buy when RSI below 30, sell when RSI above 70').direction, 'both');
    assert.equal(
      cfg('short-term EMA 9/21 cross, as long as RSI is under 70').direction,
      'both',
      'no entry verb: "short-term" and "as long as" are not sides',
    );
    assert.equal(
      cfg({ description: 'buy RSI dips', pos_rules: { direction: 'both' } }).direction,
      'both',
      'a structured direction still wins',
    );
  });

  it('reads sessions and hours as UTC session_filter', () => {
    assert.deepEqual(cfg('New York session only').session_filter, [12, 21]);
    assert.deepEqual(cfg('Asian session range').session_filter, [0, 9]);
    assert.deepEqual(cfg('only between 13:00 and 17:00 UTC').session_filter, [13, 17]);
    assert.deepEqual(cfg('trade from 8am to 4pm EST').session_filter, [13, 21]);
    assert.deepEqual(cfg('avoid the Asian session').session_filter, [9, 0]);
    assert.deepEqual(cfg('London and New York sessions').session_filter, [7, 21]);
    assert.deepEqual(cfg('scalp the London-NY overlap').session_filter, [12, 16]);
    assert.deepEqual(cfg('Sydney session').session_filter, [21, 6]);
    assert.equal(cfg('trade all hours').session_filter, null);
  });

  it('reads cooldowns in bars or time (rounded up to whole bars)', () => {
    assert.equal(cfg('wait 3 bars after a trade').cooldown, 3);
    assert.equal(cfg('cooldown of 45 minutes', 'EURUSD', '15min').cooldown, 3);
    assert.equal(cfg('cooldown of 45 minutes', 'EURUSD', '5min').cooldown, 9);
    assert.equal(cfg('cooldown of 45 minutes', 'EURUSD', '1h').cooldown, 1);
  });

  it('reads max positions and on_opposite', () => {
    assert.equal(cfg('max 3 positions').max_positions, 3);
    assert.equal(cfg('one trade at a time').max_positions, 1);
    assert.equal(cfg('reverse on opposite signal').on_opposite, 'reverse');
    assert.equal(cfg('just close on an opposite signal').on_opposite, 'close_only');
    assert.equal(cfg('ignore opposite signals and hold until stop or target').on_opposite, 'ignore');
  });

  it('turns a trend filter into a feature column and trend_filter', () => {
    const c = gen('only trade with the trend above the 200 SMA');
    assert.equal(c.intent.config.trend_filter, 'sma_200');
    has(c.intent.features, 'sma_200');
    assert.equal(cfg('trend filter EMA 100, stochastic oversold').trend_filter, 'ema_100');
    assert.equal(cfg('trade with the trend, MACD').trend_filter, 'sma_200');
  });

  it('turns a volatility filter into min_atr (NATR in percent)', () => {
    near(cfg('only trade when ATR(14) is above 10 pips').min_atr, pipsRatio(10, 'EURUSD') * 100, 'ATR 10 pips');
    assert.equal(cfg('only when NATR is above 0.08').min_atr, 0.08);
    const v = cfg('volatility filter').min_atr;
    assert.ok(v !== null && v > 0 && v < 1, `default min_atr ${v}`);
  });

  it('reads every model class and bounded parameters', () => {
    assert.equal(cfg('random forest').model_type, 'RandomForestClassifier');
    assert.equal(cfg('gradient boosting').model_type, 'GradientBoostingClassifier');
    assert.equal(cfg('extra trees').model_type, 'ExtraTreesClassifier');
    assert.equal(cfg('logistic regression, C=0.5').model_type, 'LogisticRegression');
    assert.equal(cfg('adaboost with 150 estimators').model_type, 'AdaBoostClassifier');
    assert.equal(cfg('extreme gradient boosting').model_type, 'XGBClassifier');
    assert.deepEqual(cfg('random forest of 300 trees and max depth 8').model_params, {
      n_estimators: 300,
      max_depth: 8,
      min_samples_leaf: 20,
    });
    assert.equal((cfg('logistic regression, C=0.5').model_params as { C: number }).C, 0.5);
    assert.equal((cfg('xgboost with 5000 trees').model_params as { n_estimators: number }).n_estimators, 500);
    const lgbm = gen('lightgbm on rsi');
    assert.equal(lgbm.intent.config.model_type, 'XGBClassifier');
    assert.ok(lgbm.intent.remarks.some((r) => r.includes('lightgbm')));
  });

  it('converts the horizon to bars of the timeframe', () => {
    assert.equal(cfg('predict the next hour', 'EURUSD', '1min').target_horizon, 60);
    assert.equal(cfg('predict the next hour', 'EURUSD', '5min').target_horizon, 12);
    assert.equal(cfg('predict the next hour', 'EURUSD', '15min').target_horizon, 4);
    assert.equal(cfg('predict the next hour', 'EURUSD', '1h').target_horizon, 1);
    assert.equal(cfg('forecast 8 bars ahead').target_horizon, 8);
    const long = gen('predict the next 4 hours', 'EURUSD', '1min');
    assert.equal(long.intent.config.target_horizon, 200);
    assert.ok(long.intent.remarks.some((r) => r.includes('200')));
  });

  it('reads the confidence threshold', () => {
    assert.equal(cfg('only when 60% confident').signal_threshold, 0.6);
    assert.equal(cfg('probability threshold 0.7').signal_threshold, 0.7);
    assert.equal(cfg('confidence 40%').signal_threshold, 0.5);
  });

  it("a threshold nobody stated: 0.5 where the model confirms the trader's rule (meta-labelling), 0.55 where it picks the side, and says which", () => {
    const meta = gen('Go long when RSI 14 crosses above 30').intent;
    assert.equal(labelMode(meta.config), 'meta');
    assert.equal(meta.config.signal_threshold, 0.5);
    assert.ok(
      understoodFrom(meta).defaults.includes(
        "signal_threshold: 0.5 (the rule's trade is taken unless the model finds it likelier to lose than win: P(win) < 0.5)",
      ),
      understoodFrom(meta).defaults.join(' | '),
    );
    const direction = gen('let the model decide').intent;
    assert.equal(labelMode(direction.config), 'direction');
    assert.equal(direction.config.signal_threshold, 0.55);
    assert.ok(understoodFrom(direction).defaults.includes('signal_threshold: 0.55'));
    // A stated threshold holds in either mode, and is no default.
    const stated = gen('Go long when RSI 14 crosses above 30, only when 60% confident').intent;
    assert.equal(stated.config.signal_threshold, 0.6);
    assert.ok(!understoodFrom(stated).defaults.some((d) => d.startsWith('signal_threshold')));
  });

  it('structured indicators win over prose, and the code says so', () => {
    const { intent, code } = gen({ description: 'RSI(7) below 20', indicators: { rsi_period: 14 } });
    has(intent.features, 'rsi_14', 'rsi_14_lt_20');
    assert.ok(!intent.features.includes('rsi_7'));
    assert.ok(code.includes('overriding RSI(7)'));
    const off = gen({ description: 'RSI below 30 and EMA 12/26 cross', indicators: { rsi_enabled: false } });
    assert.ok(!off.intent.features.some((f) => f.startsWith('rsi')));
    has(off.intent.features, 'ema_12_x_ema_26');
    has(features({ indicators: { macd_enabled: true, macd_fast: 8, macd_slow: 17, macd_signal: 9 } }), 'macd_8_17_9');
  });

  it('pos_rules win over prose, and every overridden statement is a remark in the code', () => {
    const { intent, code } = gen({
      description: 'long only, wait 2 bars, reverse on opposite signal',
      pos_rules: { direction: 'short', cooldown: 7, max_pos: 2, on_opposite: 'close_only' },
    });
    assert.equal(intent.config.direction, 'short');
    assert.equal(intent.config.cooldown, 7);
    assert.equal(intent.config.max_positions, 2);
    assert.equal(intent.config.on_opposite, 'close_only');
    assert.ok(code.includes('structured fields win'));
  });

  it('lets the field about a setting win over the description; within a text the last statement wins', () => {
    near(cfg({ description: 'RSI 14, stop 50 pips', risk: 'stop 20 pips' }).stop_loss, pipsRatio(20, 'EURUSD'), 'risk field');
    assert.equal(cfg({ description: 'EMA cross with xgboost', model: 'logistic regression' }).model_type, 'LogisticRegression');
    assert.equal(cfg('long only, actually shorts only').direction, 'short');
    assert.equal(cfg('random forest, no, xgboost, actually extra trees').model_type, 'ExtraTreesClassifier');
  });

  it('repairs misspellings', () => {
    const c = gen('Bolinger bands 20 2 with stocastic osillator, random forrest, Lodnon sesion');
    has(c.intent.features, 'bb_upper_20_2', 'stoch_k_14_3');
    assert.equal(c.intent.config.model_type, 'RandomForestClassifier');
    assert.deepEqual(c.intent.config.session_filter, [7, 16]);
    const t = gen('buy wen rsi is bellow 30 and sell wen its abov 70 pls, stoploss 20pips');
    has(t.intent.features, 'rsi_14_lt_30', 'rsi_14_gt_70');
    near(t.intent.config.stop_loss, pipsRatio(20, 'EURUSD'), 'stoploss 20pips');
    assert.equal(cfg('mcad histogramm turning positve, long onyl').direction, 'long');
  });

  it('an empty request is a sensible default strategy', () => {
    const { intent } = gen({});
    has(intent.features, 'ema_12', 'ema_26', 'rsi_14', 'atr_14', 'ema_12_x_ema_26');
    assert.equal(intent.config.model_type, 'RandomForestClassifier');
    assert.ok(intent.config.stop_loss! > 0 && intent.config.take_profit! > intent.config.stop_loss!);
    assert.ok(intent.remarks.some((r) => r.includes('empty request')));
  });

  it('names what is not built in, reads days as bars, and keeps warm-ups within the runtime’s reach', () => {
    const adx = gen('ADX above 25 and volume spike');
    has(adx.intent.features, 'adx_14', 'adx_14_gt_25');
    assert.ok(adx.intent.remarks.some((r) => r.includes('left out: volume')));
    const days = gen('price above the 200-day moving average');
    has(days.intent.features, 'sma_200', 'close_gt_sma_200');
    assert.ok(days.intent.remarks.some((r) => r.includes('200-day')));
    const long = gen('EMA 400 trend filter');
    assert.ok(long.intent.features.includes('ema_217'), long.intent.features.join(','));
    assert.ok(long.intent.remarks.some((r) => r.includes('warm-up')));
  });
});
