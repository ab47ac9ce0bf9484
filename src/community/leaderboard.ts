import type { Leaderboard, LeaderboardMetric, LeaderboardQuery, LeaderboardRow } from '../../schemas/community.ts';
import type { CommunityIndex, IndexedEntry } from './community-index.ts';
import { metricValue, rankingKey, type MetricValue } from './ranking.ts';
import { entryBasics, headline, liveSummary } from './views.ts';

type Ranked = MetricValue & { id: number };

/** A metric's full order: positions into `ids`, with each entry's value (NaN for null) and qualification. */
interface Order {
  stamp: string;
  ids: readonly number[];
  order: Uint32Array;
  values: Float64Array;
  qualified: Uint8Array;
}

/**
 * GET /leaderboard over the in-memory index. Each metric's full order is sorted once and kept
 * until the index changes in a way that can move it (a backtest metric does not move when a live
 * record does); a request then walks that order, skipping rows the filters leave out.
 */
export class LeaderboardView {
  private readonly orders = new Map<LeaderboardMetric, Order>();

  constructor(private readonly index: CommunityIndex) {}

  /** What the order of `metric` depends on. */
  private stamp(metric: LeaderboardMetric): string {
    const v = this.index.versions;
    if (metric === 'forks') return `${v.entries}.${v.forks}`;
    if (metric.startsWith('live_')) return `${v.entries}.${v.live}`;
    return `${v.entries}`;
  }

  /**
   * Every entry in the order of `metric` (RANKING_RULES: qualified first, value high to low with
   * null last, community_id ascending). Values go into typed arrays and positions are sorted by
   * them: at 10,000 entries this re-sorts in a few milliseconds, which a live metric does after
   * each bar close.
   */
  private order(metric: LeaderboardMetric): Order {
    const stamp = this.stamp(metric);
    const cached = this.orders.get(metric);
    if (cached && cached.stamp === stamp) return cached;
    const index = this.index;
    const ids = index.ids();
    const n = ids.length;
    const values = new Float64Array(n);
    const qualified = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const id = ids[i]!;
      const v = metricValue(metric, index.get(id)!, index.forksOf(id), index.liveOf(id));
      values[i] = v.value ?? Number.NaN;
      qualified[i] = v.qualified ? 1 : 0;
    }
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    // ids ascend, so the position breaks ties as community_id does.
    order.sort((a, b) => {
      if (qualified[a] !== qualified[b]) return qualified[b]! - qualified[a]!;
      const va = values[a]!;
      const vb = values[b]!;
      if (va !== vb && !(Number.isNaN(va) && Number.isNaN(vb))) {
        if (Number.isNaN(va)) return 1;
        if (Number.isNaN(vb)) return -1;
        return vb > va ? 1 : -1;
      }
      return a - b;
    });
    const built = { stamp, ids, order, values, qualified };
    this.orders.set(metric, built);
    return built;
  }

  private at(o: Order, i: number): Ranked {
    const v = o.values[i]!;
    return { id: o.ids[i]!, value: Number.isNaN(v) ? null : v, qualified: o.qualified[i] === 1 };
  }

  query(query: LeaderboardQuery): Leaderboard {
    const metric = rankingKey(query);
    const { symbol, timeframe, limit } = query;
    const rows: LeaderboardRow[] = [];
    let total = 0;
    let hidden = 0;
    const o = this.order(metric);
    for (const i of o.order) {
      const entry = this.index.get(o.ids[i]!)!;
      if ((symbol && entry.model.symbol !== symbol) || (timeframe && entry.model.timeframe !== timeframe)) continue;
      // Off the ranking while its live trades persistently differ from its backtest path (DIVERGENCE_RULE).
      if (this.index.liveOf(entry.id)?.divergence) {
        hidden++;
        continue;
      }
      total++;
      if (rows.length < limit) rows.push(this.row(entry, this.at(o, i), rows.length + 1));
    }
    return { ranked_by: metric, symbol: symbol ?? null, timeframe: timeframe ?? null, total, hidden, count: rows.length, entries: rows };
  }

  private row(entry: IndexedEntry, ranked: Ranked, rank: number): LeaderboardRow {
    return {
      rank,
      ...entryBasics(this.index, entry),
      symbol: entry.model.symbol,
      timeframe: entry.model.timeframe,
      model_type: entry.model.model_type,
      value: ranked.value,
      qualified: ranked.qualified,
      test: headline(entry.test),
      sharpe: entry.sharpe,
      composite: entry.composite,
      dsr: entry.robustness?.dsr ?? null,
      verdict: entry.robustness?.verdict ?? null,
      live: liveSummary(entry, this.index.liveOf(entry.id)),
    };
  }
}
