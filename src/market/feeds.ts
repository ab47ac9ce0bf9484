import { openBucket, type Bus } from '../bus/index.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { SYMBOLS } from '../../schemas/common.ts';
import { Buckets } from '../../schemas/messages.ts';
import { startKafkaTickSource, startOandaStream, type LiveSourceStats } from './sources/index.ts';
import { SyntheticMarket, type SyntheticMarketDeps } from './synthetic/synthetic-market.ts';
import type { TickSink } from './tick-sink.ts';

/** The tick feeds a configuration may ask for (NATS `ticks.<SYMBOL>` is not one: it is where feeds publish). */
export type FeedName = 'synthetic' | 'kafka' | 'oanda';
export type LiveFeedName = Exclude<FeedName, 'synthetic'>;

/** What the Kafka consumer and the OANDA stream are started with. */
export type LiveFeedConfig = Pick<
  Config,
  'KAFKA_BROKERS' | 'KAFKA_TOPIC' | 'KAFKA_GROUP' | 'OANDA_TOKEN' | 'OANDA_ACCOUNT_ID' | 'OANDA_STREAM_URL'
>;
export type FeedsConfig = LiveFeedConfig &
  Pick<Config, 'MARKET_FEED' | 'HISTORY_DAYS' | 'SYNTHETIC_SEED' | 'SYNTHETIC_TICK_DAYS' | 'NATS_REPLICAS'>;

/** The feeds this configuration runs: the synthetic market with MARKET_FEED=synthetic, Kafka with KAFKA_BROKERS, OANDA with its token and account. */
export function configuredFeeds(
  config: Partial<Pick<FeedsConfig, 'MARKET_FEED'>> & Pick<LiveFeedConfig, 'KAFKA_BROKERS' | 'OANDA_TOKEN' | 'OANDA_ACCOUNT_ID'>,
): FeedName[] {
  const feeds: FeedName[] = [];
  if (config.MARKET_FEED === 'synthetic') feeds.push('synthetic');
  if (config.KAFKA_BROKERS) feeds.push('kafka');
  if (config.OANDA_TOKEN && config.OANDA_ACCOUNT_ID) feeds.push('oanda');
  return feeds;
}

export interface Feed<S = object> {
  stats(): S;
  stop(): Promise<void>;
}

export interface FeedDeps {
  bus: Bus;
  /** Where the synthetic market stores the history it builds on its first start. */
  data: Pick<SyntheticMarketDeps, 'ticks' | 'bars'>;
  sink: TickSink;
  log: Logger;
  config: FeedsConfig;
  /**
   * How long Kafka waits for a silent group member before giving its partitions to another
   * (kafkajs's default, 30 s, when unset): `ingest` shortens it so a dead copy's partitions move
   * within its failover bound.
   */
  kafkaSessionTimeoutMs?: number;
}

/** Starts the Kafka consumer or the OANDA pricing stream, writing to `sink`: `serve` and `ingest` start them here. */
export async function startLiveFeed(
  name: LiveFeedName,
  { sink, log, config, kafkaSessionTimeoutMs }: Pick<FeedDeps, 'sink' | 'log' | 'kafkaSessionTimeoutMs'> & { config: LiveFeedConfig },
): Promise<Feed<LiveSourceStats>> {
  if (name === 'kafka') {
    if (!config.KAFKA_BROKERS) throw new Error('the kafka feed needs KAFKA_BROKERS');
    return startKafkaTickSource({
      brokers: config.KAFKA_BROKERS.split(','),
      topic: config.KAFKA_TOPIC,
      groupId: config.KAFKA_GROUP,
      sink,
      log,
      ...(kafkaSessionTimeoutMs ? { sessionTimeoutMs: kafkaSessionTimeoutMs } : {}),
    });
  }
  if (!config.OANDA_TOKEN || !config.OANDA_ACCOUNT_ID) throw new Error('the oanda feed needs OANDA_TOKEN and OANDA_ACCOUNT_ID');
  return startOandaStream({ streamUrl: config.OANDA_STREAM_URL, token: config.OANDA_TOKEN, accountId: config.OANDA_ACCOUNT_ID, sink, log });
}

/** Starts one feed writing to `sink` (the bar builder's in `serve`, a FeedPublisher in `ingest`). */
export async function startFeed(name: FeedName, deps: FeedDeps): Promise<Feed> {
  if (name !== 'synthetic') return startLiveFeed(name, deps);
  const synthetic = await startSyntheticMarket(deps);
  return { stats: () => ({}), stop: () => synthetic.stop() };
}

export type SyntheticDeps = Pick<FeedDeps, 'bus' | 'data' | 'sink' | 'log'> & {
  config: Pick<Config, 'HISTORY_DAYS' | 'SYNTHETIC_SEED' | 'SYNTHETIC_TICK_DAYS' | 'NATS_REPLICAS'>;
};

/** Builds (first start) or resumes the synthetic market; resolves once its history is ready. */
export async function startSyntheticMarket({ bus, data, sink, log, config }: SyntheticDeps): Promise<SyntheticMarket> {
  const synthetic = new SyntheticMarket({
    ticks: data.ticks,
    bars: data.bars,
    checkpoints: await openBucket(bus, Buckets.synthetic, config.NATS_REPLICAS),
    sink,
    log,
    seed: config.SYNTHETIC_SEED,
    historyDays: config.HISTORY_DAYS,
    tickDays: config.SYNTHETIC_TICK_DAYS,
  });
  await synthetic.start(SYMBOLS);
  return synthetic;
}
