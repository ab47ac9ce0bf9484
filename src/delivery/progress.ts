import type { JsonKv } from '../bus/index.ts';
import type { DeliveryProgress, DeliveryState } from '../../schemas/delivery.ts';
import type { DeliveryBuckets } from '../../schemas/messages.ts';

/**
 * Webhook delivery progress kept in pages (`sf_delivery_progress`) ahead of each channel's state:
 * the rule that reads it back, shared by the delivery actor (a deployment's next holder) and the
 * deliveries API. The writer is the delivery actor's `ProgressJournal`.
 */

export type ProgressKv = JsonKv<typeof DeliveryBuckets.progress.schema>;

/** Pages a delivery process spreads its deployments over: a bar's deliveries rewrite each once per flush. */
export const PROGRESS_PAGES = 64;

/** The page of a state key (`webhook.<deployment_id>`): FNV-1a of the key, so every process agrees. */
export function progressPage(stateKey: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < stateKey.length; i++) h = Math.imul(h ^ stateKey.charCodeAt(i), 0x01000193);
  return (h >>> 0) % PROGRESS_PAGES;
}

/** A host id as one KV key token (a hostname may hold dots). */
const hostToken = (hostId: string): string => hostId.replace(/[^A-Za-z0-9_-]/g, '_');

/** KV key of a host's page. */
export const progressPageKey = (page: number, hostId: string): string => `${page}.${hostToken(hostId)}`;

/** The fields a delivery moves on, as they stand in `state`. */
export function progressOf(state: DeliveryState): DeliveryProgress {
  return {
    cursor: state.cursor,
    delivered: state.delivered,
    last_delivered_at: state.last_delivered_at,
    last_delivered_id: state.last_delivered_id,
    updated_at: state.updated_at,
  };
}

/**
 * `state` with the deliveries of `progress` when they went further. Only deliveries are kept in
 * progress, and only while nothing else was pending (no failing attempt), so taking its cursor and
 * counters leaves every other field (replays, dead letters, a disabled channel) as the state has it;
 * counters only grow, so a progress a later write already holds changes nothing.
 */
export function withProgress(state: DeliveryState, progress: DeliveryProgress | null | undefined): DeliveryState {
  if (!progress || progress.cursor <= state.cursor) return state;
  return {
    ...state,
    cursor: progress.cursor,
    delivered: Math.max(state.delivered, progress.delivered),
    last_delivered_at: progress.last_delivered_at,
    last_delivered_id: progress.last_delivered_id,
    updated_at: Math.max(state.updated_at, progress.updated_at),
  };
}

/** The furthest of two progresses (by cursor). */
export const furthest = (a: DeliveryProgress | null | undefined, b: DeliveryProgress | null | undefined): DeliveryProgress | null =>
  !a ? (b ?? null) : !b || a.cursor >= b.cursor ? a : b;

/**
 * Every host's entries on one page, the furthest per state key; `exceptHost`'s own page is left
 * out (a process knows its own). A page deleted meanwhile reads as empty.
 */
export async function readProgressPage(kv: ProgressKv, page: number, exceptHost?: string): Promise<Map<string, DeliveryProgress>> {
  const skip = exceptHost === undefined ? null : progressPageKey(page, exceptHost);
  const keys = (await kv.keys(`${page}.>`)).filter((k) => k !== skip);
  const pages = await Promise.all(keys.map((k) => kv.get(k)));
  const out = new Map<string, DeliveryProgress>();
  for (const found of pages) {
    if (!found) continue;
    for (const [key, progress] of Object.entries(found.value.entries)) out.set(key, furthest(out.get(key), progress)!);
  }
  return out;
}

/** The furthest progress stored for one state key, over every host's page. */
export async function storedProgress(kv: ProgressKv, stateKey: string): Promise<DeliveryProgress | null> {
  return (await readProgressPage(kv, progressPage(stateKey))).get(stateKey) ?? null;
}
