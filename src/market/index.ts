import type { Bus } from '../bus/index.ts';
import type { Logger } from '../log.ts';
import { BarsRepo, TicksRepo, type ClickHouseClient } from '../store/index.ts';
import { BarCache } from './bar-cache.ts';

export { BarCache } from './bar-cache.ts';
export { BarSeries } from './bar-series.ts';
export { StreamingResampler, type ResamplerStats } from './resampler.ts';
export { INSTRUMENTS, instrument, type Instrument } from '../lib/instruments.ts';
export { TIMEFRAME_MS, bucketOf } from '../lib/timeframes.ts';
export type { TickSink, SourceStats } from './tick-sink.ts';
export { TickSequencer } from './tick-sink.ts';
export { decodeTicks, tickVolume } from './sources/tick-decoder.ts';
export { countTickRecords, decodeTickPayload, decodeTickPayloadInto, TickTopic } from './sources/tick-payload.ts';
export { encodeTickFrame, isTickFrame } from './sources/tick-frame.ts';
export { writeColumns } from './tick-sink.ts';
export { SyntheticMarket } from './synthetic/synthetic-market.ts';
export { ohlcJson, queryWindow } from './ohlc-query.ts';
export { sourceMix } from './source-mix.ts';
export { NatsBarLoader, serveBarPages } from './bar-pages.ts';
export { TickImporter } from './tick-importer.ts';
export {
  configuredFeeds,
  startFeed,
  startSyntheticMarket,
  type Feed,
  type FeedName,
  type FeedsConfig,
  type SyntheticDeps,
} from './feeds.ts';
export { FeedPublisher, type FeedPublisherStats } from './feed-publisher.ts';
export { CLOCK_EVERY_MS, FeedClocks } from './feed-clocks.ts';
export { describeImport, runImport } from './import-client.ts';

export interface MarketData {
  ticks: TicksRepo;
  bars: BarsRepo;
  cache: BarCache;
}

/** The stores and the read cache: what every role that reads market data needs. */
export function openMarketData(bus: Bus, clickhouse: ClickHouseClient, log: Logger): MarketData {
  const bars = new BarsRepo(clickhouse);
  const cache = new BarCache(bars, bus, log);
  cache.start();
  return { ticks: new TicksRepo(clickhouse), bars, cache };
}
