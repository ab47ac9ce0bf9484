import type { TradeStats } from '../../schemas/backtest.ts';
import type { CommunityEntryRecord, DescentCheck, LiveRecord, TrackingFailureRecord } from '../../schemas/community.ts';
import type { Symbol, Timeframe } from '../../schemas/common.ts';
import type { RobustnessSummary } from '../../schemas/robustness-summary.ts';
import { EntryNotFoundError } from '../errors.ts';
import { composite, sharpe } from './ranking.ts';

/** The 404 of an id no entry has. */
export const unknownEntry = (id: number): EntryNotFoundError =>
  new EntryNotFoundError(`no community entry ${id}: GET /api/v1/leaderboard or /api/v1/community.json lists them`);

/** What the index keeps of an entry: everything the public views and the ranking need, no code. */
export interface IndexedEntry {
  id: number;
  user_id: number;
  author: string;
  title: string;
  description: string;
  parent_id: number | null;
  created_at: number;
  descent: DescentCheck | null;
  model: { stem: string; name: string; symbol: Symbol; timeframe: Timeframe; model_type: string; strategy_title: string };
  train: TradeStats;
  test: TradeStats;
  post_cutoff: TradeStats | null;
  test_days: number | null;
  sharpe: number;
  composite: number;
  /** Frozen at share; null for entries shared before the robustness report existed. */
  robustness: RobustnessSummary | null;
  /** Set when the live tracker stopped following the entry for good (its frozen model refused). */
  tracking_failure: TrackingFailureRecord | null;
}

export function indexedEntry(record: CommunityEntryRecord): IndexedEntry {
  const m = record.model;
  const s = sharpe(m.test_stats, record.test_trade_sd);
  return {
    id: record.community_id,
    user_id: record.user_id,
    author: record.author,
    title: record.title,
    description: record.description,
    parent_id: record.parent_id,
    created_at: record.created_at,
    descent: record.descent ?? null,
    model: {
      stem: m.stem,
      name: m.model_name,
      symbol: m.symbol,
      timeframe: m.timeframe,
      model_type: m.model_type,
      strategy_title: m.title,
    },
    train: m.train_stats,
    test: m.test_stats,
    post_cutoff: record.post_cutoff_stats,
    test_days: record.test_days ?? null,
    sharpe: s,
    composite: composite(m.test_stats, s),
    robustness: record.robustness ?? null,
    tracking_failure: record.tracking_failure ?? null,
  };
}

/** A change to one entry's public picture (its record, live record, forks or children). */
export type EntryListener = (id: number) => void;

/**
 * Every community entry in memory, with its live track record, its forkers and its children —
 * kept current by KV watches (see `followCommunity`). The leaderboard and the catalogue read only
 * here: at 10,000 entries a KV read per request could not answer in the milliseconds they have.
 * Writers in this process also apply their own writes at once, so a caller reads what it wrote;
 * the watch delivering the same value later changes nothing.
 */
export class CommunityIndex {
  private readonly entries = new Map<number, IndexedEntry>();
  private readonly live = new Map<number, LiveRecord>();
  /** entry → users who forked it, and whether each fork counts (the author included; `forks` leaves the author out). */
  private readonly forkers = new Map<number, Map<number, boolean>>();
  /** parent → its children, ascending. */
  private readonly children = new Map<number, number[]>();
  private readonly listeners: EntryListener[] = [];
  private sorted: number[] | null = null;
  /** Bumped on every change of its kind: caches built from the index compare these. */
  readonly versions = { entries: 0, forks: 0, live: 0 };

  onChange(listener: EntryListener): void {
    this.listeners.push(listener);
  }

  private changed(id: number): void {
    for (const listener of this.listeners) listener(id);
  }

  putEntry(record: CommunityEntryRecord): void {
    const entry = indexedEntry(record);
    const previous = this.entries.get(entry.id);
    if (previous && JSON.stringify(previous) === JSON.stringify(entry)) return;
    if (previous) this.unlink(previous);
    this.entries.set(entry.id, entry);
    if (!previous) this.sorted = null;
    if (entry.parent_id !== null) {
      const siblings = this.children.get(entry.parent_id) ?? [];
      siblings.push(entry.id);
      siblings.sort((a, b) => a - b);
      this.children.set(entry.parent_id, siblings);
      this.changed(entry.parent_id);
    }
    this.versions.entries++;
    this.changed(entry.id);
  }

  removeEntry(id: number): void {
    const previous = this.entries.get(id);
    if (!previous) return;
    this.unlink(previous);
    this.entries.delete(id);
    this.sorted = null;
    this.versions.entries++;
    this.changed(id);
  }

  private unlink(entry: IndexedEntry): void {
    if (entry.parent_id === null) return;
    const siblings = (this.children.get(entry.parent_id) ?? []).filter((c) => c !== entry.id);
    if (siblings.length) this.children.set(entry.parent_id, siblings);
    else this.children.delete(entry.parent_id);
    this.changed(entry.parent_id);
  }

  putLive(id: number, record: LiveRecord | null): void {
    if (record) this.live.set(id, record);
    else if (!this.live.delete(id)) return;
    this.versions.live++;
    this.changed(id);
  }

  /** A user's fork of an entry: whether it counts (FORK_COUNT_RULE), or null when it is gone. */
  putFork(userId: number, entryId: number, counts: boolean | null): void {
    const users = this.forkers.get(entryId) ?? new Map<number, boolean>();
    if (users.get(userId) === (counts ?? undefined)) return;
    if (counts === null) users.delete(userId);
    else users.set(userId, counts);
    if (users.size) this.forkers.set(entryId, users);
    else this.forkers.delete(entryId);
    this.versions.forks++;
    this.changed(entryId);
  }

  get(id: number): IndexedEntry | undefined {
    return this.entries.get(id);
  }

  /** The live record, once the tracker has scored at least one bar. */
  liveOf(id: number): LiveRecord | undefined {
    const record = this.live.get(id);
    return record && record.bars > 0 ? record : undefined;
  }

  /** Distinct users other than the author whose fork of the entry counts (FORK_COUNT_RULE). */
  forksOf(id: number): number {
    return this.countForks(id, true);
  }

  /** Distinct users other than the author whose fork does not count (fresh trials, new accounts). */
  trialForksOf(id: number): number {
    return this.countForks(id, false);
  }

  private countForks(id: number, counted: boolean): number {
    const users = this.forkers.get(id);
    if (!users) return 0;
    const author = this.entries.get(id)?.user_id;
    let n = 0;
    for (const [user, counts] of users) if (counts === counted && user !== author) n++;
    return n;
  }

  hasForked(userId: number, entryId: number): boolean {
    return this.forkers.get(entryId)?.has(userId) ?? false;
  }

  /** Whether the user's fork of the entry counts; undefined when they have not forked it. */
  forkCounts(userId: number, entryId: number): boolean | undefined {
    return this.forkers.get(entryId)?.get(userId);
  }

  childrenOf(id: number): readonly number[] {
    return this.children.get(id) ?? [];
  }

  /** Entry ids, ascending. */
  ids(): readonly number[] {
    this.sorted ??= [...this.entries.keys()].sort((a, b) => a - b);
    return this.sorted;
  }

  get size(): number {
    return this.entries.size;
  }

  /** One string naming the whole index's state: equal stamps, equal content. */
  stamp(): string {
    return `${this.versions.entries}.${this.versions.forks}.${this.versions.live}`;
  }
}
