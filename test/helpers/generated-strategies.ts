/**
 * The generator's prompt corpora (test/generation/offline/prompts.ts and
 * test/generation/corpus/intent-corpus.ts) as strategies run on real bars, for the properties the
 * backtest must hold whatever the model says (test/backtest/generated-entry-*.test.ts): each
 * strategy's own features from the sandbox, its strategy_config's spec through the scoring
 * chain's functions, and a seeded random probability in place of a fitted model.
 */
import { createHash } from 'node:crypto';
import { SYMBOLS, type Symbol } from '../../schemas/common.ts';
import type { StrategyConfig } from '../../schemas/strategy.ts';
import { TrainRequest } from '../../schemas/training.ts';
import { toBarColumns, weekdayOf, type BarColumns } from '../../src/backtest/index.ts';
import { withMarket } from '../../src/generation/market-mention.ts';
import { generateOffline } from '../../src/generation/offline/index.ts';
import { warmupBars } from '../../src/indicators/index.ts';
import { seededRandom } from '../../src/lib/seeded-random.ts';
import type { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import { featureRows, type FeatureRows, type ScoringSpec } from '../../src/scoring/index.ts';
import { modelSettings } from '../../src/training/index.ts';
import { INTENT_CORPUS } from '../generation/corpus/intent-corpus.ts';
import { PROMPTS } from '../generation/offline/prompts.ts';
import { loadBars } from './strategy-bars.ts';

const FX = SYMBOLS.filter((s) => s !== 'BTCUSD');

export interface GeneratedCase {
  /** prompts/<id> or intent/<id>: the corpus and the entry's id. */
  id: string;
  symbol: Symbol;
  code: string;
  config: StrategyConfig;
  features: string[];
  warmup: number;
}

/**
 * The corpora's strategies on 15-minute bars whose strategy_config `keep` accepts, one per
 * distinct code and symbol (the prompts corpus names no market: its entries take the six FX
 * majors in turn; the intent corpus's market is its prompt's).
 */
export function generatedCases(keep: (config: StrategyConfig) => boolean): GeneratedCase[] {
  const requests = [
    ...PROMPTS.map((e, i) => ({
      id: `prompts/${e.id}`,
      request: { ...e.request, symbol: FX[i % FX.length]!, timeframe: '15min' as const },
    })),
    ...INTENT_CORPUS.map((c) => ({
      id: `intent/${c.id}`,
      request: { ...withMarket({ description: c.prompt }), timeframe: '15min' as const },
    })),
  ];
  const seen = new Set<string>();
  const out: GeneratedCase[] = [];
  for (const { id, request } of requests) {
    const { code, intent } = generateOffline(request);
    const { config } = intent;
    if (!keep(config)) continue;
    const key = createHash('sha256').update(`${request.symbol}\n${code}`).digest('hex');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ id, symbol: request.symbol, code, config, features: intent.features, warmup: warmupBars(intent.indicators) });
  }
  return out;
}

/** Whether a position may open at a bar opening at ts, by the config's session and days. */
export function allowedAt(config: StrategyConfig, ts: number): boolean {
  const hour = new Date(ts).getUTCHours();
  const session = config.session_filter;
  const inside =
    session === null || (session[0] > session[1] ? hour >= session[0] || hour < session[1] : hour >= session[0] && hour < session[1]);
  return inside && !(config.skip_days ?? []).includes(weekdayOf(ts));
}

/** A case ready for the chain: its bars, its feature rows (checked against its columns) and its scoring spec. */
export interface CaseRun {
  bars: BarColumns;
  features: FeatureRows;
  spec: Omit<ScoringSpec, 'features'>;
  /** The seeded random probability per bar (NaN in the warm-up), the stand-in for a model. */
  p: Float64Array;
}

/**
 * `count` 15-minute bars of the case's symbol from 2017-01-02 (seeded synthetic ones for BTCUSD),
 * the strategy's features on them from the sandbox, and a random probability seeded by `seed`.
 */
export async function runnable(runtime: StrategyRuntime, c: GeneratedCase, count: number, seed: number): Promise<CaseRun> {
  const m = loadBars(c.symbol, '15min', count);
  const bars = toBarColumns(Array.from(m.ts, (ts, i) => ({ ts, open: m.open[i]!, high: m.high[i]!, low: m.low[i]!, close: m.close[i]! })));
  const features = featureRows(await runtime.features(c.code, bars, { timeoutMs: 120_000 }), c.warmup, c.features);
  const spec = {
    symbol: c.symbol,
    timeframe: '15min' as const,
    config: c.config,
    settings: modelSettings(TrainRequest.parse({ code: c.code, timeframe: '15min' }), c.config),
  };
  const random = seededRandom(seed);
  const p = Float64Array.from(bars.ts, (_, i) => (i < c.warmup ? Number.NaN : random()));
  return { bars, features, spec, p };
}

/** `each(case, k)` over the cases, `workers` at a time (the sandbox pool's size), k = the case's index. */
export async function forEachCase(
  cases: readonly GeneratedCase[],
  workers: number,
  each: (c: GeneratedCase, k: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < cases.length) {
        const k = next++;
        await each(cases[k]!, k);
      }
    }),
  );
}
