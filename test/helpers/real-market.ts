/**
 * Unit-level tests of the strategy path without the whole service: a real nats-server and a real
 * chdb store in a temp dir, real HistData EURUSD 1-minute bid bars (../shared/data/fx) stored as
 * 1-minute and 15-minute bars, the bar cache over them, and a train job record as the API writes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBucket, type Bus } from '../../src/bus/index.ts';
import { TIMEFRAME_MS } from '../../src/lib/timeframes.ts';
import { BarCache } from '../../src/market/index.ts';
import type { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import { BarsRepo, openClickHouse, type ClickHouseClient } from '../../src/store/index.ts';
import { JobStore, ModelStore, Training, TrainQueue, type TrainOutcome } from '../../src/training/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import type { Timeframe } from '../../schemas/common.ts';
import type { BarMessage } from '../../schemas/market.ts';
import type { DeploymentRecord } from '../../schemas/live.ts';
import { TrainJobRequest, type JobRecord, type ModelRecord, type TrainRequest } from '../../schemas/training.ts';
import { log, startNats } from './nats.ts';
import { loadBars } from './strategy-bars.ts';

export { log };

export interface RealMarket {
  bus: Bus;
  clickhouse: ClickHouseClient;
  repo: BarsRepo;
  cache: BarCache;
  /** The stored bars of a timeframe, oldest first. */
  stored: Record<'1min' | '15min', BarMessage[]>;
  close(): Promise<void>;
}

/** Real 1-minute bars (HistData has bid only: a fixed 0.2-pip spread) and their 15-minute bars. */
function realBars(minutes: number): Record<'1min' | '15min', BarMessage[]> {
  const m = loadBars('EURUSD', '1min', minutes);
  const bar = (timeframe: Timeframe, i: number): BarMessage => ({
    symbol: 'EURUSD',
    timeframe,
    ts: m.ts[i]!,
    open: m.open[i]!,
    high: m.high[i]!,
    low: m.low[i]!,
    close: m.close[i]!,
    volume: 1,
    ticks: 1,
    spread: 0.00002,
    source: 'import',
  });
  const one = Array.from(m.ts, (_, i) => bar('1min', i));
  const quarter: BarMessage[] = [];
  for (let i = 0; i < one.length; i++) {
    const b = one[i]!;
    const ts = Math.floor(b.ts / TIMEFRAME_MS['15min']) * TIMEFRAME_MS['15min'];
    const last = quarter.at(-1);
    if (last && last.ts === ts) {
      last.high = Math.max(last.high, b.high);
      last.low = Math.min(last.low, b.low);
      last.close = b.close;
      last.volume += 1;
      last.ticks += 1;
    } else quarter.push({ ...b, timeframe: '15min', ts });
  }
  return { '1min': one, '15min': quarter };
}

/** NATS, chdb and the bar cache over the first `minutes` real 1-minute bars of 2017. */
export async function openRealMarket(minutes = 60_000): Promise<RealMarket> {
  const dir = mkdtempSync(join(tmpdir(), 'sf-real-market-'));
  const nats = await startNats('real-market');
  const { bus } = nats;
  const clickhouse = await openClickHouse({ path: join(dir, 'clickhouse'), log });
  const repo = new BarsRepo(clickhouse);
  const stored = realBars(minutes);
  await repo.insert(stored['1min']);
  await repo.insert(stored['15min']);
  const cache = new BarCache(repo, bus, log);
  cache.start();
  return {
    bus,
    clickhouse,
    repo,
    cache,
    stored,
    async close() {
      cache.stop();
      await clickhouse.close();
      await nats.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let jobs = 0;

/** A queued train job as POST /train records it (user 7), for `request` (parsed with its defaults). */
export function trainJob(request: Partial<TrainRequest> & Pick<TrainRequest, 'code'>): JobRecord {
  const parsed = TrainJobRequest.parse(request);
  const jobId = ++jobs;
  const modelName = parsed.model_name ?? `Model ${jobId}`;
  return {
    job_id: jobId,
    user_id: 7,
    username: 'tester',
    status: 'running',
    model_name: modelName,
    model_stem: `7_${parsed.symbol}_${parsed.timeframe}_${modelName}`,
    request: parsed,
    created_at: Date.UTC(2017, 8, 1),
    started_at: Date.UTC(2017, 8, 1),
    finished_at: null,
    stage: null,
    attempts: 1,
    cap_counted_at: Date.UTC(2017, 8, 1),
  };
}

/** The SSE-only deployment of a trained model that the replay (live = backtest) tests run an actor for. */
export function replayDeployment(record: ModelRecord, deploymentId: string): DeploymentRecord {
  return {
    deployment_id: deploymentId,
    user_id: record.user_id,
    username: record.username,
    model_name: record.model_name,
    stem: record.stem,
    symbol: record.symbol,
    timeframe: record.timeframe,
    channels: ['sse'],
    webhook_url: null,
    webhook_secret: null,
    messenger_chat_id: null,
    created_at: 0,
  };
}

/**
 * /predict of a trained outcome: the model saved (with `code`) in the market's model store, and a
 * Training that predicts only (it never submits, so its cap metering is never asked).
 */
export async function predictOnly(market: RealMarket, runtime: StrategyRuntime, outcome: TrainOutcome, code: string): Promise<Training> {
  const { bus } = market;
  const models = await ModelStore.open(bus, await openBucket(bus, Buckets.models), await openBucket(bus, Buckets.signals));
  await models.save(outcome.record, { onnx: outcome.onnx, code, results: outcome.results });
  const unused = () => Promise.reject(new Error('not used by predict'));
  return new Training({
    jobs: new JobStore(await openBucket(bus, Buckets.jobs), await openBucket(bus, Buckets.counters)),
    models,
    queue: await TrainQueue.open(bus, { ackWaitMs: 30_000 }),
    metering: { useCap: unused, releaseCap: unused },
    bars: market.cache,
    runtime,
    log,
  });
}
