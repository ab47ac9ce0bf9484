/**
 * The trader's entry rules (issue 35, meta-labelling's primary signal): the entry conditions the
 * words state become one rule column per side, combined as the words say, and strategy_config()
 * names them as entry_long / entry_short; a side the words do not state gets no rule; where the
 * words state no entry condition, no rule is set (the model decides, as before).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateOffline, understoodFrom } from '../../../src/generation/offline/index.ts';
import { PROMPTS } from './prompts.ts';

const gen = (description: string) => {
  const { code: raw, intent } = generateOffline({ description, symbol: 'EURUSD', timeframe: '15min' } as never);
  // A tunable indicator's columns are f-strings named from the values read: read with the config's values.
  const code = raw.replace(
    /f'([^']*)'/g,
    (_, name: string) => `'${name.replace(/\{_p_(\w+)\}/g, (_m, key: string) => String(intent.config.indicators?.[key]))}'`,
  );
  return { code, intent, config: intent.config, understood: understoodFrom(intent) };
};
const ruleLine = (code: string, column: string) =>
  code
    .split('\n')
    .find((l) => l.trim().startsWith(`df['${column}'] = `))
    ?.trim();

describe('offline generator: entry rules as gates', () => {
  it('"and" → all: both conditions must hold for the long rule, and shorts get no rule', () => {
    const g = gen('Buy when RSI 14 is below 30 and price is above the VWAP');
    assert.equal(g.config.entry_long, 'entry_long_rule');
    assert.equal(g.config.entry_short, undefined);
    assert.equal(
      ruleLine(g.code, 'entry_long_rule'),
      "df['entry_long_rule'] = np.where((df['rsi_14_lt_30'] > 0) & (df['close_gt_vwap_session'] > 0), 1.0, 0.0)",
    );
    assert.equal(g.understood.entry_rules?.long, 'RSI(14) below 30 and price above session VWAP (time-weighted)');
    assert.equal(g.understood.entry_rules?.short, null);
  });

  it('"or" → any: either condition opens the long', () => {
    const g = gen('Buy when RSI 14 is below 30 or stochastic is below 20');
    assert.equal(
      ruleLine(g.code, 'entry_long_rule'),
      "df['entry_long_rule'] = np.where((df['rsi_14_lt_30'] > 0) | (df['stoch_k_14_3_lt_20'] > 0), 1.0, 0.0)",
    );
    assert.match(g.understood.entry_rules?.long ?? '', / or /);
  });

  it('a clause after a comma with no side of its own belongs to the side before it', () => {
    const g = gen('Buy when RSI 14 is below 30, MACD above signal');
    assert.equal(g.understood.entry_rules?.long, 'RSI(14) below 30 and MACD(12,26,9) line above MACD(12,26,9) signal');
  });

  it('each side its own rule: buy below -80, sell above -20 (Williams %R), both set', () => {
    const g = gen('Buy when Williams %R is below -80, sell when it is above -20');
    assert.equal(g.config.direction, 'both');
    assert.equal(ruleLine(g.code, 'entry_long_rule'), "df['entry_long_rule'] = np.where((df['willr_14_lt_m80'] > 0), 1.0, 0.0)");
    assert.equal(ruleLine(g.code, 'entry_short_rule'), "df['entry_short_rule'] = np.where((df['willr_14_gt_m20'] > 0), 1.0, 0.0)");
    assert.ok(!g.intent.features.some((f) => f.startsWith('rsi_')), 'Williams %R is not replaced by RSI');
  });

  it('a directional condition with no side, traded both ways: shorts take its mirror, and a remark says so', () => {
    const g = gen('fast EMA 12 crossing above slow EMA 26');
    assert.equal(ruleLine(g.code, 'entry_long_rule'), "df['entry_long_rule'] = np.where((df['ema_12_xup_ema_26'] > 0), 1.0, 0.0)");
    assert.equal(ruleLine(g.code, 'entry_short_rule'), "df['entry_short_rule'] = np.where((df['ema_12_xdn_ema_26'] > 0), 1.0, 0.0)");
    assert.ok(g.understood.remarks.some((r) => r.includes('mirror')));
  });

  it('a condition stated with its own mirror and no side splits: the oversold level is the long rule, the overbought the short, never ANDed', () => {
    for (const words of ['RSI 14 30/70 reversal', 'stochastic 20 80 levels, fade them']) {
      const g = gen(words);
      const long = ruleLine(g.code, 'entry_long_rule') ?? '';
      const short = ruleLine(g.code, 'entry_short_rule') ?? '';
      assert.match(long, /_lt_(30|20)'\] > 0\), 1\.0/, words);
      assert.doesNotMatch(long, /_gt_/, words);
      assert.match(short, /_gt_(70|80)'\] > 0\), 1\.0/, words);
      assert.doesNotMatch(short, /_lt_/, words);
    }
  });

  it('every generated comparison is False where an operand is NaN: no ~gt / ~lt (True on NaN, e.g. a pivot on the first day), ge / le instead', () => {
    const touch = gen('buy when price touches the daily pivot').code;
    assert.match(touch, /np\.where\(ge\(high, [^)]+\) & le\(low, [^)]+\), 1\.0, 0\.0\)/);
    assert.match(touch, /def ge\(a, b\):\n *"""[^\n]*\n *return \(a - b\) >= /);
    for (const { id, request } of PROMPTS) {
      const { code } = generateOffline({ ...request, symbol: 'EURUSD', timeframe: '15min' } as never);
      assert.doesNotMatch(code, /~\s*\(?\s*(?:gt|lt|df\[)/, id);
    }
  });

  it('signed columns gate by their sign: a breakout up opens longs, down opens shorts', () => {
    const g = gen('Donchian 20 breakout, long and short');
    assert.equal(ruleLine(g.code, 'entry_long_rule'), "df['entry_long_rule'] = np.where((df['breakout_20'] > 0), 1.0, 0.0)");
    assert.equal(ruleLine(g.code, 'entry_short_rule'), "df['entry_short_rule'] = np.where((df['breakout_20'] < 0), 1.0, 0.0)");
  });

  it('a filter stays the entry_filter and the trend filter stays trend_filter: neither joins the rule', () => {
    const g = gen('Buy when RSI 14 is below 30 only when ADX is above 25');
    assert.equal(g.understood.entry_rules?.long, 'RSI(14) below 30');
    assert.equal(g.config.entry_filter, 'entry_gate');
    const t = gen('RSI 14 below 30, only trade with the trend');
    assert.equal(t.config.trend_filter, 'sma_200');
    assert.equal(t.understood.entry_rules?.long, 'RSI(14) below 30');
    // No side named, both ways: the short rule is the mirror (RSI above 70), the trend filter judges both.
    assert.equal(t.understood.entry_rules?.short, 'RSI(14) above 70');
  });

  it('no stated entry condition, or "let the model decide": no rule (the model decides, as before)', () => {
    for (const text of [
      '',
      'Mean reversion with Bollinger bands 20 2.5',
      'use RSI 14 and MACD, let the model decide',
      'RSI 14 below 30 and MACD above signal, let the model decide the entries',
    ]) {
      const g = gen(text);
      assert.equal(g.config.entry_long, undefined, text);
      assert.equal(g.config.entry_short, undefined, text);
      assert.ok(!g.intent.features.includes('entry_long_rule'), text);
    }
    assert.ok(
      gen('RSI 14 below 30 and MACD above signal, let the model decide the entries').understood.remarks.some((r) =>
        r.includes('leaves the entries to the model'),
      ),
    );
  });

  it('crossings keep their direction: "CCI crossing back above -100" is an upward cross of -100', () => {
    const g = gen('Go long when CCI crosses back above -100');
    assert.equal(ruleLine(g.code, 'entry_long_rule'), "df['entry_long_rule'] = np.where((df['cci_20_xup_m100'] > 0), 1.0, 0.0)");
  });

  it('a rule never fires both sides on one bar (the engine opens nothing there): bands fade unless the words break out, side-less filters become entry_filter', () => {
    const fade = gen('Bollinger bands 20 2 fade');
    assert.equal(ruleLine(fade.code, 'entry_long_rule'), "df['entry_long_rule'] = np.where((df['bb_out_20_2'] < 0), 1.0, 0.0)");
    assert.equal(ruleLine(fade.code, 'entry_short_rule'), "df['entry_short_rule'] = np.where((df['bb_out_20_2'] > 0), 1.0, 0.0)");
    const adx = gen('ADX above 25');
    assert.equal(adx.config.entry_long, undefined);
    assert.equal(adx.config.entry_filter, 'entry_gate');
    assert.ok(adx.understood.remarks.some((r) => r.startsWith('the entry conditions name no side')));
  });
});
