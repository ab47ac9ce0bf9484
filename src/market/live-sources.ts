import type { Bus } from '../bus/index.ts';
import type { Logger } from '../log.ts';
import { configuredFeeds, startLiveFeed, type LiveFeedConfig } from './feeds.ts';
import { startNatsTickSource, type LiveSourceStats } from './sources/index.ts';
import { echoTicks } from './tick-echo.ts';
import type { TickSink } from './tick-sink.ts';

export interface LiveSources {
  stats(): Record<string, LiveSourceStats>;
  /**
   * The sources' counters as Prometheus samples, by name: per source received, accepted,
   * malformed, dropped (the sink refused), late, shed (refused undecoded under overload) and
   * queued; shed also per symbol, as `signalforge_source_<source>_symbol_shed_total{symbol="…"}`.
   */
  metrics(): Record<string, number>;
  stop(): Promise<void>;
}

export type LiveSourcesConfig = LiveFeedConfig;

/**
 * The live tick sources this configuration asks for, all writing to the bar builder's `live`
 * sink: NATS `ticks.<SYMBOL>` always; Kafka with KAFKA_BROKERS; OANDA's pricing stream with
 * OANDA_TOKEN and OANDA_ACCOUNT_ID (those two echoed for the WebSocket `ticks` channel: tick-echo.ts).
 */
export async function startLiveSources(bus: Bus, sink: TickSink, config: LiveSourcesConfig, log: Logger): Promise<LiveSources> {
  const sources: Record<string, { stats(): LiveSourceStats; stop(): Promise<void> | void }> = {
    // The per-symbol queues (4 MiB of payload each, about 80 000 ticks) ride out the pauses
    // while a large batch is stored; beyond them, messages are shed undecoded.
    nats: startNatsTickSource({ nc: bus.nc, sink, log }),
  };
  // The feeds' ticks are told to the WebSocket `ticks` channel too; those on `ticks.<SYMBOL>` reach it by themselves.
  const feedSink = echoTicks(bus, sink);
  for (const name of configuredFeeds(config))
    if (name !== 'synthetic') sources[name] = await startLiveFeed(name, { sink: feedSink, log, config });
  log.info({ sources: Object.keys(sources) }, 'live tick sources started');
  const stats = () => Object.fromEntries(Object.entries(sources).map(([name, s]) => [name, s.stats()]));
  return {
    stats,
    metrics: () => sourceMetrics(stats()),
    async stop() {
      await Promise.all(Object.values(sources).map((s) => s.stop()));
    },
  };
}

/** Prometheus samples for each source's counters (see LiveSources.metrics). */
export function sourceMetrics(stats: Record<string, LiveSourceStats>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [source, s] of Object.entries(stats)) {
    const prefix = `signalforge_source_${source}`;
    out[`${prefix}_received_total`] = s.received;
    out[`${prefix}_accepted_total`] = s.accepted;
    out[`${prefix}_malformed_total`] = s.malformed;
    out[`${prefix}_dropped_total`] = s.dropped;
    out[`${prefix}_late_total`] = s.late;
    out[`${prefix}_shed_total`] = s.shed;
    out[`${prefix}_queued`] = s.queued;
    for (const [symbol, n] of Object.entries(s.shedBySymbol)) out[`${prefix}_symbol_shed_total{symbol="${symbol}"}`] = n;
  }
  return out;
}
