/**
 * The offline generator over the intent corpus (test/generation/corpus): time per prompt from
 * the prompt alone (market from the text + generateOffline + the `understood` answer, as POST
 * /generate does it; goal p99 <= 10 ms) and the intent score per category (goal >= 98 %); and,
 * apart, the blind sets written by people who had not read the parser (issue 35: goal >= 95 %,
 * each miss listed). Each set's first run is the blind measure; its misses then guided a round of
 * generator fixes, so a set's later scores are not blind (first runs: 0.9047, 0.9435, 0.942, 0.9187,
 * 0.9117, 0.9638).
 */
import { withMarket } from '../../src/generation/market-mention.ts';
import { generateOffline, understoodFrom } from '../../src/generation/offline/index.ts';
import { INTENT_CORPUS, type IntentCase } from '../generation/corpus/intent-corpus.ts';
import { BLIND_SET } from '../generation/corpus/blind-set.ts';
import { BLIND_SET_2 } from '../generation/corpus/blind-set-2.ts';
import { BLIND_SET_3 } from '../generation/corpus/blind-set-3.ts';
import { BLIND_SET_4 } from '../generation/corpus/blind-set-4.ts';
import { BLIND_SET_5 } from '../generation/corpus/blind-set-5.ts';
import { BLIND_SET_6 } from '../generation/corpus/blind-set-6.ts';
import { scoreByCategory, scoreCase } from '../generation/corpus/score.ts';
import { numberOption, type Benchmark } from './lib/types.ts';

const round = (x: number) => Math.round(x * 1000) / 1000;

/** A prompt set's mean case score and its misses. */
function scored(cases: readonly IntentCase[]) {
  const results = cases.map(scoreCase);
  const score = round(results.reduce((s, r) => s + (r.checks ? (r.checks - r.failed.length) / r.checks : 1), 0) / results.length);
  return {
    prompts: cases.length,
    checks: results.reduce((s, r) => s + r.checks, 0),
    score,
    misread: results.filter((r) => r.failed.length).map((r) => `${r.id}: ${r.failed.join('; ')}`),
  };
}

export const benchmark: Benchmark = {
  name: 'generator-intent',
  description:
    'Offline generation per prompt over the 300+ prompt intent corpus (goal p99 <= 10 ms) and the intent score per category (goal >= 98 %)',
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
    const overall = scored(INTENT_CORPUS).score;
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
      ...(
        [
          [
            'blind-set-6-intent',
            BLIND_SET_6,
            'written during the fifth round of fixes by someone who had read neither the parser nor any earlier set, run once after it (first run, blind: 0.9638)',
          ],
          [
            'blind-set-5-intent',
            BLIND_SET_5,
            'written during the fourth round of fixes by someone who had read neither the parser nor any earlier set (first run, blind: 0.9117); its misses then guided the fifth round',
          ],
          [
            'blind-set-4-intent',
            BLIND_SET_4,
            'written after the third round of fixes by someone who had read neither the parser nor the earlier sets (first run, blind: 0.9187); its misses guided the fourth round',
          ],
          [
            'blind-set-3-intent',
            BLIND_SET_3,
            'its first-run misses guided the third round of fixes (first run, blind: 0.942); no longer blind',
          ],
          [
            'blind-set-2-intent',
            BLIND_SET_2,
            'its first-run misses guided the second round of fixes (first run, blind: 0.9435); no longer blind',
          ],
          [
            'blind-set-1-intent',
            BLIND_SET,
            'its first-run misses guided the first round of fixes (first run, blind: 0.9047); no longer blind',
          ],
        ] as const
      ).map(([name, cases, note]) => {
        const r = scored(cases);
        return { name, ...r, goal: 0.95, met: r.score >= 0.95, note };
      }),
    ];
  },
};
