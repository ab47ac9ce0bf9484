import { buildIngestHost } from '../../actors/bar-builder/index.ts';
import { buildFeedHost } from '../../actors/feed/index.ts';
import { SignalRecorder, UsageRecorder } from '../../actors/recorder/index.ts';
import { ensureStream, openBucket } from '../bus/index.ts';
import { BarsRepo, SignalsRepo, TicksRepo, UsageRepo } from '../store/index.ts';
import { Buckets, Streams } from '../../schemas/messages.ts';
import { ownParts, type RoleContext, type RoleParts } from './context.ts';
import { baseChecks, roleCommand } from './kit.ts';
import type { IngestHost } from '../../actors/bar-builder/index.ts';
import type { FeedHost } from '../../actors/feed/index.ts';

export interface IngestParts extends RoleParts {
  ingest: IngestHost;
  feeds: FeedHost;
}

/**
 * The one path every tick takes, in `serve` as in `signalforge ingest`: the feeds (synthetic
 * market, OANDA: one active copy each by lease; Kafka: a consumer group) publish to the TICKS
 * stream, beside any outside publisher on `ticks.<SYMBOL>`; bars are built from that stream, one
 * writer per symbol (leases). Beside them the recorders: every signal into ClickHouse (a durable
 * consumer shared by every copy) and every credit change into the usage history.
 */
export function buildIngest(ctx: RoleContext): Promise<IngestParts> {
  return ownParts(ctx, async (own) => {
    const { config, log, bus } = ctx;
    const clickhouse = await ctx.store();
    // The recorder may start before any model host made the stream it reads.
    await ensureStream(bus, Streams.signals, config.NATS_REPLICAS);
    const recorder = new SignalRecorder({ bus, repo: new SignalsRepo(clickhouse), log });
    await recorder.start();
    own.push(() => recorder.stop());
    // A second copy only repeats rows, which replace themselves.
    const [credits, cursor] = await Promise.all([
      openBucket(bus, Buckets.credits, config.NATS_REPLICAS),
      openBucket(bus, Buckets.usageCursor, config.NATS_REPLICAS),
    ]);
    const usage = new UsageRecorder({ credits, cursor, repo: new UsageRepo(clickhouse), log });
    await usage.start();
    own.push(() => usage.stop());
    const market = { ticks: new TicksRepo(clickhouse), bars: new BarsRepo(clickhouse) };
    const ingest = await buildIngestHost({ bus, market, log, replicas: config.NATS_REPLICAS, graceMs: config.BAR_GRACE_MS });
    own.push(() => ingest.stop());
    // The tick feeds, one active copy of each (lease), publishing to the stream the bars are built from.
    const feeds = await buildFeedHost({ bus, market, config, log });
    own.push(() => feeds.stop());
    return {
      ingest,
      feeds,
      stats: () => {
        const built = ingest.stats();
        return {
          signalforge_ticks_resampled_total: built.ticks,
          signalforge_ticks_late_total: built.late,
          signalforge_ticks_future_total: built.future,
          signalforge_ticks_stored_total: built.storedTicks,
          signalforge_ticks_store_failed_total: built.failedTicks,
          signalforge_bars_closed_total: built.bars,
          signalforge_bars_stored_total: built.storedBars,
          signalforge_ingest_symbols: ingest.symbols().length,
          signalforge_signals_recorded_total: recorder.stats().stored,
          signalforge_usage_recorded_total: usage.stats().stored,
          ...feeds.metrics(),
        };
      },
    };
  });
}

/**
 * `signalforge ingest`: the feeds, bar building and the recorders (buildIngest). Its /_metrics
 * (HEALTH_PORT) says which feeds publish from here and what was built.
 */
export const startIngestRole = roleCommand('ingest', async (ctx) => {
  const parts = await buildIngest(ctx);
  return {
    parts,
    checks: baseChecks(ctx.bus, await ctx.store()),
    running: {
      host: parts.ingest.host.hostId,
      symbols: parts.ingest.symbols(),
      feeds: parts.feeds.configured,
      feed_host: parts.feeds.host.hostId,
    },
  };
});
