/**
 * The WebSocket stream GET /api/v1/predict under a crowd: one service process (its edge) and
 * `--clients` (default 10,000) WebSocket clients in `--workers` other processes on loopback, all
 * subscribed to `bars` of EURUSD 1min. Bars are published on NATS `bars.EURUSD.1min` the way the
 * bar builder publishes a closed bar (after storing it); the clock starts at that publish.
 * - bar close → the LAST of the clients received it, p50/p99 over the bars (goal p99 ≤ 100 ms),
 *   and over every single delivery;
 * - edge RSS per idle connection: RSS with the crowd connected and subscribed, minus before,
 *   over the clients (goal ≤ 20 KB);
 * - bar close → the `prediction` frame of one deployed 1-min model at a client, p50/p99, without
 *   and with the crowd (goal p99 ≤ 50 ms);
 * - for scale, the same crowd fed by a bare `ws` server in the driver (one send loop, nothing else):
 *   what this machine's cores allow before any of the service's work.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import WebSocket, { WebSocketServer } from 'ws';
import { connectBus } from '../../src/bus/index.ts';
import { createLogger } from '../../src/log.ts';
import { readRunFile } from '../../src/run-file.ts';
import type { BarMessage } from '../../schemas/market.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { apiCaller } from './lib/api.ts';
import { numberOption, type Benchmark } from './lib/types.ts';
import { REPO_ROOT, startServiceProcess } from './lib/service.ts';

const MINUTE = 60_000;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(s.length * p))]! * 100) / 100;
};

function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
}

/** A client of the model's predictions in this process: bar open time → arrival of its prediction frame. */
async function predictionClient(url: string, key: string, model: string) {
  const arrivals = new Map<number, number>();
  const ws = new WebSocket(url, { headers: { 'x-api-key': key } });
  await new Promise<void>((resolve, reject) => {
    ws.on('error', reject);
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      if (m.type === 'welcome') ws.send(JSON.stringify({ type: 'subscribe', channel: { channel: 'predictions', model } }));
      else if (m.type === 'subscribed') resolve();
      else if (m.type === 'prediction') arrivals.set(Date.parse(m.prediction.bar.time), now());
      else if (m.type === 'error') reject(new Error(m.error));
    });
  });
  return { arrivals, close: () => ws.terminate() };
}

/** `clients` WebSocket clients in `workers` processes (lib/ws-crowd-worker.ts), each subscribed to bars of EURUSD 1min. */
async function startCrowd(url: string, key: string, clients: number, workers: number, defer: (fn: () => void) => void) {
  const children: ChildProcess[] = [];
  defer(() => {
    for (const c of children) c.kill('SIGKILL');
  });
  const per = Math.ceil(clients / workers);
  await Promise.all(
    Array.from({ length: workers }, (_, w) => {
      const child = fork(`${REPO_ROOT}/test/bench/lib/ws-crowd-worker.ts`, [], {
        execArgv: ['--import', 'tsx'],
        cwd: REPO_ROOT,
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      children.push(child);
      return new Promise<void>((resolve, reject) => {
        child.once('message', (m: { type: string; error?: string }) =>
          m.type === 'ready' ? resolve() : reject(new Error(`worker ${w}: ${m.error}`)),
        );
        child.send({ type: 'start', url, key, count: Math.min(per, clients - w * per), symbol: 'EURUSD', timeframe: '1min' });
      });
    }),
  );
  return {
    /** Stops the workers; for each bar, its send time → the last arrival, and every arrival's delay. */
    async collect(published: Map<number, number>, tss: number[]) {
      const reports = await Promise.all(
        children.map(
          (child) =>
            new Promise<Array<[number, number[]]>>((resolve) => {
              child.once('message', (m: { arrivals: Array<[number, number[]]> }) => resolve(m.arrivals));
              child.send({ type: 'report' });
            }),
        ),
      );
      for (const c of children) c.send({ type: 'stop' });
      const lastPerBar: number[] = [];
      const every: number[] = [];
      let incomplete = 0;
      for (const ts of tss) {
        const times = reports.flatMap((r) => r.find(([t]) => t === ts)?.[1] ?? []);
        const sent = published.get(ts)!;
        if (times.length < clients) incomplete++;
        if (times.length === 0) continue;
        lastPerBar.push(Math.max(...times) - sent);
        for (const t of times) every.push(t - sent);
      }
      return { lastPerBar, every, incomplete };
    },
  };
}

/**
 * The floor on this machine: a bare `ws` server in this process (no auth, no NATS, no service)
 * sending the same frame to the same crowd in one loop, clock started before the loop.
 */
async function bareWsBaseline(clients: number, workers: number, bars: number, paceMs: number, defer: (fn: () => void) => void) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  defer(() => wss.close());
  wss.on('connection', (ws) => {
    ws.send(JSON.stringify({ type: 'welcome' }));
    ws.on('message', () => ws.send(JSON.stringify({ type: 'subscribed' })));
  });
  await new Promise((r) => wss.once('listening', r));
  const crowd = await startCrowd(`ws://127.0.0.1:${(wss.address() as { port: number }).port}`, 'none', clients, workers, defer);
  await sleep(3000);
  const published = new Map<number, number>();
  const tss: number[] = [];
  for (let i = 0; i < bars; i++) {
    const ts = (i + 1) * MINUTE;
    const frame = Buffer.from(
      JSON.stringify({
        type: 'bar',
        bar: {
          symbol: 'EURUSD',
          timeframe: '1min',
          ts,
          open: 1.1,
          high: 1.1,
          low: 1.1,
          close: 1.1,
          volume: 1,
          ticks: 1,
          spread: 1e-5,
          source: 'live',
        },
      }),
    );
    published.set(ts, now());
    for (const ws of wss.clients) ws.send(frame, { binary: false });
    tss.push(ts);
    await sleep(paceMs);
  }
  await sleep(2000);
  return crowd.collect(published, tss);
}

export const benchmark: Benchmark = {
  name: 'ws-stream',
  description:
    'WebSocket stream: bar close → last of 10,000 clients (goal p99 ≤ 100 ms), edge RSS per idle connection (≤ 20 KB), bar close → prediction frame (≤ 50 ms)',
  async run(ctx) {
    const clients = numberOption(ctx, 'clients', 10_000);
    const workers = numberOption(ctx, 'workers', 4);
    const bars = numberOption(ctx, 'bars', 40);
    const paceMs = numberOption(ctx, 'pace-ms', 1000);
    const service = await startServiceProcess(
      {
        HISTORY_DAYS: '2',
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MIN: '1000000',
        HTTP_MAX_CONNECTIONS: String(clients + 1000),
        WS_PER_KEY: String(clients + 100),
        WS_PER_ADDRESS: String(clients + 100),
        // Heartbeats and the idle timeout stay out of the measured minutes.
        WS_PING_MS: '600000',
        WS_IDLE_MS: '3600000',
      },
      { signal: ctx.signal, log: ctx.log, timeoutMs: 120_000 },
    );
    ctx.defer(() => service.stop().then(() => undefined));
    const call = apiCaller(service.url);
    const wsUrl = `${service.url.replace(/^http/, 'ws')}/api/v1/predict`;

    const { api_key: key } = await call('POST', '/api/v1/key/trial', {});
    ctx.log('training a 1-minute EURUSD model');
    const start = await call('POST', '/api/v1/train', { code: strategyCode(), symbol: 'EURUSD', timeframe: '1min' }, key);
    for (;;) {
      const job = await call('GET', `/api/v1/train/${start.job_id}`, undefined, key);
      if (job.status === 'done') break;
      if (job.status === 'failed') throw new Error(`train failed: ${job.error}`);
      await sleep(300);
    }
    await call('POST', '/api/v1/deploy', { model_name: 'Model 1', channels: ['sse'] }, key);
    await sleep(3000); // the host claims the deployment and starts the actor

    const run = readRunFile(service.dataDir);
    if (!run) throw new Error('no run file: cannot reach the service NATS');
    const bus = await connectBus(run.natsUrl, 'bench-ws', createLogger('silent'));
    ctx.defer(() => bus.close().catch(() => undefined));
    const predictions = await predictionClient(wsUrl, key, 'Model 1');
    ctx.defer(() => predictions.close());

    // Bars after every stored one (the synthetic feed writes up to now), continuing its price.
    const latest = await call('GET', '/api/v1/ohlc?symbol=EURUSD&timeframe=1min&limit=1', undefined, key);
    let price = latest.candles.at(-1).close as number;
    let nextTs = (Math.floor(Date.now() / MINUTE) + 5) * MINUTE;
    const published = new Map<number, number>();
    const publishBar = () => {
      const ts = nextTs;
      nextTs += MINUTE;
      const open = price;
      price = Math.round(price * (1 + (Math.random() - 0.5) * 4e-4) * 1e5) / 1e5;
      const bar: BarMessage = {
        symbol: 'EURUSD',
        timeframe: '1min',
        ts,
        open,
        high: Math.max(open, price) + 2e-5,
        low: Math.min(open, price) - 2e-5,
        close: price,
        volume: 50,
        ticks: 50,
        spread: 1e-5,
        source: 'live',
      };
      published.set(ts, now());
      bus.nc.publish('bars.EURUSD.1min', JSON.stringify(bar));
      return ts;
    };
    const predictionLatencies = (tss: number[]) =>
      tss.flatMap((ts) => (predictions.arrivals.has(ts) ? [predictions.arrivals.get(ts)! - published.get(ts)!] : []));

    ctx.log(`phase 1: ${Math.ceil(bars / 2)} bars, no crowd`);
    const quiet: number[] = [];
    for (let i = 0; i < Math.ceil(bars / 2); i++) {
      quiet.push(publishBar());
      await sleep(paceMs);
    }
    await sleep(1000);
    const quietPred = predictionLatencies(quiet);

    const rssBefore = rssKb(service.pid);
    ctx.log(`connecting ${clients} clients from ${workers} processes`);
    const connectStarted = performance.now();
    const crowdClients = await startCrowd(wsUrl, key, clients, workers, ctx.defer);
    const connectMs = Math.round(performance.now() - connectStarted);
    ctx.log(`${clients} clients subscribed in ${connectMs} ms`);
    await sleep(5000);
    const rssIdle = rssKb(service.pid);

    ctx.log(`phase 2: ${bars} bars to ${clients} clients, one every ${paceMs} ms`);
    const crowd: number[] = [];
    for (let i = 0; i < bars; i++) {
      crowd.push(publishBar());
      await sleep(paceMs);
    }
    await sleep(2000);
    const rssAfter = rssKb(service.pid);
    const { lastPerBar, every, incomplete } = await crowdClients.collect(published, crowd);
    const crowdPred = predictionLatencies(crowd);
    // The service goes before the baseline, so that it does not share the cores with it.
    predictions.close();
    await bus.close().catch(() => undefined);
    await service.stop();

    ctx.log(`baseline: a bare ws server in this process, the same ${clients} clients`);
    const bare = await bareWsBaseline(clients, workers, Math.min(bars, 20), paceMs, ctx.defer);
    const perConnKb = Math.round(((rssIdle - rssBefore) / clients) * 100) / 100;

    return [
      {
        name: 'bar-close-to-last-client',
        clients,
        client_processes: workers,
        bars: crowd.length,
        bars_not_received_by_all: incomplete,
        p50_ms: pct(lastPerBar, 0.5),
        p99_ms: pct(lastPerBar, 0.99),
        max_ms: pct(lastPerBar, 1),
        every_delivery_p50_ms: pct(every, 0.5),
        every_delivery_p99_ms: pct(every, 0.99),
        connect_all_ms: connectMs,
        baseline_bare_ws: {
          bars: bare.lastPerBar.length,
          not_received_by_all: bare.incomplete,
          p50_ms: pct(bare.lastPerBar, 0.5),
          p99_ms: pct(bare.lastPerBar, 0.99),
          every_delivery_p50_ms: pct(bare.every, 0.5),
        },
        goal_p99_ms: 100,
        met: incomplete === 0 && (pct(lastPerBar, 0.99) ?? Infinity) <= 100,
      },
      {
        name: 'edge-rss-per-idle-connection',
        clients,
        rss_mb_before: Math.round(rssBefore / 1024),
        rss_mb_idle_connected: Math.round(rssIdle / 1024),
        rss_mb_after_bars: Math.round(rssAfter / 1024),
        kb_per_connection: perConnKb,
        goal_kb: 20,
        met: perConnKb <= 20,
      },
      {
        name: 'bar-close-to-prediction-frame',
        quiet: {
          bars: quiet.length,
          frames: quietPred.length,
          p50_ms: pct(quietPred, 0.5),
          p99_ms: pct(quietPred, 0.99),
          max_ms: pct(quietPred, 1),
        },
        with_crowd: {
          clients,
          bars: crowd.length,
          frames: crowdPred.length,
          p50_ms: pct(crowdPred, 0.5),
          p99_ms: pct(crowdPred, 0.99),
          max_ms: pct(crowdPred, 1),
        },
        goal_p99_ms: 50,
        met: quietPred.length > 0 && (pct(quietPred, 0.99) ?? Infinity) <= 50,
      },
    ];
  },
};
