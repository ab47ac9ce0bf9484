/**
 * What scoring models in processes of their own (src/scoring/model-host) costs beside scoring them
 * with onnxruntime in the service's process, as every version before it did: the same model (a
 * random forest of 100 trees, depth 8, trained and exported as the trainer does on real EURUSD
 * features), the same session options, on this machine in this run.
 * - one model, one row at a time (one deployed model's bar): p50 / p99 of a call;
 * - 1,000 models' rows at once (a bar close of 1,000 deployments): time to the last answer, with
 *   all of them one user's and with each its own user's (each owner takes its own turn);
 * - a training span (every test row in one call): time, and the service's worst event-loop delay
 *   meanwhile (in the process it is the whole run; out of it, none of it).
 * The end-to-end figures (bar close → webhook) are live-signals' (--compare-root=DIR for before /
 * after). Options: --calls=2000 --fanouts=15 --processes=2.
 */
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ScorerPool } from '../../src/scoring/model-host/scorer-pool.ts';
import { honestModel } from '../scoring/model-host/models.ts';
import { numberOption, type BenchResult, type Benchmark } from './lib/types.ts';

type Ort = typeof import('onnxruntime-node');
interface Scorer {
  probabilities(X: Float32Array, rows: number): Promise<Float32Array>;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(s.length * p))]! * 1000) / 1000;
};

export const benchmark: Benchmark = {
  name: 'model-scoring',
  description:
    'ONNX scoring in its own processes vs in the service process: one row p50/p99, 1,000 models at once, a training span and the event loop meanwhile',
  async run(ctx) {
    const calls = numberOption(ctx, 'calls', 2000);
    const fanouts = numberOption(ctx, 'fanouts', 15);
    const processes = numberOption(ctx, 'processes', 2);
    ctx.log('training a random forest (onnx_parity_fixture.py)');
    const m = await honestModel('RandomForestClassifier');
    const row = (i: number) => m.X.slice((i % m.rows) * m.nFeatures, ((i % m.rows) + 1) * m.nFeatures);

    const ort = createRequire(import.meta.url)('onnxruntime-node') as Ort;
    const session = await ort.InferenceSession.create(m.bytes, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' });
    ctx.defer(() => session.release());
    const inProcess: Scorer = {
      probabilities: async (X, rows) =>
        (await session.run({ X: new ort.Tensor('float32', X, [rows, m.nFeatures]) }))['probabilities']!.data as Float32Array,
    };
    const pool = new ScorerPool({ processes });
    ctx.defer(() => pool.close());
    const oneUser = await pool.load(m.bytes, 1);
    const perUser = await Promise.all(Array.from({ length: 1000 }, (_, i) => pool.load(m.bytes, `user ${i}`)));

    const results: BenchResult[] = [];
    const ways: Array<[string, Scorer, Scorer[]]> = [
      ['in the service process (before)', inProcess, Array.from({ length: 1000 }, () => inProcess)],
      [`scoring processes x${processes} (after)`, oneUser, perUser],
    ];
    for (const [where, one, many] of ways) {
      ctx.log(`${where}: ${calls} single rows`);
      const latencies: number[] = [];
      for (let i = 0; i < calls + 100; i++) {
        const t = performance.now();
        await one.probabilities(row(i), 1);
        if (i >= 100) latencies.push(performance.now() - t);
      }
      results.push({ name: 'one-row', where, calls, p50_ms: pct(latencies, 0.5), p99_ms: pct(latencies, 0.99) });

      for (const [who, scorers] of [
        ['one user', Array.from({ length: 1000 }, () => one)],
        ['1,000 users', many],
      ] as const) {
        const times: number[] = [];
        for (let k = 0; k < fanouts + 2; k++) {
          const t = performance.now();
          await Promise.all(scorers.map((s, i) => s.probabilities(row(i), 1)));
          if (k >= 2) times.push(performance.now() - t);
        }
        results.push({
          name: '1000-models-one-row-each',
          where,
          owners: who,
          runs: fanouts,
          p50_ms: pct(times, 0.5),
          max_ms: pct(times, 1),
        });
      }

      const delay = monitorEventLoopDelay({ resolution: 1 });
      const spans: number[] = [];
      delay.enable();
      for (let k = 0; k < 5; k++) {
        const t = performance.now();
        await one.probabilities(m.X, m.rows);
        spans.push(performance.now() - t);
      }
      delay.disable();
      results.push({
        name: 'training-span',
        where,
        rows: m.rows,
        p50_ms: pct(spans, 0.5),
        event_loop_max_delay_ms: Math.round(delay.max / 1e4) / 100,
        loadavg_1m: Math.round(loadavg()[0]! * 100) / 100,
      });
    }
    return results;
  },
};
