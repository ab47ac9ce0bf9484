/**
 * The pipelines as a user meets them, on one year of 15-min EURUSD (~25,000 bars):
 * - train: `POST /train` → poll `GET /train/{id}` → `done`, RandomForest(200 trees, max_depth 8).
 *   Goal ≤ 5 s wall.
 * - one_shot: `POST /one_shot` (offline generator) → SSE → `done`, deployed with a webhook to a
 *   local receiver. Goal ≤ 10 s to `done`; also the time to the first token.
 * The service the contract describes advertises 60–90 s for its whole pipeline.
 * Runs the real service (a year of synthetic history) as a child process; the rate limit is lifted
 * so the bench can poll every 20 ms.
 */
import { apiCaller } from './lib/api.ts';
import { trainableStrategy } from './lib/strategies.ts';
import { numberOption, type Benchmark } from './lib/types.ts';
import { startServiceProcess, waitForQuiet } from './lib/service.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

const CODE = trainableStrategy('RandomForestClassifier', "{'n_estimators': 200, 'max_depth': 8}");

const GOAL_S = 5;
const ONE_SHOT_GOAL_S = 10;
const ONE_SHOT_PROMPT =
  'EURUSD 15 minute momentum: go long when the 12 EMA crosses above the 26 EMA and RSI(14) is above 50, short on the opposite, stop 20 pips, target 40 pips, random forest';

export const benchmark: Benchmark = {
  name: 'pipeline',
  description:
    'A year of 15-min EURUSD over HTTP: POST /train → done with RandomForest(200) (goal ≤ 5 s); POST /one_shot → done (goal ≤ 10 s)',
  async run(ctx) {
    const runs = numberOption(ctx, 'runs', 3);
    const service = await startServiceProcess(
      { HISTORY_DAYS: '365', LOG_LEVEL: 'info', RATE_LIMIT_PER_MIN: '1000000', WEBHOOK_ALLOW_PRIVATE: 'loopback', TRIAL_CREDITS: '1000' },
      { signal: ctx.signal, log: ctx.log, timeoutMs: 180_000 },
    );
    ctx.defer(() => service.stop().then(() => undefined));
    const quiet = await waitForQuiet(60_000, ctx.signal);
    const call = apiCaller(service.url);
    const { api_key: key } = await call('POST', '/api/v1/key/trial', {});

    const walls: number[] = [];
    let last: any = null;
    for (let i = 0; i < runs + 1; i++) {
      const t = performance.now();
      const start = await call(
        'POST',
        '/api/v1/train',
        { code: CODE, symbol: 'EURUSD', timeframe: '15min', model_name: `bench ${i}` },
        key,
      );
      let job: any;
      for (;;) {
        job = await call('GET', `/api/v1/train/${start.job_id}`, undefined, key);
        if (job.status === 'done' || job.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const wall = (performance.now() - t) / 1000;
      if (job.status !== 'done') throw new Error(`job failed: ${job.error}`);
      ctx.log(`train run ${i}: ${wall.toFixed(2)} s (${i === 0 ? 'warm-up, not counted' : 'counted'})`);
      if (i > 0) walls.push(wall);
      last = job;
    }
    const results = await call('GET', `/api/v1/results/${encodeURIComponent(last.model_stem)}`, undefined, key);
    walls.sort((a, b) => a - b);
    const median = walls[Math.floor(walls.length / 2)]!;

    const receiver = await startWebhookReceiver();
    ctx.defer(() => receiver.stop());
    const shots: { done: number; firstToken: number; testTrades: number }[] = [];
    for (let i = 0; i < runs + 1; i++) {
      const t = performance.now();
      const res = await fetch(`${service.url}/api/v1/one_shot`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: ONE_SHOT_PROMPT, deliver_to: { webhook: `${receiver.url}/hook` } }),
      });
      if (!res.ok) throw new Error(`one_shot: HTTP ${res.status} ${await res.text()}`);
      let firstToken = NaN;
      let done: any = null;
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of res.body!) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1] ?? 'null';
          if (event === 'token' && Number.isNaN(firstToken)) firstToken = performance.now() - t;
          if (event === 'error') throw new Error(`one_shot failed: ${data}`);
          if (event === 'done') done = JSON.parse(data);
        }
      }
      if (!done) throw new Error('one_shot ended without done');
      const wall = (performance.now() - t) / 1000;
      ctx.log(`one_shot run ${i}: ${wall.toFixed(2)} s (${i === 0 ? 'warm-up, not counted' : 'counted'})`);
      if (i > 0) shots.push({ done: wall, firstToken: firstToken / 1000, testTrades: done.metrics.n });
    }
    shots.sort((a, b) => a.done - b.done);
    const shot = shots[Math.floor(shots.length / 2)]!;
    return [
      {
        name: 'train-rf200-15min-year',
        bars: results.spans.train.bars + results.spans.test.bars,
        warmup: results.warmup,
        test_trades: results.metrics.test.n,
        runs: walls.length,
        wall_s_median: Math.round(median * 100) / 100,
        wall_s_min: Math.round(walls[0]! * 100) / 100,
        wall_s_max: Math.round(walls.at(-1)! * 100) / 100,
        goal_s: GOAL_S,
        met: median <= GOAL_S,
        comparison: 'the contract’s service advertises 60–90 s for generate + train + deploy',
        machine_quiet_before: quiet,
      },
      {
        name: 'one-shot-15min-year',
        runs: shots.length,
        done_s_median: Math.round(shot.done * 100) / 100,
        done_s_min: Math.round(shots[0]!.done * 100) / 100,
        done_s_max: Math.round(shots.at(-1)!.done * 100) / 100,
        first_token_ms_median: Math.round(shot.firstToken * 1000),
        test_trades: shot.testTrades,
        goal_s: ONE_SHOT_GOAL_S,
        met: shot.done <= ONE_SHOT_GOAL_S,
        comparison: 'the contract says one_shot through its connector takes 60–90 s',
      },
    ];
  },
};
