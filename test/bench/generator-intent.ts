/**
 * The offline generator over the intent corpus (test/generation/corpus): time per prompt from
 * the prompt alone (market from the text + generateOffline + the `understood` answer, as POST
 * /generate does it; goal p99 <= 10 ms) and the intent score per category (goal >= 98 %).
 */
import { withMarket } from '../../src/generation/market-mention.ts';
import { generateOffline, understoodFrom } from '../../src/generation/offline/index.ts';
import { INTENT_CORPUS } from '../generation/corpus/intent-corpus.ts';
import { scoreByCategory, scoreCase } from '../generation/corpus/score.ts';
import { numberOption, type Benchmark } from './lib/types.ts';

const round = (x: number) => Math.round(x * 1000) / 1000;

export const benchmark: Benchmark = {
  name: 'generator-intent',
  description: 'Offline generation per prompt over the 300+ prompt intent corpus (goal p99 <= 10 ms) and the intent score per category (goal >= 98 %)',
  async run(ctx) {
    const passes = numberOption(ctx, 'passes', 5);
    const cold = performance.now();
    generateOffline(withMarket({ description: INTENT_CORPUS[0]!.prompt }));
    const coldMs = performance.now() - cold;
    const times: number[] = [];
    for (let pass = 0; pass < passes && !ctx.signal.aborted; pass++) {
      for (const c of INTENT_CORPUS) {
        const t0 = performance.now();
        const { intent } = generateOffline(withMarket({ description: c.prompt }));
        understoodFrom(intent);
        times.push(performance.now() - t0);
      }
      ctx.log(`pass ${pass + 1}/${passes}: ${INTENT_CORPUS.length} prompts`);
    }
    const sorted = [...times].sort((a, b) => a - b);
    const at = (p: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!);
    const results = INTENT_CORPUS.map(scoreCase);
    const scores = scoreByCategory(results);
    const overall = round(results.reduce((s, r) => s + (r.checks ? (r.checks - r.failed.length) / r.checks : 1), 0) / results.length);
    return [
      {
        name: 'intent-latency',
        prompts: INTENT_CORPUS.length,
        generations: times.length,
        cold_first_ms: round(coldMs),
        p50_ms: at(0.5),
        p99_ms: at(0.99),
        max_ms: round(sorted[sorted.length - 1]!),
        goal_p99_ms: 10,
        met: at(0.99) <= 10,
        note: 'per prompt: market from the text, generateOffline (parse, intent, code) and the understood answer; cold = the first call in the process',
      },
      {
        name: 'intent-score',
        prompts: INTENT_CORPUS.length,
        overall,
        per_category: scores,
        goal: 0.98,
        met: Object.values(scores).every((s) => s.score >= 0.98),
        misread: results.filter((r) => r.failed.length).map((r) => `${r.id}: ${r.failed.join('; ')}`),
      },
    ];
  },
};
