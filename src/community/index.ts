import { ensureStream, type Bus } from '../bus/index.ts';
import type { Logger } from '../log.ts';
import { Streams } from '../../schemas/messages.ts';
import { ActivityBus } from './activity-bus.ts';
import { ActivityFeed } from './activity-feed.ts';
import { CatalogueBuilder } from './catalogue.ts';
import { CommunityIndex } from './community-index.ts';
import { CommunityStore } from './community-store.ts';
import { Fork } from './fork.ts';
import { LeaderboardView } from './leaderboard.ts';
import { Share, type ModelSource } from './share.ts';

export { ActivityBus } from './activity-bus.ts';
export { ActivityFeed, type ActivityListener } from './activity-feed.ts';
export { FiredCoalescer, FIRED_WINDOW_MS } from './fired-coalescer.ts';
export { CommunityIndex, indexedEntry, type IndexedEntry } from './community-index.ts';
export { CommunityStore, shareKey } from './community-store.ts';
export { CatalogueBuilder, gzipEtag, matchesEtag, type CatalogueBody } from './catalogue.ts';
export { LeaderboardView } from './leaderboard.ts';
export { Share, checkGate, type ModelSource } from './share.ts';
export { Fork, suggestedModelName, type Forker } from './fork.ts';
export { forkCounts, FORK_COUNT_RULE, ESTABLISHED_AFTER_DAYS, type ForkerAccount } from './fork-standing.ts';
export { descent, normalisedTokens, DESCENT_RULE, DESCENT_THRESHOLD, GRAM, type Descent } from './descent.ts';
export { lineage, communityEntry } from './lineage.ts';
export { RANKING_RULES, sharpe, composite, sampleSd, metricValue, rankingKey } from './ranking.ts';
export { entryView, divergenceView } from './views.ts';
export { TRACKING_REFUSED } from './tracking-refused.ts';
export {
  DIVERGENCE_CHECK_BARS,
  DIVERGENCE_CLEAR_CHECKS,
  DIVERGENCE_FLAG_CHECKS,
  DIVERGENCE_RULE,
  DIVERGENCE_WINDOW_CHECKS,
  PRICE_TOLERANCE,
} from './divergence-rule.ts';

export interface Activity {
  bus: ActivityBus;
  feed: ActivityFeed;
  stop(): void;
}

/** Provisions the activity stream and starts the in-memory feed over it. */
export async function buildActivity(deps: { bus: Bus; log: Logger; replicas: number }): Promise<Activity> {
  await ensureStream(deps.bus, Streams.activity, deps.replicas);
  const feed = new ActivityFeed(deps.bus, deps.log);
  await feed.start();
  return { bus: new ActivityBus(deps.bus), feed, stop: () => feed.stop() };
}

/** Share, fork, lineage, leaderboard and catalogue, over one in-memory index of every entry. */
export interface Community {
  share: Share;
  fork: Fork;
  index: CommunityIndex;
  leaderboard: LeaderboardView;
  catalogue: CatalogueBuilder;
  store: CommunityStore;
  stop(): void;
}

export interface CommunityDeps {
  bus: Bus;
  models: ModelSource;
  activity: ActivityBus;
  log: Logger;
  replicas: number;
}

/** Opens the community's buckets and object stores and fills the index; resolves once it holds every entry. */
export async function buildCommunity(deps: CommunityDeps): Promise<Community> {
  const store = await CommunityStore.open(deps.bus, deps.replicas);
  const index = new CommunityIndex();
  const catalogue = new CatalogueBuilder(index);
  const following = await store.follow(index);
  // Every entry's catalogue text built now, at start, rather than by the first community.json request.
  const t0 = performance.now();
  catalogue.current();
  deps.log.info({ entries: index.size, catalogue_ms: Math.round(performance.now() - t0) }, 'community index loaded');
  const common = { store, index, activity: deps.activity, log: deps.log };
  return {
    share: new Share({ ...common, models: deps.models }),
    fork: new Fork(common),
    index,
    leaderboard: new LeaderboardView(index),
    catalogue,
    store,
    stop: () => {
      following.stop();
      catalogue.stop();
    },
  };
}
