/**
 * The offline generator over the prompt corpus: time to the first stream token and to the last
 * (generateOffline + offlineTokens, as POST /generate/stream serves them; goal p99 ≤ 100 ms for
 * both) and the pass rate of the static check + strategy_config schema.
 */
import { SYMBOLS, TIMEFRAMES, type Symbol, type Timeframe } from '../../schemas/common.ts';
import { StrategyConfig } from '../../schemas/strategy.ts';
import { generateOffline, offlineTokens } from '../../src/generation/offline/index.ts';
import { checkStrategyCode } from '../../src/sandbox/static-check.ts';
import { PROMPTS } from '../generation/offline/prompts.ts';
import { numberOption, type Benchmark } from './lib/types.ts';

const COMBOS: Array<[Symbol, Timeframe]> = SYMBOLS.flatMap((s) => TIMEFRAMES.map((tf): [Symbol, Timeframe] => [s, tf]));

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => Math.round(s[Math.min(s.length - 1, Math.floor(s.length * p))]! * 1000) / 1000;
  return { p50: at(0.5), p99: at(0.99), max: Math.round(s[s.length - 1]! * 1000) / 1000 };
};

export const benchmark: Benchmark = {
  name: 'generator-offline',
  description: 'Offline generator over the prompt corpus: time to first token and to done (goal p99 <= 100 ms), static-check pass rate',
  async run(ctx) {
    const passes = numberOption(ctx, 'passes', 5);
    // Every prompt on every symbol x timeframe: the latency sample.
    const requests = PROMPTS.flatMap((p) =>
      COMBOS.map(([symbol, timeframe]) => ({ id: p.id, request: { ...p.request, symbol, timeframe } })),
    );
    const coldStart = performance.now();
    const cold = generateOffline(requests[0]!.request);
    [...offlineTokens(cold.code)];
    const coldMs = performance.now() - coldStart;
    const first: number[] = [];
    const done: number[] = [];
    const tokens: number[] = [];
    for (let pass = 0; pass < passes && !ctx.signal.aborted; pass++) {
      for (const { request } of requests) {
        const t0 = performance.now();
        const { code } = generateOffline(request);
        const stream = offlineTokens(code);
        stream.next();
        const t1 = performance.now();
        let n = 1;
        while (!stream.next().done) n++;
        const t2 = performance.now();
        first.push(t1 - t0);
        done.push(t2 - t0);
        tokens.push(n);
      }
      ctx.log(`pass ${pass + 1}/${passes}: ${requests.length} generations`);
    }
    // Pass rate: every prompt on its round-robin market (as the corpus test), static check + schema.
    const failures: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < PROMPTS.length && !ctx.signal.aborted) {
          const i = next++;
          const [symbol, timeframe] = COMBOS[(i * 7) % COMBOS.length]!;
          const { code, intent } = generateOffline({ ...PROMPTS[i]!.request, symbol, timeframe });
          const check = await checkStrategyCode(code);
          const schema = StrategyConfig.safeParse(intent.config);
          if (!check.ok || !schema.success)
            failures.push(
              `${PROMPTS[i]!.id} ${symbol} ${timeframe}: ${check.ok ? '' : JSON.stringify(check.violations)} ${schema.success ? '' : schema.error.message}`,
            );
        }
      }),
    );
    const ttft = stats(first);
    const total = stats(done);
    return [
      {
        name: 'offline-latency',
        prompts: PROMPTS.length,
        generations: first.length,
        passes,
        cold_first_ms: Math.round(coldMs * 10) / 10,
        first_token_ms: ttft,
        done_ms: total,
        tokens_per_strategy: stats(tokens),
        goal_p99_ms: 100,
        met: ttft.p99 <= 100 && total.p99 <= 100,
        note: 'every corpus prompt on all 8 symbols x 4 timeframes; first token = parse + write + first chunk (the generator is synchronous); cold = the first call in the process',
      },
      {
        name: 'offline-pass-rate',
        prompts: PROMPTS.length,
        passed: PROMPTS.length - failures.length,
        pass_rate: Math.round(((PROMPTS.length - failures.length) / PROMPTS.length) * 10_000) / 10_000,
        failures,
        note: 'static check (check.py) + StrategyConfig schema, each prompt on its round-robin symbol/timeframe',
      },
    ];
  },
};
