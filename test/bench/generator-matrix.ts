/**
 * Every corpus prompt on every symbol x timeframe (8 x 4), through what training does with
 * generated code: the static check, the strategy_config schema, the sandboxed analysis (no
 * problems, a finite warm-up, the intent's columns) and training. Bars: real HistData 1-minute
 * bars resampled for the seven majors, the seeded synthetic market for BTCUSD; `--bars` per
 * series (default 3000, more where an indicator's warm-up needs it). Reports the pass rate and
 * every failure. The whole matrix takes about an hour on 2 cores: `--max-seconds=7200`.
 *
 *   npm run bench -- generator-matrix --max-seconds=7200
 *   npm run bench -- generator-matrix --symbols=EURUSD,BTCUSD --timeframes=1h --prompts=20
 */
import { SYMBOLS, TIMEFRAMES, type Symbol, type Timeframe } from '../../schemas/common.ts';
import { StrategyConfig } from '../../schemas/strategy.ts';
import { warmupBars } from '../../src/indicators/index.ts';
import { createLogger } from '../../src/log.ts';
import { generateOffline } from '../../src/generation/offline/index.ts';
import { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import { checkStrategyCode } from '../../src/sandbox/static-check.ts';
import { barsFor, loadBars } from '../helpers/strategy-bars.ts';
import { PROMPTS } from '../generation/offline/prompts.ts';
import { numberOption, type Benchmark } from './lib/types.ts';
import type { OhlcColumns } from '../../src/lib/bar-columns.ts';

type Stage = 'static' | 'schema' | 'analyze' | 'train';

const slice = (b: OhlcColumns, n: number): OhlcColumns => ({
  ts: b.ts.subarray(0, n),
  open: b.open.subarray(0, n),
  high: b.high.subarray(0, n),
  low: b.low.subarray(0, n),
  close: b.close.subarray(0, n),
});

function list<T extends string>(raw: string | undefined, all: readonly T[]): T[] {
  if (!raw) return [...all];
  const wanted = raw.split(',');
  const bad = wanted.filter((w) => !(all as readonly string[]).includes(w));
  if (bad.length) throw new Error(`unknown: ${bad.join(', ')}`);
  return wanted as T[];
}

export const benchmark: Benchmark = {
  name: 'generator-matrix',
  description:
    'Every corpus prompt x 8 symbols x 4 timeframes: static check + schema + sandboxed analysis + training; pass rate and failures',
  async run(ctx) {
    const base = numberOption(ctx, 'bars', 3000);
    const workers = numberOption(ctx, 'workers', 2);
    const prompts = PROMPTS.slice(0, numberOption(ctx, 'prompts', PROMPTS.length));
    const symbols = list(ctx.options.symbols, SYMBOLS);
    const timeframes = list(ctx.options.timeframes, TIMEFRAMES);
    const runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: workers });
    ctx.defer(() => runtime.stop());
    const started = performance.now();
    const failures: Array<{ prompt: string; symbol: Symbol; timeframe: Timeframe; stage: Stage; error: string }> = [];
    const failedAt: Record<Stage, number> = { static: 0, schema: 0, analyze: 0, train: 0 };
    let runs = 0;
    let passed = 0;
    const warmups: number[] = [];
    const seconds = { analyze: 0, train: 0 };

    for (const symbol of symbols) {
      for (const timeframe of timeframes) {
        if (ctx.signal.aborted) break;
        const jobs = prompts.map((p) => ({ p, g: generateOffline({ ...p.request, symbol, timeframe }) }));
        const need = Math.max(...jobs.map(({ g }) => barsFor(warmupBars(g.intent.indicators), base)));
        const all = loadBars(symbol, timeframe, need);
        let next = 0;
        await Promise.all(
          Array.from({ length: workers }, async () => {
            while (next < jobs.length && !ctx.signal.aborted) {
              const { p, g } = jobs[next++]!;
              const bars = slice(all, Math.min(all.ts.length, barsFor(warmupBars(g.intent.indicators), base)));
              runs++;
              const fail = (stage: Stage, error: string) => {
                failedAt[stage]++;
                failures.push({ prompt: p.id, symbol, timeframe, stage, error: error.slice(0, 500) });
              };
              const check = await checkStrategyCode(g.code);
              if (!check.ok) {
                fail('static', JSON.stringify(check.violations));
                continue;
              }
              const schema = StrategyConfig.safeParse(g.intent.config);
              if (!schema.success) {
                fail('schema', schema.error.message);
                continue;
              }
              let stage: Stage = 'analyze';
              try {
                const t0 = performance.now();
                const a = await runtime.analyze(g.code, bars, { timeoutMs: 180_000 });
                seconds.analyze += (performance.now() - t0) / 1000;
                if (a.problems.length || a.warmup === null) {
                  fail('analyze', `warm-up ${a.warmup}: ${JSON.stringify(a.problems)}`);
                  continue;
                }
                if (JSON.stringify(a.featureColumns) !== JSON.stringify(g.intent.features)) {
                  fail('analyze', `columns ${a.featureColumns.join(',')} != ${g.intent.features.join(',')}`);
                  continue;
                }
                warmups.push(a.warmup);
                stage = 'train';
                const t1 = performance.now();
                const t = await runtime.train(g.code, bars, { warmup: a.warmup }, { timeoutMs: 180_000, memoryMb: 2048 });
                seconds.train += (performance.now() - t1) / 1000;
                if (t.rowsTrain < 100 || t.rowsTest < 10) {
                  fail('train', `only ${t.rowsTrain} train / ${t.rowsTest} test rows`);
                  continue;
                }
                passed++;
              } catch (err) {
                fail(stage, (err as Error)?.message ?? String(err));
              }
            }
          }),
        );
        ctx.log(
          `${symbol} ${timeframe}: ${runs} runs, ${passed} passed, ${failures.length} failed, ${Math.round((performance.now() - started) / 1000)} s`,
        );
      }
    }
    const total = symbols.length * timeframes.length * prompts.length;
    return [
      {
        name: 'matrix',
        prompts: prompts.length,
        symbols,
        timeframes,
        bars_per_series: base,
        planned: total,
        runs,
        passed,
        pass_rate: runs ? Math.round((passed / runs) * 10_000) / 10_000 : 0,
        complete: runs === total,
        failed_at: failedAt,
        warmup_bars: warmups.length ? { min: Math.min(...warmups), max: Math.max(...warmups) } : null,
        seconds: Math.round((performance.now() - started) / 1000),
        job_seconds: { analyze: Math.round(seconds.analyze), train: Math.round(seconds.train) },
        failures,
        note: 'real HistData 1-min bars (2017) resampled for the majors, seeded synthetic bars for BTCUSD; analyze = look-ahead + warm-up + dynamic checks; train uses the measured warm-up',
      },
    ];
  },
};
