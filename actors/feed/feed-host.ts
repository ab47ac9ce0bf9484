import { ensureStream, type Bus } from '../../src/bus/index.ts';
import { LeaseHost, openClaims, type LeaseHolder } from '../../src/kernel/index.ts';
import type { Logger } from '../../src/log.ts';
import {
  configuredFeeds,
  FeedPublisher,
  startFeed,
  type Feed,
  type FeedName,
  type FeedPublisherStats,
  type FeedsConfig,
  type MarketData,
} from '../../src/market/index.ts';
import { SYMBOLS } from '../../schemas/common.ts';
import { Streams } from '../../schemas/messages.ts';

const LEASE_PREFIX = 'feed.';
const leaseKey = (feed: FeedName): string => `${LEASE_PREFIX}${feed}`;

/**
 * Kafka's consumer group already gives each partition to one member and hands a dead member's
 * partitions to the others (from the last committed offset): every ingest copy joins it, with a
 * session short enough for the failover bound, and no lease of ours on top (it would leave the
 * other copies' share idle and add the lease's expiry to Kafka's own).
 */
const UNLEASED: readonly FeedName[] = ['kafka'];
const KAFKA_SESSION_MS = 8_000;

export interface FeedHostDeps {
  bus: Bus;
  /** Where the synthetic market stores the history it builds on its very first start. */
  market: Pick<MarketData, 'ticks' | 'bars'>;
  config: FeedsConfig;
  log: Logger;
  renewMs?: number;
}

/**
 * One feed while this process holds its lease: its ticks published on `ticks.<SYMBOL>` (TICKS),
 * never once the lease may have passed to another process. The synthetic market, a deterministic
 * series resumed from its hourly checkpoint in KV, regenerates from there and publishes only the
 * ticks after the last one its predecessor stored, so the series goes on without a jump, a gap or
 * a repeat; OANDA's stream, which has no past, goes on from the prices of the moment.
 */
class FeedConnector implements LeaseHolder {
  private feed: Feed | null = null;

  constructor(
    private readonly name: FeedName,
    private readonly deps: FeedHostDeps,
    private readonly publisher: FeedPublisher,
  ) {}

  async start(): Promise<void> {
    const { bus, market, config, log } = this.deps;
    if (this.name === 'synthetic') await this.publisher.resumeAfterStream(SYMBOLS);
    log.info({ feed: this.name, resumed_after: this.publisher.resumedAfter() }, 'feed: publishing its ticks from this process');
    this.publisher.startClock();
    this.feed = await startFeed(this.name, {
      bus,
      data: market,
      sink: this.publisher,
      log,
      config,
      kafkaSessionTimeoutMs: KAFKA_SESSION_MS,
    });
  }

  async stop(): Promise<void> {
    await this.feed?.stop();
    this.feed = null;
    this.publisher.stopClock();
  }

  stats() {
    return { ...(this.feed?.stats() ?? {}), ...this.publisher.stats() };
  }
}

export interface FeedHost {
  host: LeaseHost<FeedName, FeedConnector>;
  /** The feeds this configuration runs, leased or not. */
  configured: readonly FeedName[];
  /** The feeds publishing from this process now. */
  active(): FeedName[];
  stats(): Partial<Record<FeedName, FeedPublisherStats & { active: boolean }>>;
  /** Per feed, as Prometheus samples: active here (0/1), ticks published, skipped and refused. */
  metrics(): Record<string, number>;
  stop(graceful?: boolean): Promise<void>;
}

/**
 * The configured tick feeds across ingest processes: one active connector per feed, claimed by
 * claim (`feed.<name>` in `sf_claims`, as symbols and deployments are), publishing to NATS; Kafka
 * on every copy through its consumer group. A process that dies stops renewing; another claims
 * its feeds once its heartbeat expires. SIGTERM releases them at once.
 */
export async function buildFeedHost(deps: FeedHostDeps): Promise<FeedHost> {
  const r = deps.config.NATS_REPLICAS;
  await ensureStream(deps.bus, Streams.ticks, r);
  const configured = configuredFeeds(deps.config);
  const leased = configured.filter((f) => !UNLEASED.includes(f));
  // One publisher per feed for the life of the process: its counters add up over every time this process held the feed.
  const publishers = new Map<FeedName, FeedPublisher>();
  const claims = await openClaims(deps.bus, r);
  const host: LeaseHost<FeedName, FeedConnector> = new LeaseHost<FeedName, FeedConnector>({
    names: { actor: 'feed connector', spec: 'feed', id: 'feed_lease' },
    desired: { follow: async () => ({ all: () => [...leased], stop: () => undefined }) },
    idOf: leaseKey,
    ...claims,
    create: async (name) => new FeedConnector(name, deps, publishers.get(name)!),
    log: deps.log,
    ...(deps.renewMs ? { renewMs: deps.renewMs } : {}),
  });
  for (const name of configured) {
    const mayPublish = leased.includes(name) ? () => host.leaseLeftMs(leaseKey(name)) > 0 : () => true;
    publishers.set(name, new FeedPublisher({ bus: deps.bus, feed: name, source: name === 'synthetic' ? 'synthetic' : 'live', mayPublish }));
  }
  const always = configured
    .filter((f) => !leased.includes(f))
    .map((name) => ({ name, connector: new FeedConnector(name, deps, publishers.get(name)!) }));
  try {
    for (const { connector } of always) await connector.start();
    await host.start();
  } catch (err) {
    await Promise.all(always.map(({ connector }) => connector.stop()));
    throw err;
  }
  // Started once every leased feed runs somewhere: here (the synthetic market's history built, its
  // live feed publishing) or in another copy that holds it. A process that serves no sooner than
  // its market exists, as `serve` always did.
  // A feed that keeps failing to start (its faults are logged by the host) holds the start up: said every 30 s.
  for (let polls = 1; ; polls++) {
    const waiting = leased.filter((name) => {
      const by = host.claimedBy(leaseKey(name));
      return by === null || (by === host.hostId && !host.runningIds().includes(leaseKey(name)));
    });
    if (waiting.length === 0) break;
    if (polls % 300 === 0) deps.log.warn({ feeds: waiting, waited_s: polls / 10 }, 'feeds: still waiting for these feeds to start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  // The unleased feeds run from start to stop; the leased ones while this host runs their connector.
  const active = (): FeedName[] => [
    ...always.map(({ name }) => name),
    ...host.runningIds().map((id) => id.slice(LEASE_PREFIX.length) as FeedName),
  ];
  const stats = () => {
    const now = active();
    return Object.fromEntries(
      configured.map((name) => [name, { ...publishers.get(name)!.stats(), active: now.includes(name) }]),
    ) as ReturnType<FeedHost['stats']>;
  };
  return {
    host,
    configured,
    active,
    stats,
    metrics() {
      const out: Record<string, number> = {};
      for (const [name, s] of Object.entries(stats())) {
        const label = `{feed="${name}"}`;
        out[`signalforge_feed_active${label}`] = s.active ? 1 : 0;
        out[`signalforge_feed_published_ticks_total${label}`] = s.published;
        out[`signalforge_feed_skipped_ticks_total${label}`] = s.skipped;
        out[`signalforge_feed_refused_ticks_total${label}`] = s.refused;
      }
      return out;
    },
    async stop(graceful = true) {
      await host.stop(graceful);
      await Promise.all(always.map(({ connector }) => connector.stop()));
    },
  };
}
