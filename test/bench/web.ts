/**
 * The web app in headless Chromium (Debian's, driven by playwright-core) against the real service:
 * - home-first-load: HTML + JS + CSS bytes on the wire, brotli as a browser asks (goal ≤ 300 KB);
 * - home-interactive: navigation start → the idea box's chips are in place with their handlers
 *   (the presets fetched and drawn; the page's `sf:interactive` mark), cold cache, fresh profile
 *   each run (goal ≤ 1 s);
 * - model-page-render: navigation start → the model page drew everything, for a model with a year
 *   of 15-min bars and 1,000 trades (goal ≤ 1 s). The bars are the service's own (a year of
 *   synthetic history, fetched by the page from GET /ohlc); the results document, 1,000 trades on
 *   those bars, is handed to the page by request interception (no strategy trades exactly 1,000);
 * - pulse-first-byte: GET /pulse with 200 events in the feed, request → response headers (goal ≤ 50 ms).
 */
import { request } from 'node:http';
import type { Route } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.ts';
import { startTestService } from '../helpers/service.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { numberOption, type Benchmark } from './lib/types.ts';

const GOALS = { homeKb: 300, interactiveMs: 1_000, modelMs: 1_000, pulseTtfbMs: 50 };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Bytes of a response body as sent (not decoded), asking for brotli like a browser. */
function wireBytes(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { 'accept-encoding': 'br, gzip' } }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve(bytes));
    })
      .on('error', reject)
      .end();
  });
}

/** Milliseconds from sending a GET to its response headers. */
function timeToFirstByte(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    request(url, (res) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (res.statusCode !== 200) reject(new Error(`${url}: HTTP ${res.statusCode}`));
      res.resume();
      res.on('end', () => resolve(ms));
    })
      .on('error', reject)
      .end();
  });
}

type Bar = { timestamp: string; open: number; close: number };

/** Every 15-min EURUSD bar the service has, oldest first (paged by runs of 50 days). */
async function allBars(url: string, key: string): Promise<Bar[]> {
  const bars: Bar[] = [];
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  for (let t = Date.now() - 400 * 86_400_000; t <= Date.now(); t += 50 * 86_400_000) {
    const res = await fetch(`${url}/api/v1/ohlc?symbol=EURUSD&timeframe=15min&start=${day(t)}&end=${day(t + 49 * 86_400_000)}&limit=5000`, {
      headers: { 'x-api-key': key },
    });
    const { candles } = (await res.json()) as { candles: Bar[] };
    bars.push(...candles);
  }
  return bars;
}

function resultsFor(bars: Bar[], tradeCount: number) {
  const stats = {
    n: tradeCount,
    wins: tradeCount / 2,
    losses: tradeCount / 2,
    wr: 0.5,
    ret: 0.05,
    pf: 1.1,
    rr: 1.1,
    expect: 5,
    mdd: -0.04,
    np: 500,
    avg: 0.0005,
    best: 0.01,
    worst: -0.01,
  };
  const split = Math.floor(bars.length * 0.7);
  const step = Math.floor(bars.length / tradeCount);
  const trade_log = Array.from({ length: tradeCount }, (_, i) => {
    const entry = bars[i * step]!;
    const exit = bars[i * step + Math.floor(step / 2)]!;
    const side = i % 2 ? 'short' : 'long';
    const pnl = (exit.close - entry.open) * 100_000 * (side === 'long' ? 1 : -1);
    return {
      side,
      entry_time: entry.timestamp,
      exit_time: exit.timestamp,
      entry_price: entry.open,
      exit_price: exit.close,
      lots: 1,
      units: 100_000,
      exit_reason: i % 3 ? 'signal' : 'TP',
      pips: pnl / 10,
      gross_pnl: pnl,
      commission: 7,
      swap: 0,
      pnl: pnl - 7,
      bars_held: 10,
      margin: null,
      stop_loss: entry.open - (side === 'long' ? 1 : -1) * 0.002,
      take_profit: entry.open + (side === 'long' ? 1 : -1) * 0.004,
      period: i * step < split ? 'train' : 'test',
    };
  });
  const test = bars.slice(split);
  const every = Math.max(1, Math.floor(test.length / 1000));
  const curve = test.filter((_, i) => i % every === 0);
  return {
    model: '1_EURUSD_15min_Bench',
    model_name: 'Bench',
    symbol: 'EURUSD',
    timeframe: '15min',
    source: 'synthetic',
    model_type: 'XGBClassifier',
    title: 'A year, 1,000 trades',
    trained_at: new Date().toISOString(),
    features: ['rsi_14'],
    warmup: 50,
    settings: { risk_unit: 'pips', stop_loss: 20, take_profit: 40, confidence_threshold: 0.55, train_split: 0.7 },
    spans: {
      train: { from: bars[0]!.timestamp, to: bars[split - 1]!.timestamp, bars: split },
      test: { from: bars[split]!.timestamp, to: bars[bars.length - 1]!.timestamp, bars: bars.length - split },
      post_cutoff: null,
    },
    metrics: { train: stats, test: stats, long: stats, short: stats },
    accuracy: { train: 0.55, test: 0.51 },
    trade_log,
    equity_curve: curve.map((b, i) => ({ time: b.timestamp, equity: 10_000 + i })),
    drawdown: curve.map((b) => ({ time: b.timestamp, drawdown: -0.01 })),
    confusion_matrix: {
      labels: ['down', 'up'],
      matrix: [
        [10, 5],
        [5, 10],
      ],
    },
    feature_importance: [{ feature: 'rsi_14', importance: 1 }],
    rolling_accuracy: [],
    pred_trade_log: [],
    pred_signals: [],
    pred_stats: null,
    warnings: [],
  };
}

export const benchmark: Benchmark = {
  name: 'web',
  description: `Web app in headless Chromium: home first load compressed (goal ≤ ${GOALS.homeKb} KB) and interactive (≤ ${GOALS.interactiveMs} ms); model page with a year of 15-min bars and 1,000 trades rendered (≤ ${GOALS.modelMs} ms); /pulse first byte (≤ ${GOALS.pulseTtfbMs} ms)`,
  async run(ctx) {
    const runs = numberOption(ctx, 'web-runs', 5);
    const sf = await startTestService({
      HISTORY_DAYS: '365',
      RATE_LIMIT_PER_MIN: '1000000',
      TRIAL_MINTS_PER_HOUR: '100',
      ANON_RATE_BURST: '100000',
      ANON_RATE_PER_MIN: '1000000',
    });
    ctx.defer(() => sf.stop());
    const browser = await launchBrowser();
    ctx.defer(() => browser.close());
    const results = [];

    // First load: the HTML and every script and stylesheet it names.
    const html = await (await fetch(`${sf.url}/`)).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    const sizes = await Promise.all([`${sf.url}/`, ...assets.map((a) => sf.url + a)].map(wireBytes));
    const kb = sizes.reduce((a, b) => a + b, 0) / 1024;
    results.push({ name: 'home-first-load', compressed_kb: round(kb), files: sizes.length, goal_kb: GOALS.homeKb, ok: kb <= GOALS.homeKb });

    const interactive: number[] = [];
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${sf.url}/`, { waitUntil: 'commit' });
      await page.waitForSelector('#chips button');
      interactive.push(await page.evaluate(() => performance.getEntriesByName('sf:interactive')[0]!.startTime));
      await context.close();
    }
    results.push({
      name: 'home-interactive',
      median_ms: round(median(interactive)),
      max_ms: round(Math.max(...interactive)),
      runs,
      goal_ms: GOALS.interactiveMs,
      ok: median(interactive) <= GOALS.interactiveMs,
    });

    // The model page, with a year of bars and 1,000 trades.
    const key = (await sf.mintKey()).api_key;
    const bars = await allBars(sf.url, key);
    const body = JSON.stringify(resultsFor(bars, 1_000));
    const codeBody = JSON.stringify({ model: '1_EURUSD_15min_Bench', model_name: 'Bench', code: strategyCode() });
    const rendered: number[] = [];
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addInitScript((k) => localStorage.setItem('sf_api_key', k), key);
      await context.route('**/api/v1/results/**', (route: Route) => route.fulfill({ contentType: 'application/json', body }));
      await context.route('**/api/v1/models/*/code', (route: Route) => route.fulfill({ contentType: 'application/json', body: codeBody }));
      const page = await context.newPage();
      await page.goto(`${sf.url}/models/1_EURUSD_15min_Bench`, { waitUntil: 'commit' });
      await page.waitForSelector('body[data-ready="1"]', { timeout: 30_000 });
      // The page marks the moment it has drawn everything (polling for it would add its own lag).
      rendered.push(await page.evaluate(() => performance.getEntriesByName('sf:drawn')[0]!.startTime));
      ctx.log(
        `model page: ${JSON.stringify(await page.evaluate(() => [...performance.getEntriesByType('mark'), ...performance.getEntriesByType('navigation')].map((e) => [e.name, Math.round(e.startTime + ('responseEnd' in e ? (e as PerformanceNavigationTiming).domInteractive : 0))])))}`,
      );
      const drawn = await page.$eval('#candles', (el) => ({ ...(el as HTMLElement).dataset }));
      if (Number(drawn.candles) !== bars.length || Number(drawn.markers) !== 2_000)
        throw new Error(`model page drew ${JSON.stringify(drawn)}`);
      await context.close();
    }
    results.push({
      name: 'model-page-render',
      bars: bars.length,
      trades: 1_000,
      median_ms: round(median(rendered)),
      max_ms: round(Math.max(...rendered)),
      runs,
      goal_ms: GOALS.modelMs,
      ok: median(rendered) <= GOALS.modelMs,
    });

    // /pulse with a full first page.
    for (let i = 0; i < 200; i++) {
      await sf.service.domain.activity.bus.emit({
        kind: 'TRAINED',
        bot: `bench-${i % 7}`,
        model: { name: `Model ${i}`, symbol: 'EURUSD', timeframe: '15min' },
        metrics: { n: 10, wr: 0.5, ret: 0.01, pf: 1.2 },
      });
    }
    await new Promise((r) => setTimeout(r, 500));
    const ttfb: number[] = [];
    for (let i = 0; i < 300; i++) ttfb.push(await timeToFirstByte(`${sf.url}/pulse`));
    const warm = ttfb.slice(20);
    results.push({
      name: 'pulse-first-byte',
      events: 200,
      p50_ms: round(percentile(warm, 50), 2),
      p95_ms: round(percentile(warm, 95), 2),
      first_ms: round(ttfb[0]!, 2),
      requests: ttfb.length,
      goal_ms: GOALS.pulseTtfbMs,
      ok: percentile(warm, 95) <= GOALS.pulseTtfbMs,
    });
    for (const r of results) ctx.log(JSON.stringify(r));
    return results;
  },
};
