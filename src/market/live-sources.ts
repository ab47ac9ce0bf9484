import type { Bus } from '../bus/index.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { startKafkaTickSource, startNatsTickSource, startOandaStream, type LiveSourceStats } from './sources/index.ts';
import type { TickSink } from './tick-sink.ts';

export interface LiveSources {
  stats(): Record<string, LiveSourceStats>;
  stop(): Promise<void>;
}

export type LiveSourcesConfig = Pick<
  Config,
  'KAFKA_BROKERS' | 'KAFKA_TOPIC' | 'KAFKA_GROUP' | 'OANDA_TOKEN' | 'OANDA_ACCOUNT_ID' | 'OANDA_STREAM_URL'
>;

/**
 * The live tick sources this configuration asks for, all writing to the bar builder's `live`
 * sink: NATS `ticks.<SYMBOL>` always; Kafka with KAFKA_BROKERS; OANDA's pricing stream with
 * OANDA_TOKEN and OANDA_ACCOUNT_ID.
 */
export async function startLiveSources(bus: Bus, sink: TickSink, config: LiveSourcesConfig, log: Logger): Promise<LiveSources> {
  const sources: Record<string, { stats(): LiveSourceStats; stop(): Promise<void> | void }> = {
    // Deep per-symbol buffers ride out the pauses while a large batch is stored (~100 ms).
    nats: startNatsTickSource({ nc: bus.nc, sink, log, maxPending: 200_000 }),
  };
  if (config.KAFKA_BROKERS) {
    sources.kafka = await startKafkaTickSource({
      brokers: config.KAFKA_BROKERS.split(','),
      topic: config.KAFKA_TOPIC,
      groupId: config.KAFKA_GROUP,
      sink,
      log,
    });
  }
  if (config.OANDA_TOKEN && config.OANDA_ACCOUNT_ID) {
    sources.oanda = startOandaStream({
      streamUrl: config.OANDA_STREAM_URL,
      token: config.OANDA_TOKEN,
      accountId: config.OANDA_ACCOUNT_ID,
      sink,
      log,
    });
  }
  log.info({ sources: Object.keys(sources) }, 'live tick sources started');
  return {
    stats: () => Object.fromEntries(Object.entries(sources).map(([name, s]) => [name, s.stats()])),
    async stop() {
      await Promise.all(Object.values(sources).map((s) => s.stop()));
    },
  };
}
