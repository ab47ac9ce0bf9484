import { isoFromMs } from '../lib/iso-time.ts';
import { utcDate } from '../lib/utc-day.ts';
import type { Logger } from '../log.ts';
import type { ActivityInput } from '../../schemas/activity.ts';
import type { CommunityEntryRecord, ForkRecord, ForkResponse } from '../../schemas/community.ts';
import type { Caller } from '../../schemas/account-records.ts';
import { announcedModel } from './announce.ts';
import { unknownEntry, type CommunityIndex } from './community-index.ts';
import type { CommunityStore } from './community-store.ts';
import { forkCounts, type ForkerAccount } from './fork-standing.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

/** Who forks: the caller and what the fork-count rule reads of their account. */
export type Forker = Caller & ForkerAccount;

export interface ForkDeps {
  store: CommunityStore;
  index: CommunityIndex;
  activity: { emit(event: ActivityInput): Promise<unknown> };
  log: Logger;
  clock?: Clock;
}

/** A model name (1-60 of letters, digits, space, `_.-`) for training a fork of the entry. */
export function suggestedModelName(entry: Pick<CommunityEntryRecord, 'community_id' | 'model'>): string {
  const base = entry.model.model_name.replace(/[^A-Za-z0-9 _.-]/g, '-');
  return `fork-${entry.community_id} ${base}`.slice(0, 60).trimEnd();
}

/**
 * POST /fork/{id}: copies an entry's frozen code into the caller's account as a strategy (not a
 * model: they train it to get one) and records the parent, so a model trained from it can be
 * shared with parent_id. Each user forks an entry once: forking it again returns that fork
 * (no second FORKED, no second count). Forking your own entry is allowed; it is not counted in
 * the entry's `forks`, which says how many others took it. A fork counts only when its account is
 * established (FORK_COUNT_RULE); others are `trial_forks`. A fork made while the account was new is
 * counted when the account, established by then, forks the entry again.
 */
export class Fork {
  private readonly clock: Clock;

  constructor(private readonly deps: ForkDeps) {
    this.clock = deps.clock ?? liveClock;
  }

  async fork(caller: Forker, entryId: number): Promise<ForkResponse> {
    const { store, index } = this.deps;
    const entry = await store.entry(entryId);
    if (!entry) throw unknownEntry(entryId);
    const counts = forkCounts(caller, this.clock.now());

    const earlier = await store.fork(caller.user_id, entryId);
    if (earlier) {
      if (earlier.counts === false && counts) {
        await store.markForkCounted(earlier);
        index.putFork(caller.user_id, entryId, true);
        this.deps.log.info({ user_id: caller.user_id, community_id: entryId }, 'an earlier fork counts now: its account is established');
      }
      return this.response(entry, earlier, (await store.forkCode(caller.user_id, entryId)) ?? (await store.entryCode(entryId)), false);
    }

    const code = await store.entryCode(entryId);
    const record: ForkRecord = {
      user_id: caller.user_id,
      community_id: entryId,
      model_name: suggestedModelName(entry),
      created_at: this.clock.now(),
      counts,
    };
    if (!(await store.createFork(record, code))) {
      const winner = (await store.fork(caller.user_id, entryId)) ?? record;
      return this.response(entry, winner, code, false);
    }
    index.putFork(caller.user_id, entryId, counts);
    this.deps.log.info({ user_id: caller.user_id, community_id: entryId, counts }, 'entry forked');
    await this.deps.activity.emit({
      kind: 'FORKED',
      bot: caller.username,
      ...announcedModel(entry.model),
      community_id: entryId,
      parent_id: entryId,
    });
    return this.response(entry, record, code, true);
  }

  private response(entry: CommunityEntryRecord, fork: ForkRecord, code: string, created: boolean): ForkResponse {
    const { symbol, timeframe, settings, fit_span, trained_span } = entry.model;
    const { confidence_threshold, train_split, ...execution } = settings;
    // The parent's span in whole UTC days, so the copy trains on the bars the parent did (and, the
    // fit being deterministic, reproduces its results); drop end_date to train on the latest bars.
    const span = fit_span ?? trained_span;
    return {
      forked_from: entry.community_id,
      created,
      forked_at: isoFromMs(fork.created_at),
      code,
      suggested_model_name: fork.model_name,
      symbol,
      timeframe,
      train_request: {
        code,
        symbol,
        timeframe,
        model_name: fork.model_name,
        start_date: utcDate(span.from),
        end_date: utcDate(span.to),
        train_split,
        confidence_threshold,
        ...execution,
      },
    };
  }
}
