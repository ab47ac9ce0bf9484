/**
 * Property over the generator's prompt corpora (test/generation/offline/prompts.ts and
 * test/generation/corpus/intent-corpus.ts): every generated strategy that states entry rules,
 * backtested on real bars in meta mode, opens each position on a bar whose signal bar (the bar
 * before the fill bar) satisfies the rule of the position's side — a side without a rule never
 * opens, and no feature is still unknown (NaN) there — and opens none on a skipped day or outside
 * its session. Judged on the trades, not the code.
 *
 * Fixed sample: the corpora's strategies whose strategy_config sets entry_long or entry_short,
 * distinct code per symbol; each on 6,000 real 15-minute bars of its symbol from 2017-01-02
 * (HistData, ~3 months; seeded synthetic bars for BTCUSD), its own features from the sandbox. The
 * model is a seeded random P(win) (no fit: the rules must hold whatever the model says), confirmed
 * as training, /predict and live do: the chain's entry rule columns (entryRules) through
 * toSignals, the chain's mask (strategyMask) and engine options into the engine. The rule column
 * the trades are judged by is read from the features by name (featureColumn), apart from the
 * chain's entryRules. Teeth: the same runs in direction mode (toSignals without rules, the mask
 * without the rule columns) open on bars where the rule does not hold.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { StrategyConfig } from '../../schemas/strategy.ts';
import { runBacktest, weekdayOf, type BarColumns, type ClosedTrade } from '../../src/backtest/index.ts';
import { createLogger } from '../../src/log.ts';
import { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import { engineOptions, entryRules, featureColumn, labelMode, strategyMask, toSignals, type FeatureRows } from '../../src/scoring/index.ts';
import { allowedAt, forEachCase, generatedCases, runnable, type GeneratedCase } from '../helpers/generated-strategies.ts';

const BARS = 6_000;

/** The rule columns a trade is judged by: the config's entry_long / entry_short read from the features by name. */
function ruleColumns(config: StrategyConfig, features: FeatureRows, n: number): Record<1 | -1, Float64Array | null> {
  const column = (name: string | null | undefined): Float64Array | null => {
    if (!name) return null;
    const values = featureColumn(features, name, n);
    assert.ok(values, `the rule names "${name}", which is not among the features (${features.names.join(', ')})`);
    return values;
  };
  return { 1: column(config.entry_long), [-1]: column(config.entry_short) };
}

/** Why a trade breaks its strategy's rules or time filters, or null when it keeps them. */
function breach(
  c: GeneratedCase,
  bars: BarColumns,
  features: FeatureRows,
  index: Map<number, number>,
  rules: Record<1 | -1, Float64Array | null>,
  t: ClosedTrade,
): string | null {
  const side = t.side === 1 ? 'long' : 'short';
  const fill = index.get(t.entryTs);
  const at = `${c.id} (${c.symbol}): ${side} filled at ${new Date(t.entryTs).toISOString()}`;
  if (fill === undefined || fill < 1) return `${at}: no signal bar before the fill bar in the series`;
  const signal = fill - 1;
  const rule = rules[t.side];
  const name = t.side === 1 ? c.config.entry_long : c.config.entry_short;
  if (rule === null)
    return `${at}: the ${side} side has no rule (entry_long ${c.config.entry_long ?? null}, entry_short ${c.config.entry_short ?? null})`;
  if (!(rule[signal]! > 0))
    return `${at}: signal bar ${signal} (${new Date(bars.ts[signal]!).toISOString()}) has ${name} = ${rule[signal]}`;
  // Judged on known values: a rule over an indicator still warming up (NaN) says nothing.
  const row = signal - features.offset;
  const k = features.names.length;
  const unknown =
    row < 0 || row >= features.rows ? features.names : features.names.filter((_, j) => Number.isNaN(features.matrix[row * k + j]!));
  if (unknown.length > 0) return `${at}: signal bar ${signal} has no value for ${unknown.join(', ')}`;
  if (!allowedAt(c.config, t.entryTs))
    return `${at} (${weekdayOf(t.entryTs)}): session ${JSON.stringify(c.config.session_filter)}, skip ${JSON.stringify(c.config.skip_days ?? [])}`;
  return null;
}

describe('generated strategies with entry rules on real bars: every entry follows its rule (meta mode)', () => {
  let runtime: StrategyRuntime;
  const all = generatedCases((config) => !!(config.entry_long || config.entry_short));
  before(async () => {
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 2 });
  });
  after(() => runtime?.stop());

  it('the sample: long rules and short rules, from both corpora, each meta-labelled', (t) => {
    const longs = all.filter((c) => c.config.entry_long).length;
    const shorts = all.filter((c) => c.config.entry_short).length;
    const prompts = all.filter((c) => c.id.startsWith('prompts/')).length;
    t.diagnostic(
      `${all.length} strategies with entry rules: ${longs} with a long rule, ${shorts} with a short rule; ${prompts} from prompts, ${all.length - prompts} from the intent corpus`,
    );
    assert.ok(longs >= 200, `${longs} strategies with a long rule`);
    assert.ok(shorts >= 120, `${shorts} strategies with a short rule`);
    assert.ok(prompts >= 50 && all.length - prompts >= 150, `${prompts} from prompts, ${all.length - prompts} from the intent corpus`);
    assert.deepEqual(
      all.filter((c) => labelMode(c.config) !== 'meta').map((c) => c.id),
      [],
    );
  });

  it("every entry opens on its side's rule and at an allowed time; without the rules the same model would not", async (t) => {
    const violations: string[] = [];
    const entries = { long: 0, short: 0 };
    const idle: string[] = [];
    let teeth = 0;
    let oneGate = 0;
    await forEachCase(all, 2, async (c, k) => {
      const { bars, features, spec, p } = await runnable(runtime, c, BARS, k + 1);
      const n = bars.ts.length;
      const index = new Map(Array.from(bars.ts, (ts, i) => [ts, i]));
      const judged = ruleColumns(c.config, features, n);
      const options = engineOptions(spec, null);
      const range = { from: 0, to: n };
      const broken = (trades: ClosedTrade[]) => trades.map((tr) => breach(c, bars, features, index, judged, tr)).filter((b) => b !== null);

      // As training, /predict and live run it: the rules propose, the P(win) confirms, the mask gates.
      const rules = entryRules(spec, features, n);
      assert.ok(rules, `${c.id}: entryRules gives no rules for a meta-labelled config`);
      const signals = toSignals(p, spec.settings.confidence_threshold, rules);
      const mask = strategyMask(bars, spec, features);
      const trades = runBacktest(options, bars, signals, range, mask).trades;
      for (const tr of trades) entries[tr.side === 1 ? 'long' : 'short']++;
      if (trades.length === 0) idle.push(c.id);
      violations.push(...broken(trades));

      // Each gate holds the rule alone: the confirm step without the mask's rule columns, the mask under direction signals.
      const ruleless = { ...spec, config: { ...spec.config, entry_long: null, entry_short: null } };
      const maskWithoutRules = strategyMask(bars, ruleless, features);
      const direction = toSignals(p, spec.settings.confidence_threshold);
      oneGate += broken(runBacktest(options, bars, signals, range, maskWithoutRules).trades).length;
      oneGate += broken(runBacktest(options, bars, direction, range, mask).trades).length;

      // Teeth: the model deciding alone (direction mode, no rule columns in the mask) opens where the rule does not hold.
      const offRule = (tr: ClosedTrade) => !(judged[tr.side]?.[index.get(tr.entryTs)! - 1]! > 0);
      if (runBacktest(options, bars, direction, range, maskWithoutRules).trades.some(offRule)) teeth++;
    });
    const total = entries.long + entries.short;
    const trading = all.length - idle.length;
    t.diagnostic(
      `${all.length} strategies, ${trading} with entries (none: ${idle.sort().join(', ')}); ${total} entries (${entries.long} long, ${entries.short} short); ${violations.length} violations; ${oneGate} with one gate only; ${teeth} would break their rule in direction mode`,
    );
    assert.deepEqual(violations, []);
    assert.equal(oneGate, 0, 'the confirm step and the mask each keep the rule on their own');
    assert.ok(trading >= all.length * 0.9, `only ${trading} of ${all.length} strategies entered at all: too few to judge`);
    assert.ok(entries.long >= 5_000 && entries.short >= 3_000, `${entries.long} long and ${entries.short} short entries: too few to judge`);
    assert.ok(teeth >= all.length * 0.9, `only ${teeth} of ${all.length} strategies would break their rule in direction mode`);
  });
});
