import { isoFromMs } from '../lib/iso-time.ts';
import type { Leaderboard, LeaderboardMetric, LeaderboardQuery, LeaderboardRow } from '../../schemas/community.ts';
import type { CommunityIndex, IndexedEntry } from './community-index.ts';
import { compareRanked, metricValue, rankingKey, type MetricValue } from './ranking.ts';
import { headline, liveView } from './views.ts';

type Ranked = MetricValue & { id: number };

/**
 * GET /leaderboard over the in-memory index. Each metric's full order is sorted once and kept
 * until the index changes in a way that can move it (a backtest metric does not move when a live
 * record does); a request then walks that order, skipping rows the filters leave out.
 */
export class LeaderboardView {
  private readonly orders = new Map<LeaderboardMetric, { stamp: string; ranked: Ranked[] }>();

  constructor(private readonly index: CommunityIndex) {}

  /** What the order of `metric` depends on. */
  private stamp(metric: LeaderboardMetric): string {
    const v = this.index.versions;
    if (metric === 'forks') return `${v.entries}.${v.forks}`;
    if (metric.startsWith('live_')) return `${v.entries}.${v.live}`;
    return `${v.entries}`;
  }

  /** Every entry in the order of `metric`. */
  order(metric: LeaderboardMetric): readonly Ranked[] {
    const stamp = this.stamp(metric);
    const cached = this.orders.get(metric);
    if (cached && cached.stamp === stamp) return cached.ranked;
    const index = this.index;
    const ranked: Ranked[] = [];
    for (const id of index.ids()) {
      const entry = index.get(id)!;
      ranked.push({ id, ...metricValue(metric, entry, index.forksOf(id), index.liveOf(id)) });
    }
    ranked.sort(compareRanked);
    this.orders.set(metric, { stamp, ranked });
    return ranked;
  }

  query(query: LeaderboardQuery): Leaderboard {
    const metric = rankingKey(query);
    const { symbol, timeframe, limit } = query;
    const rows: LeaderboardRow[] = [];
    let total = 0;
    for (const r of this.order(metric)) {
      const entry = this.index.get(r.id)!;
      if ((symbol && entry.model.symbol !== symbol) || (timeframe && entry.model.timeframe !== timeframe)) continue;
      total++;
      if (rows.length < limit) rows.push(this.row(entry, r, rows.length + 1));
    }
    return { ranked_by: metric, symbol: symbol ?? null, timeframe: timeframe ?? null, total, count: rows.length, entries: rows };
  }

  private row(entry: IndexedEntry, ranked: Ranked, rank: number): LeaderboardRow {
    const live = this.index.liveOf(entry.id);
    let liveRow: LeaderboardRow['live'] = null;
    if (live) {
      const { stats: _stats, ...rest } = liveView(entry, live);
      liveRow = rest;
    }
    return {
      rank,
      community_id: entry.id,
      title: entry.title,
      author: entry.author,
      parent_id: entry.parent_id,
      created_at: isoFromMs(entry.created_at),
      symbol: entry.model.symbol,
      timeframe: entry.model.timeframe,
      model_type: entry.model.model_type,
      forks: this.index.forksOf(entry.id),
      value: ranked.value,
      qualified: ranked.qualified,
      test: headline(entry.test),
      sharpe: entry.sharpe,
      composite: entry.composite,
      live: liveRow,
    };
  }
}
