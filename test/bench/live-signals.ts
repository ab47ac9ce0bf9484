/**
 * Live signals end to end, on real EURUSD ticks (OANDA, 2014-05-01..09, imported with the CLI):
 * a model trained on their 1-minute bars is deployed with a webhook to a local receiver, then the
 * last day's ticks are replayed a week later on NATS `ticks.EURUSD`, one minute every 200 ms.
 * - one model: from the bar-close event on NATS to the signed webhook received, p50 / p99
 *   (goal p99 ≤ 50 ms);
 * - 1,000 deployed models on the same symbol and timeframe: from the bar-close event to the last
 *   of their webhooks (goal ≤ 2 s), and the service's memory per deployed model.
 * The service runs with MARKET_FEED=none (no synthetic feed) so replayed ticks are the only ones.
 * Options: --models=1000 --bars=300 --minute-ms=200 --fan-seconds=600 (the search for a bar every
 * model signals on gives up after it); --service-root=DIR starts DIR's service
 * instead of this checkout's; --compare-root=DIR measures DIR's service first, then this one's, in
 * one run (results carry `service`: before / after).
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { connectBus, openBucket } from '../../src/bus/index.ts';
import { createLogger } from '../../src/log.ts';
import { readRunFile } from '../../src/run-file.ts';
import { ModelStore } from '../../src/training/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { apiCaller } from './lib/api.ts';
import { numberOption, type BenchContext, type BenchResult, type Benchmark } from './lib/types.ts';
import { processTree } from './lib/proc.ts';
import { REPO_ROOT, startServiceProcess } from './lib/service.ts';
import { importFixedWindow } from '../helpers/fixed-market.ts';

const TICKS = `${REPO_ROOT}/../shared/data/fx/lean_quotes_2014-05-01_09/normalized/oanda_EURUSD_ticks_2014-05-01_2014-05-09.csv.gz`;
const WEEK_MS = 7 * 86_400_000;
const MINUTE = 60_000;

interface Tick {
  ts: number;
  bid: number;
  ask: number;
}

/** The last trading day's ticks, moved a week later, grouped by minute. */
function replayMinutes(): Tick[][] {
  const lines = gunzipSync(readFileSync(TICKS)).toString('utf8').trim().split('\n').slice(1);
  const header = gunzipSync(readFileSync(TICKS)).toString('utf8').split('\n', 1)[0]!.split(',');
  const [iTs, iBid, iAsk] = ['ts_utc', 'bid', 'ask'].map((c) => header.indexOf(c));
  const ticks = lines.map((l) => {
    const f = l.split(',');
    return { ts: Date.parse(f[iTs!]!), bid: Number(f[iBid!]), ask: Number(f[iAsk!]) };
  });
  const lastDay = Math.floor(ticks.at(-1)!.ts / 86_400_000) * 86_400_000;
  const minutes = new Map<number, Tick[]>();
  for (const t of ticks) {
    if (t.ts < lastDay) continue;
    const shifted = { ...t, ts: t.ts + WEEK_MS };
    const m = Math.floor(shifted.ts / MINUTE) * MINUTE;
    if (!minutes.has(m)) minutes.set(m, []);
    minutes.get(m)!.push(shifted);
  }
  return [...minutes.values()];
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(s.length * p))]! * 100) / 100;
};

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** RSS of the service's model-scoring processes (none where models are scored in the service itself). */
function scorersRssMb(pid: number): number {
  const scorers = processTree(pid).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('scorer-process');
    } catch {
      return false;
    }
  });
  return scorers.reduce((mb, p) => mb + rssMb(p), 0);
}

export const benchmark: Benchmark = {
  name: 'live-signals',
  description: 'Bar close → signed webhook for one deployed model (goal p99 ≤ 50 ms) and for 1,000 (goal ≤ 2 s), memory per model',
  async run(ctx) {
    const compare = ctx.options['compare-root'];
    if (!compare) return measure(ctx, ctx.options['service-root'] ?? REPO_ROOT);
    const before = await measure(ctx, compare);
    const after = await measure(ctx, REPO_ROOT);
    return [
      ...before.map((r) => ({ ...r, service: `before (${compare})` })),
      ...after.map((r) => ({ ...r, service: 'after (this checkout)' })),
    ];
  },
};

async function measure(ctx: BenchContext, root: string): Promise<BenchResult[]> {
  const fanout = numberOption(ctx, 'models', 1000);
  const pace = numberOption(ctx, 'minute-ms', 200);
  const service = await startServiceProcess(
    {
      MARKET_FEED: 'none',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MIN: '1000000',
      WEBHOOK_ALLOW_PRIVATE: 'loopback',
      DEPLOY_LIMIT_FREE: String(fanout + 10),
      TRIAL_CREDITS: '1000',
      BAR_GRACE_MS: '60000',
    },
    { signal: ctx.signal, log: ctx.log, timeoutMs: 120_000, root },
  );
  ctx.defer(() => service.stop().then(() => undefined));
  const call = apiCaller(service.url);

  ctx.log('importing a week of real EURUSD ticks');
  await importFixedWindow(service.dataDir);

  const { api_key: key, user_id: userId } = await call('POST', '/api/v1/key/trial', {});
  const start = await call('POST', '/api/v1/train', { code: strategyCode(), symbol: 'EURUSD', timeframe: '1min' }, key);
  for (;;) {
    const job = await call('GET', `/api/v1/train/${start.job_id}`, undefined, key);
    if (job.status === 'done') break;
    if (job.status === 'failed') throw new Error(`train failed: ${job.error}`);
    await new Promise((r) => setTimeout(r, 200));
  }

  const run = readRunFile(service.dataDir);
  if (!run) throw new Error('no run file: cannot reach the service NATS');
  const bus = await connectBus(run.natsUrl, 'bench-live', createLogger('silent'));
  ctx.defer(() => bus.close());
  const barSeen = new Map<number, number>();
  bus.nc.subscribe('bars.EURUSD.1min', {
    callback: (_e, msg) => {
      barSeen.set((msg.json() as { ts: number }).ts, performance.now());
    },
  });

  const receiver = await startWebhookReceiver();
  ctx.defer(() => receiver.stop());
  const deployed = await call(
    'POST',
    '/api/v1/deploy',
    { model_name: 'Model 1', channels: ['webhook'], webhook_url: `${receiver.url}/one` },
    key,
  );
  receiver.secret('/one', deployed.webhook_secret);
  await new Promise((r) => setTimeout(r, 3000)); // the host claims the deployment and starts the actor

  const minutes = replayMinutes();
  const publishMinute = (i: number) => bus.nc.publish('ticks.EURUSD', JSON.stringify(minutes[i]!));
  const oneMinutes = Math.min(minutes.length - 5, numberOption(ctx, 'bars', 300));
  ctx.log(`replaying ${oneMinutes} minutes, one every ${pace} ms, to one deployed model`);
  for (let i = 0; i < oneMinutes; i++) {
    publishMinute(i);
    await new Promise((r) => setTimeout(r, pace));
  }
  await new Promise((r) => setTimeout(r, 1000));
  const latencies: number[] = [];
  let unverified = 0;
  for (const hook of receiver.accepted('/one')) {
    const seen = barSeen.get(Date.parse(hook.payload.data.bar_time));
    if (hook.verified !== true) unverified++;
    if (seen !== undefined) latencies.push(hook.at - seen);
  }

  // 1,000 deployments: clones of the model (same code and ONNX) under new names, each deployed with a webhook.
  ctx.log(`deploying ${fanout} models`);
  const store = await ModelStore.open(bus, await openBucket(bus, Buckets.models), await openBucket(bus, Buckets.signals));
  const original = (await store.resolve(userId, 'Model 1'))!;
  const artifacts = {
    onnx: await store.onnx(original),
    code: await store.code(original),
    results: JSON.parse(await store.resultsJson(original)),
  };
  const rssBefore = rssMb(service.pid);
  const scorersBefore = scorersRssMb(service.pid);
  await call('DELETE', '/api/v1/deploy/Model%201', undefined, key);
  for (let i = 0; i < fanout; i++) {
    const name = `fan ${i}`;
    await store.save({ ...original, model_name: name, stem: `${userId}_EURUSD_1min_${name}`, artifact: `fan${i}` }, artifacts);
    const dep = await call('POST', '/api/v1/deploy', { model_name: name, channels: ['webhook'], webhook_url: `${receiver.url}/fan` }, key);
    if (i === 0) receiver.secret('/fan', dep.webhook_secret);
  }
  // Wait until every actor runs: each announces its entry on the latest bar as it starts.
  const started = performance.now();
  while (receiver.accepted('/fan').length < fanout && performance.now() - started < 120_000) await new Promise((r) => setTimeout(r, 500));
  const rssAfter = rssMb(service.pid);
  const scorersAfter = scorersRssMb(service.pid);
  ctx.log(`${receiver.accepted('/fan').length} start-up webhooks after ${Math.round(performance.now() - started)} ms`);

  // Bars one at a time until one makes every model signal; time its last webhook. A bar's webhooks
  // are awaited until all arrived or none came for 3 s (up to 60 s), so a slow fan-out is timed
  // rather than missed; the largest partial fan-out seen is reported when no bar reached all.
  let fan: { bar: string; webhooks: number; last_ms: number } | null = null;
  let partial: { bar: string; webhooks: number; last_ms: number } | null = null;
  const fanDeadline = performance.now() + numberOption(ctx, 'fan-seconds', 600) * 1000;
  for (let i = oneMinutes; i < minutes.length - 1 && !fan && !ctx.signal.aborted && performance.now() < fanDeadline; i++) {
    const before = receiver.accepted('/fan').length;
    publishMinute(i);
    publishMinute(i + 1); // its first tick closes bar i
    const barTs = Math.floor(minutes[i]![0]!.ts / MINUTE) * MINUTE;
    const forBar = () =>
      receiver
        .accepted('/fan')
        .slice(before)
        .filter((h) => Date.parse(h.payload.data.bar_time) === barTs);
    const waitFrom = performance.now();
    let count = -1;
    let changedAt = waitFrom;
    while (performance.now() - waitFrom < 60_000) {
      await new Promise((r) => setTimeout(r, 250));
      const now = forBar().length;
      if (now !== count) [count, changedAt] = [now, performance.now()];
      if (now >= fanout || (performance.now() - changedAt > 3000 && performance.now() - waitFrom > 4000)) break;
    }
    const hooks = forBar();
    const seen = barSeen.get(barTs);
    if (seen !== undefined && hooks.length > 0) {
      const timed = {
        bar: new Date(barTs).toISOString(),
        webhooks: hooks.length,
        last_ms: Math.round(Math.max(...hooks.map((h) => h.at)) - seen),
      };
      if (hooks.length >= fanout) fan = timed;
      else if (!partial || hooks.length > partial.webhooks) partial = timed;
    }
    i++; // minute i+1 was published too
  }

  // Stopped now, not at the end of the bench: a compared service must not run beside the next.
  await bus.close();
  await receiver.stop();
  await service.stop();
  return [
    {
      name: 'bar-close-to-webhook-one-model',
      bars: oneMinutes,
      webhooks: latencies.length,
      unverified_signatures: unverified,
      p50_ms: pct(latencies, 0.5),
      p99_ms: pct(latencies, 0.99),
      max_ms: pct(latencies, 1),
      goal_p99_ms: 50,
      met: latencies.length > 0 && pct(latencies, 0.99) <= 50,
    },
    {
      name: 'bar-close-to-last-webhook-1000-models',
      models: fanout,
      ...(fan ?? { error: 'no bar made every model signal', largest_partial_fanout: partial }),
      goal_ms: 2000,
      met: fan !== null && fan.last_ms <= 2000,
      rss_mb_before: rssBefore,
      rss_mb_after: rssAfter,
      memory_kb_per_model: Math.round(((rssAfter - rssBefore) * 1024) / fanout),
      scorers_rss_mb_before: scorersBefore,
      scorers_rss_mb_after: scorersAfter,
      memory_kb_per_model_with_scorers: Math.round(((rssAfter + scorersAfter - rssBefore - scorersBefore) * 1024) / fanout),
    },
  ];
}
