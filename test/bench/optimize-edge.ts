/**
 * The edge's latency while an optimisation runs (issue 34: `GET /whoami-key` p99 within 1.5× of
 * idle). One `serve` process with real EURUSD ticks of 2014-05-01..09 imported (no live feed):
 * another user's `GET /api/v1/whoami-key`, a few requests in flight at once, is timed idle, then
 * while a user's engine-only optimisations run on the week's 1-minute bars (fold fits in the
 * sandbox, optuna's suggestions, the engine sweep in the trainer role, which `serve` runs in the
 * edge's own process). Options: --requests=3000 --concurrency=4 --trials=1000 --optimisations=1;
 * --follow=stream|poll (how the optimiser follows its job, below); --profile=DIR writes the
 * service's CPU profiles there (node --cpu-prof), to find what still holds the event loop;
 * --root=DIR runs the service of another checkout (a before/after comparison).
 */
import { strategyCode } from '../helpers/strategies.ts';
import { apiCaller } from './lib/api.ts';
import { numberOption, type BenchContext, type BenchResult, type Benchmark } from './lib/types.ts';
import { startServiceProcess } from './lib/service.ts';
import { importFixedWindow } from '../helpers/fixed-market.ts';

const SPAN = { symbol: 'EURUSD', timeframe: '1min', start_date: '2014-05-01', end_date: '2014-05-09' };
/** Engine parameters only: the sweep's work, which runs on the trainer's event loop. */
const SPACE = {
  stop_loss: { type: 'float', low: 3, high: 30, step: 1 },
  take_profit: { type: 'float', low: 3, high: 30, step: 1 },
  confidence_threshold: { type: 'float', low: 0.5, high: 0.6 },
  cooldown: { type: 'int', low: 0, high: 30 },
  direction: { type: 'choice', values: ['both', 'long', 'short'] },
};

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(s.length * p))]! * 100) / 100;
};

/** `requests` GETs of /whoami-key, `concurrency` at a time; each one's latency in ms (or until `until` says stop). */
async function timeWhoami(
  url: string,
  key: string,
  requests: number,
  concurrency: number,
  until: () => boolean = () => false,
): Promise<number[]> {
  const latencies: number[] = [];
  let sent = 0;
  const worker = async () => {
    while (sent < requests && !until()) {
      sent++;
      const t0 = performance.now();
      const res = await fetch(`${url}/api/v1/whoami-key`, { headers: { 'x-api-key': key } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`whoami-key: HTTP ${res.status}`);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return latencies;
}

export const benchmark: Benchmark = {
  name: 'optimize-edge',
  description: 'GET /whoami-key p99 idle vs while engine-only optimisations run in the same serve process (goal within 1.5× of idle)',
  async run(ctx: BenchContext): Promise<BenchResult[]> {
    const requests = numberOption(ctx, 'requests', 3000);
    const concurrency = numberOption(ctx, 'concurrency', 4);
    const trials = numberOption(ctx, 'trials', 1000);
    const optimisations = numberOption(ctx, 'optimisations', 1);
    const service = await startServiceProcess(
      { MARKET_FEED: 'none', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MIN: '1000000', TRIAL_CREDITS: '100000' },
      {
        signal: ctx.signal,
        log: ctx.log,
        timeoutMs: 120_000,
        nodeArgs: ctx.options.profile ? ['--cpu-prof', `--cpu-prof-dir=${ctx.options.profile}`] : [],
        ...(ctx.options.root ? { root: ctx.options.root } : {}),
      },
    );
    ctx.defer(() => service.stop().then(() => undefined));
    const call = apiCaller(service.url);

    ctx.log('importing a week of real EURUSD ticks');
    await importFixedWindow(service.dataDir);

    const optimiser = (await call('POST', '/api/v1/key/trial', {})).api_key as string;
    const prober = (await call('POST', '/api/v1/key/trial', {})).api_key as string;
    await timeWhoami(service.url, prober, 300, concurrency); // warm-up
    ctx.log(`idle: ${requests} × GET /whoami-key, ${concurrency} at a time`);
    const idle = await timeWhoami(service.url, prober, requests, concurrency);

    const code = strategyCode({ params: '{"n_estimators": 30, "max_depth": 6}' });
    const ids: number[] = [];
    for (let i = 0; i < optimisations; i++) {
      const key = i === 0 ? optimiser : ((await call('POST', '/api/v1/key/trial', {})).api_key as string);
      const start = await call(
        'POST',
        '/api/v1/optimize',
        { code, ...SPAN, parameters: SPACE, method: 'random', trials, seed: i + 1, walk_forward: { folds: 5, scheme: 'anchored' } },
        key,
      );
      ids.push(start.optimize_id);
      ctx.defer(() => call('DELETE', `/api/v1/optimize/${start.optimize_id}`, undefined, key).catch(() => undefined));
    }
    // Time only while trials run (the fold fits before them are the sandbox's, in other processes).
    // The optimiser follows its job as a client would: the SSE stream (small progress events, the
    // whole view once at the end), or with --follow=poll GET /optimize/{id} every 500 ms — the whole
    // view with every trial, itself tens of ms of the edge's event loop for 1,000 trials (timed below).
    const follow = ctx.options.follow ?? 'stream';
    if (follow !== 'stream' && follow !== 'poll') throw new Error(`--follow=${follow}: expected stream or poll`);
    const polls: Array<{ ms: number; bytes: number }> = [];
    const status = async (timed = true) => {
      const t0 = performance.now();
      const res = await fetch(`${service.url}/api/v1/optimize/${ids[0]}`, { headers: { 'x-api-key': optimiser } });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`GET /optimize: HTTP ${res.status} ${body.slice(0, 200)}`);
      if (timed) polls.push({ ms: performance.now() - t0, bytes: body.length });
      return JSON.parse(body) as { status: string; trials_done: number };
    };
    const running = (j: { status: string }) => j.status === 'queued' || j.status === 'running';
    let trialsSeen!: () => void;
    const firstTrials = new Promise<void>((r) => (trialsSeen = r));
    let ended = false;
    const unfollow = new AbortController();
    const watcher = (async () => {
      if (follow === 'poll') {
        for (let first = true; !ended && !ctx.signal.aborted;) {
          const job = await status();
          if (job.trials_done > 0 || !running(job)) first = (trialsSeen(), false);
          if (!running(job)) ended = true;
          else await new Promise((r) => setTimeout(r, first ? 200 : 500));
        }
        return;
      }
      const res = await fetch(`${service.url}/api/v1/optimize/${ids[0]}/stream`, {
        headers: { 'x-api-key': optimiser },
        signal: AbortSignal.any([ctx.signal, unfollow.signal]),
      });
      if (res.status !== 200) throw new Error(`GET /optimize/{id}/stream: HTTP ${res.status}`);
      const decoder = new TextDecoder();
      let buffer = '';
      // Aborting the fetch (unfollow) ends this read too.
      for await (const chunk of res.body!) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let end; (end = buffer.indexOf('\n\n')) >= 0; buffer = buffer.slice(end + 2)) {
          const block = buffer.slice(0, end);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event === 'progress' && data && (JSON.parse(data).trials_done > 0 || !running(JSON.parse(data)))) trialsSeen();
          if (event === 'done') {
            trialsSeen();
            ended = true;
            return;
          }
        }
      }
      ended = true;
    })();
    watcher.catch(() => trialsSeen());
    const started = performance.now();
    await firstTrials;
    ctx.log(
      `first trials after ${Math.round(performance.now() - started)} ms; timing the edge while they run (following the job by ${follow})`,
    );
    const busyFrom = performance.now();
    const busy = await timeWhoami(service.url, prober, requests, concurrency, () => ended);
    const busySeconds = (performance.now() - busyFrom) / 1000;
    ended = true;
    unfollow.abort();
    await watcher.catch((err: unknown) => {
      if (!unfollow.signal.aborted) throw err;
    });
    const job = await status(false);
    await service.stop();
    const ratio = pct(busy, 0.99) / pct(idle, 0.99);
    return [
      {
        name: 'whoami-key-while-optimising',
        requests: { idle: idle.length, busy: busy.length },
        concurrency,
        idle_p50_ms: pct(idle, 0.5),
        idle_p99_ms: pct(idle, 0.99),
        busy_p50_ms: pct(busy, 0.5),
        busy_p99_ms: pct(busy, 0.99),
        busy_seconds: Math.round(busySeconds * 10) / 10,
        p99_ratio: Math.round(ratio * 100) / 100,
        goal_ratio: 1.5,
        met: ratio <= 1.5 && busy.length >= requests / 2,
        optimisation: { optimisations, trials, trials_done_at_end: job.trials_done, status_at_end: job.status },
        follow,
        ...(polls.length
          ? {
              status_polls: {
                count: polls.length,
                p50_ms: pct(
                  polls.map((p) => p.ms),
                  0.5,
                ),
                max_ms: pct(
                  polls.map((p) => p.ms),
                  1,
                ),
                max_bytes: Math.max(...polls.map((p) => p.bytes)),
              },
            }
          : {}),
      },
    ];
  },
};
