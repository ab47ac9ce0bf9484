import { isoFromMs } from '../lib/iso-time.ts';
import { TIMEFRAME_MS } from '../lib/timeframes.ts';
import type { TradeStats } from '../../schemas/backtest.ts';
import {
  MIN_RANKED_TRADES,
  type CatalogueEntry,
  type CommunityEntry,
  type DivergenceView,
  type EntryBasics,
  type HeadlineStats,
  type LineageNode,
  type LiveRecord,
  type LiveSummary,
  type LiveView,
} from '../../schemas/community.ts';
import type { CommunityIndex, IndexedEntry } from './community-index.ts';

const DAY_MS = 86_400_000;

/**
 * The public pictures of an entry, built from the index: what share, lineage, the leaderboard and
 * the catalogue answer. None of them has the code (the index never holds it).
 */

export const headline = (s: TradeStats): HeadlineStats => ({ n_trades: s.n, wr: s.wr, pf: s.pf, ret: s.ret, mdd: s.mdd });

/** The live block: the tracker's record, with days tracked and the gap to the test backtest. */
export function liveView(entry: IndexedEntry, live: LiveRecord): LiveView {
  const lastClose = live.last_bar_ts + TIMEFRAME_MS[entry.model.timeframe];
  const days = Math.max(0, (lastClose - live.since) / DAY_MS);
  const s = live.stats;
  const traded = s.n > 0;
  const testDays = entry.test_days;
  return {
    since: isoFromMs(live.since),
    last_bar: isoFromMs(live.last_bar_ts),
    days_tracked: days,
    bars: live.bars,
    n_trades: s.n,
    ret: s.ret,
    wr: s.wr,
    pf: s.pf,
    mdd: s.mdd,
    stats: s,
    gap: {
      ret_per_day: days > 0 && testDays !== null && testDays > 0 ? s.ret / days - entry.test.ret / testDays : null,
      wr: traded ? s.wr - entry.test.wr : null,
      pf: traded ? s.pf - entry.test.pf : null,
      avg_trade: traded ? s.avg - entry.test.avg : null,
    },
  };
}

/** The live-divergence flag, while set (the tracker writes it on the live record). */
export function divergenceView(live: LiveRecord | undefined): DivergenceView | null {
  const d = live?.divergence;
  if (!d) return null;
  return { since: isoFromMs(d.since), flagged_at: isoFromMs(d.flagged_at), checks: d.checks, what: d.what, agreeing: d.agreeing };
}

/** Who and when, as every picture of an entry starts. */
export function entryBasics(index: CommunityIndex, entry: IndexedEntry): EntryBasics {
  return {
    community_id: entry.id,
    title: entry.title,
    author: entry.author,
    created_at: isoFromMs(entry.created_at),
    parent_id: entry.parent_id,
    forks: index.forksOf(entry.id),
    trial_forks: index.trialForksOf(entry.id),
  };
}

export function entryView(index: CommunityIndex, entry: IndexedEntry): CommunityEntry {
  const live = index.liveOf(entry.id);
  return {
    ...entryBasics(index, entry),
    description: entry.description,
    model: entry.model,
    backtest: { train: entry.train, test: entry.test, post_cutoff: entry.post_cutoff },
    scores: { sharpe: entry.sharpe, composite: entry.composite, qualified: entry.test.n >= MIN_RANKED_TRADES },
    live: live ? liveView(entry, live) : null,
    descent: entry.descent,
    divergence: divergenceView(live),
    verdict: entry.robustness?.verdict ?? null,
    robustness: entry.robustness,
    tracking_failure: entry.tracking_failure
      ? { reason: entry.tracking_failure.reason, failed_at: isoFromMs(entry.tracking_failure.at) }
      : null,
  };
}

/** The first ancestor of an entry (itself for a root). */
export function rootOf(index: CommunityIndex, entry: IndexedEntry): number {
  return ancestorsOf(index, entry).at(-1)?.id ?? entry.id;
}

/** Parent first, up to the root. Parents are older than their children, so this always ends; the set guards anyway. */
export function ancestorsOf(index: CommunityIndex, entry: IndexedEntry): IndexedEntry[] {
  const out: IndexedEntry[] = [];
  const seen = new Set([entry.id]);
  let parentId = entry.parent_id;
  while (parentId !== null && !seen.has(parentId)) {
    const parent = index.get(parentId);
    if (!parent) break;
    out.push(parent);
    seen.add(parentId);
    parentId = parent.parent_id;
  }
  return out;
}

/** The live block without its full TradeStats (leaderboard rows, the catalogue). */
export function liveSummary(entry: IndexedEntry, live: LiveRecord | undefined): LiveSummary | null {
  if (!live) return null;
  const { stats: _stats, ...rest } = liveView(entry, live);
  return rest;
}

export function catalogueEntry(index: CommunityIndex, entry: IndexedEntry): CatalogueEntry {
  return {
    ...entryBasics(index, entry),
    description: entry.description,
    root_id: rootOf(index, entry),
    children: [...index.childrenOf(entry.id)],
    model: entry.model,
    train: headline(entry.train),
    test: headline(entry.test),
    post_cutoff: entry.post_cutoff ? headline(entry.post_cutoff) : null,
    sharpe: entry.sharpe,
    composite: entry.composite,
    qualified: entry.test.n >= MIN_RANKED_TRADES,
    dsr: entry.robustness?.dsr ?? null,
    verdict: entry.robustness?.verdict ?? null,
    live: liveSummary(entry, index.liveOf(entry.id)),
    divergence: divergenceView(index.liveOf(entry.id)),
  };
}

export function lineageNode(index: CommunityIndex, entry: IndexedEntry): LineageNode {
  const live = index.liveOf(entry.id);
  return {
    ...entryBasics(index, entry),
    symbol: entry.model.symbol,
    timeframe: entry.model.timeframe,
    test: headline(entry.test),
    live: live ? headline(live.stats) : null,
  };
}
