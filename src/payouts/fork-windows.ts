import { PAYOUT_TERMS, type EntryLink } from '../../schemas/payouts.ts';

const DAY_MS = 86_400_000;
/** How long after a fork's publication its publisher's spend pays the parent author. */
export const WINDOW_MS = PAYOUT_TERMS.window_days * DAY_MS;

/**
 * One parent author and one fork publisher on one UTC day: the publisher's spend inside `spans`
 * pays the author once, however many of the author's entries the publisher has forked and
 * shared (else sharing ten forks of one entry would pay the author 100 % of the spend).
 */
export interface ForkPair {
  parentUser: number;
  parentAuthor: string;
  childUser: number;
  /** The entries the ledger row is filed under: the publisher's oldest fork of this author open that day. */
  parentEntry: number;
  childEntry: number;
  /** Disjoint [from, to) spans (epoch ms) of the day inside one of those forks' 30-day windows, in order. */
  spans: Array<[number, number]>;
}

/**
 * The fork pairs whose window overlaps the UTC day starting at `dayStart`. A fork is a shared
 * entry with a parent; its window is [published, published + 30 days). A self-fork (the parent's
 * author shares a fork of their own entry) pays nothing: it would only rebate the author's own
 * spend. A fork whose parent entry is gone pays nothing either. Sorted by parent, then publisher.
 */
export function openForks(entries: ReadonlyMap<number, EntryLink>, dayStart: number): ForkPair[] {
  const dayEnd = dayStart + DAY_MS;
  const pairs = new Map<string, ForkPair>();
  for (const child of entries.values()) {
    if (child.parent_id === null) continue;
    const parent = entries.get(child.parent_id);
    if (!parent || parent.user_id === child.user_id) continue;
    const from = Math.max(dayStart, child.created_at);
    const to = Math.min(dayEnd, child.created_at + WINDOW_MS);
    if (from >= to) continue;
    const key = `${parent.user_id}:${child.user_id}`;
    const pair = pairs.get(key);
    if (!pair) {
      pairs.set(key, {
        parentUser: parent.user_id,
        parentAuthor: parent.author,
        childUser: child.user_id,
        parentEntry: parent.community_id,
        childEntry: child.community_id,
        spans: [[from, to]],
      });
      continue;
    }
    pair.spans.push([from, to]);
    if (child.community_id < pair.childEntry) {
      pair.childEntry = child.community_id;
      pair.parentEntry = parent.community_id;
    }
  }
  const out = [...pairs.values()];
  for (const pair of out) pair.spans = mergeSpans(pair.spans);
  return out.sort((a, b) => a.parentUser - b.parentUser || a.childUser - b.childUser);
}

/** Overlapping or touching spans joined, in order. */
function mergeSpans(spans: Array<[number, number]>): Array<[number, number]> {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [from, to] of sorted) {
    const last = merged.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}

/** The UTC day (start, epoch ms) of the oldest fork, where settling has to begin; null when there is none. */
export function firstForkDay(entries: ReadonlyMap<number, EntryLink>): number | null {
  let first: number | null = null;
  for (const e of entries.values()) {
    if (e.parent_id !== null && (first === null || e.created_at < first)) first = e.created_at;
  }
  return first === null ? null : Math.floor(first / DAY_MS) * DAY_MS;
}

/** Net billable spend inside the spans, from [ts, spent] points sorted or not; never below 0 (a refund of earlier spend pays nothing back). */
export function spendWithin(spans: ReadonlyArray<[number, number]>, points: ReadonlyArray<readonly [number, number]>): number {
  let sum = 0;
  for (const [ts, spent] of points) {
    if (spans.some(([from, to]) => ts >= from && ts < to)) sum += spent;
  }
  return Math.max(0, sum);
}
