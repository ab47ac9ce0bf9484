import { StaleRevisionError, type JsonKv } from '../../src/bus/index.ts';
import { deadKey, nextAttemptAt, progressOf, stateKey, withProgress, type RetryPolicy, type SignalLog } from '../../src/delivery/index.ts';
import type { Logger } from '../../src/log.ts';
import type { AttemptRecord, DeadLetterRecord, DeliveryChannel, DeliveryProgress, DeliveryState } from '../../schemas/delivery.ts';
import type { DeploymentRecord, SignalEvent } from '../../schemas/live.ts';
import type { DeliveryBuckets } from '../../schemas/messages.ts';
import type { CatchUpReader, CatchUpTicket } from './catch-up-reader.ts';
import type { LeaseContext } from '../../src/kernel/index.ts';
import type { ChannelSender, SendOutcome } from './types.ts';
import type { ProgressJournal } from './progress-journal.ts';
import type { concurrencyLimit } from '../../src/lib/concurrency-limit.ts';
import { liveClock, type Clock } from '../../src/lib/clock.ts';

export interface ChannelWorkerDeps {
  channel: DeliveryChannel;
  deploymentId: string;
  userId: number;
  state: JsonKv<typeof DeliveryBuckets.state.schema>;
  dead: JsonKv<typeof DeliveryBuckets.dead.schema>;
  signals: Pick<SignalLog, 'next'>;
  /**
   * The process's catch-up reader: the stored signals after the cursor come from it (one stream
   * read for many workers). Absent, or when it gives up: the worker reads them one at a time.
   * Signals published from now on must be pushed to the worker (push) as they arrive.
   */
  catchUp?: Pick<CatchUpReader, 'join'>;
  /** The deployment as it is now (null once it is gone). */
  deployment: () => DeploymentRecord | null;
  sender: ChannelSender;
  /** The process's bound on sends in flight (shared by every worker). */
  limit: ReturnType<typeof concurrencyLimit>;
  policy: RetryPolicy;
  log: Logger;
  onDelivered?: (event: SignalEvent, channel: DeliveryChannel) => void;
  /**
   * The process's progress journal: deliveries with nothing else pending are kept there and not
   * each written to the state (a channel whose receivers de-duplicate: a process killed within
   * the journal's flush sends them again). Absent: every delivery writes the state.
   */
  journal?: Pick<ProgressJournal, 'record' | 'forget' | 'find'>;
  /**
   * Its deployment's lease (the LeaseContext its host gave it): no send starts when `leaseLeftMs`
   * is 0, and one in flight is cut off when `fence` aborts (the host's heartbeat may have run out)
   * or the worker stops, so two workers never send for one deployment at once. Absent: no lease
   * (a single delivery process).
   */
  lease?: Pick<LeaseContext, 'leaseLeftMs' | 'fence'>;
  /** The time of attempts, retries and state (liveClock unless a test sets it). */
  clock?: Clock;
  random?: () => number;
}

interface Item {
  seq: number;
  /** null when the stored message is not a valid SignalEvent (it is skipped). */
  event: SignalEvent | null;
  /** A dead letter being replayed (else the next signal of the stream). */
  replay: boolean;
}

/** Signals held in memory ahead of delivery; past this the worker reads them from the stream instead. */
const MAX_BUFFER = 5_000;

/** Awaited where nothing is left to wait for (one, not a new promise per signal). */
const DONE: Promise<void> = Promise.resolve();

/**
 * Delivers one channel of one deployment, strictly in order: the signal at the head is retried
 * (backoff, jitter) until it is delivered or its retry window ends, and only then does the next
 * one go. Queued replays of dead letters go before newer signals. Everything that must survive a
 * restart (cursor, the failing attempt, the replay queue) is in KV; signals themselves come from
 * the process's catch-up reader or the SIGNALS stream, then from the live consumer's pushes.
 */
export class ChannelWorker {
  private state!: DeliveryState;
  private revision = 0;
  /** Signals ahead of delivery, by sequence (from the catch-up reader and the live consumer). */
  private buffer: Item[] = [];
  /**
   * Where the signals after the cursor come from: the catch-up reader ('joined', up to its
   * ticket's position), the stream read one at a time ('self'), or pushes alone ('live': caught up).
   */
  private mode: 'joined' | 'self' | 'live' = 'self';
  private ticket: CatchUpTicket | null = null;
  /** Woken while not waiting: the next wait returns at once (a wake is never lost). */
  private poked = false;
  private dirty = false;
  private stopped = false;
  /** Aborted at stop: a sender waiting (a rate-limit hold) gives up without sending; the deployment's next holder sends. */
  private readonly stopping = new AbortController();
  /**
   * Aborted when the lease runs out during a send, or at stop: one per lease signal of the host
   * (a new one after it fired), relayed by one listener, not a controller and a timer per send.
   */
  private cut: AbortController | null = null;
  private leaseSignal: AbortSignal | null = null;
  /** The wait in progress (idle): its resolve, and its timer when it has one. */
  private waiting: (() => void) | null = null;
  private waitTimer: NodeJS.Timeout | undefined;
  private done: Promise<void> = Promise.resolve();
  /** The chain of state writes (one at a time) and the transitions not yet written. */
  private writes: Promise<void> = Promise.resolve();
  private readonly unwritten: Array<(s: DeliveryState) => DeliveryState> = [];
  /** A transition not yet written is other than a delivery's: the next write parses the state. */
  private parseNext = false;
  /** Deliveries kept in the journal and not yet in a write: where they reached. */
  private journaled: DeliveryProgress | null = null;
  /** The furthest journaled cursor the unwritten transitions carry (its entry goes once they are stored). */
  private carried = 0;
  private readonly key: string;
  private readonly clock: Clock;

  private constructor(private readonly deps: ChannelWorkerDeps) {
    this.key = stateKey(deps.channel, deps.deploymentId);
    this.clock = deps.clock ?? liveClock;
  }

  // Made once, not per signal: the next write, run after the one before it however it ended, and
  // the report of a delivery's write that failed (nobody waits on it).
  private readonly writeNext = (): Promise<void> => this.flush();
  private readonly writeFailed = (err: unknown): void =>
    this.deps.log.warn(
      { deployment_id: this.deps.deploymentId, channel: this.deps.channel, error: (err as Error).message },
      'delivery state write failed',
    );

  /**
   * Loads (or creates) the channel's state and starts delivering. A new state starts at the
   * deployment's first signal: its subject holds only its own signals (a deployment id is new
   * on every deploy), so nothing published before the worker existed is skipped.
   */
  static async open(deps: ChannelWorkerDeps): Promise<ChannelWorker> {
    const worker = new ChannelWorker(deps);
    await worker.load();
    worker.joinCatchUp();
    worker.done = worker.loop();
    return worker;
  }

  private async load(): Promise<void> {
    const found = await this.deps.state.get(this.key);
    if (found) {
      this.state = found.value;
      this.revision = found.revision;
      // Deliveries a holder before this one kept in its journal: written to the state at once, so
      // they outlive the journal's page and this holder alike.
      const progress = await this.deps.journal?.find(this.key);
      if (progress && progress.cursor > this.state.cursor) await this.commit((s) => withProgress(s, progress));
      return;
    }
    const initial: DeliveryState = {
      deployment_id: this.deps.deploymentId,
      channel: this.deps.channel,
      user_id: this.deps.userId,
      cursor: 0,
      delivered: 0,
      dead_lettered: 0,
      last_delivered_at: null,
      last_delivered_id: null,
      current: null,
      replay: [],
      disabled: null,
      updated_at: this.clock.now(),
    };
    const revision = await this.deps.state.create(this.key, initial);
    if (revision === false) return this.load();
    this.state = initial;
    this.revision = revision;
  }

  private joinCatchUp(): void {
    if (!this.deps.catchUp) return;
    this.ticket = this.deps.catchUp.join(this.deps.deploymentId, this.state.cursor + 1, {
      push: (seq, event) => this.push(seq, event),
      wake: () => this.poke(),
    });
    this.mode = 'joined';
  }

  private leaveCatchUp(mode: 'self' | 'live'): void {
    this.ticket?.leave();
    this.ticket = null;
    this.mode = mode;
  }

  /**
   * A signal of this deployment, stored or live: kept in sequence order, once. Live signals can
   * arrive ahead of stored ones still being caught up on; they wait in the buffer.
   */
  push(seq: number, event: SignalEvent | null): void {
    if (seq <= this.state.cursor) return;
    let at = this.buffer.length;
    while (at > 0 && this.buffer[at - 1]!.seq > seq) at--;
    if (at > 0 && this.buffer[at - 1]!.seq === seq) return;
    const item: Item = { seq, event, replay: false };
    if (at === this.buffer.length) this.buffer.push(item);
    else this.buffer.splice(at, 0, item);
    if (this.buffer.length > MAX_BUFFER) {
      // Too far behind to hold in memory: read the stream from the cursor instead.
      this.buffer = [];
      this.leaveCatchUp('self');
    }
    this.poke();
  }

  private poke(): void {
    if (this.waiting) this.wakeUp();
    else this.poked = true;
  }

  /** The state changed elsewhere (a replay): read it again before the next step. */
  kick(): void {
    this.dirty = true;
    this.poke();
  }

  /** A snapshot of where the channel stands. */
  get snapshot(): DeliveryState {
    return this.state;
  }

  /** Stops after the step in progress; gives up waiting on it after `graceMs`. */
  async stop(graceMs = 2_000): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    this.ticket?.leave();
    this.wakeUp();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      // Journaled deliveries are written to the state before the lease goes.
      this.done.then(() => this.checkpoint(true)).catch(() => undefined),
      new Promise<void>((r) => (timer = setTimeout(r, graceMs))),
    ]);
    clearTimeout(timer);
    // A send still in flight is cut off now: the lease is released after this, and the next
    // holder sends that signal again.
    this.leaseSignal?.removeEventListener('abort', this.relayCut);
    this.cut?.abort();
  }

  private idle(ms?: number): Promise<void> {
    if (this.stopped || this.poked) {
      this.poked = false;
      return DONE;
    }
    return new Promise<void>((resolve) => {
      this.waiting = resolve;
      if (ms !== undefined) this.waitTimer = setTimeout(this.wakeUp, Math.max(0, ms));
    });
  }

  /** Ends the wait in progress, if any (woken, or its time is up). */
  private readonly wakeUp = (): void => {
    clearTimeout(this.waitTimer);
    this.waitTimer = undefined;
    const resolve = this.waiting;
    this.waiting = null;
    resolve?.();
  };

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.step();
      } catch (err) {
        this.deps.log.warn(
          { deployment_id: this.deps.deploymentId, channel: this.deps.channel, error: (err as Error).message },
          'delivery step failed',
        );
        await this.idle(1_000);
      }
    }
  }

  private async step(): Promise<void> {
    if (this.dirty) {
      this.dirty = false;
      await this.writes.catch(() => undefined);
      const found = await this.deps.state.get(this.key);
      if (found) {
        // Deliveries still only in the journal stay where they reached.
        this.state = withProgress(found.value, this.journaled);
        this.revision = found.revision;
      }
    }
    const deployment = this.deps.deployment();
    if (!deployment || !deployment.channels.includes(this.deps.channel)) return this.idle();
    // Mostly the head of the buffer, at hand: awaited only when it has to be read.
    const next = this.nextItem();
    const item = next instanceof Promise ? await next : next;
    if (!item) return this.idle();
    if (!item.event) {
      this.deps.log.warn(
        { deployment_id: this.deps.deploymentId, seq: item.seq },
        'skipping a stored signal that is not a valid SignalEvent',
      );
      return this.commit((s) => ({ ...s, cursor: Math.max(s.cursor, item.seq), updated_at: this.clock.now() }));
    }
    const current = this.currentFor(item);
    if (current && current.next_attempt_at > this.clock.now()) return this.idle(current.next_attempt_at - this.clock.now());
    if (this.state.disabled) return this.deadLetter(item, item.event, current, { error: this.state.disabled.reason, status: null });

    const event = item.event;
    const outcome = await this.deps.limit(() => this.fencedSend(event, deployment));
    // The lease ran out: the next holder sends this signal again (same webhook-id); nothing is recorded here.
    if (outcome === null) return this.idle(250);
    if (outcome.ok) return this.delivered(item, event);
    if (outcome.gone) {
      const channel = this.deps.channel;
      const said =
        channel === 'webhook'
          ? 'receiver answered 410 Gone'
          : channel === 'email'
            ? outcome.error
            : `the ${channel} webhook is gone (${outcome.error})`;
      const reason = `${said} at ${new Date(this.clock.now()).toISOString()}: ${this.deps.channel} delivery disabled for this deployment (replay the dead letters to enable it again)`;
      return this.deadLetter(item, event, current, outcome, { reason, at: this.clock.now() });
    }
    if (outcome.permanent) {
      // Capped: never sent, so no attempt to count (unless earlier tries of it failed).
      if (outcome.capped) return this.deadLetter(item, event, current, outcome);
      const attempt = { attempts: (current?.attempts ?? 0) + 1, first_attempt_at: current?.first_attempt_at ?? this.clock.now() };
      return this.deadLetter(item, event, attempt, outcome, undefined, true);
    }
    return this.failed(item, event, current, outcome);
  }

  /**
   * One attempt within the lease: null when the lease ran out before or during it, or when it
   * failed because the worker stopped meanwhile (not an attempt to count: the next holder makes it).
   * A sender that throws (a bug, a URL stored before the strict parse) counts as a failed attempt:
   * it follows the retry schedule and ends as a dead letter, never a hot loop.
   */
  private async fencedSend(event: SignalEvent, deployment: DeploymentRecord): Promise<SendOutcome | null> {
    const lease = this.deps.lease;
    if (lease && (lease.leaseLeftMs() <= 0 || this.stopped)) return null;
    const fence = lease ? this.fence(lease) : undefined;
    let outcome: SendOutcome;
    try {
      outcome = await this.deps.sender.send(event, deployment, fence, this.stopping.signal);
    } catch (err) {
      outcome = { ok: false, status: null, error: `sending failed: ${(err as Error)?.message ?? String(err)}` };
    }
    return fence?.aborted || (!outcome.ok && this.stopped) ? null : outcome;
  }

  /** The signal a send goes with: cut when the host's lease signal fires or the worker stops. */
  private fence(lease: Pick<LeaseContext, 'fence'>): AbortSignal {
    if (this.cut && !this.cut.signal.aborted) return this.cut.signal;
    this.cut = new AbortController();
    const signal = (this.leaseSignal = lease.fence());
    if (signal.aborted) this.cut.abort();
    else signal.addEventListener('abort', this.relayCut, { once: true });
    return this.cut.signal;
  }

  private readonly relayCut = (): void => this.cut?.abort();

  /** The failing-attempt record if it is about this item. */
  private currentFor(item: Item): AttemptRecord | null {
    const c = this.state.current;
    return c && c.seq === item.seq && c.replay === item.replay ? c : null;
  }

  /** The item to deliver next: a queued replay, else the next signal; a promise only when it must be read. */
  private nextItem(): Item | null | Promise<Item | null> {
    const current = this.state.current;
    if (current?.replay || (!current && this.state.replay.length > 0))
      return this.replayItem(current?.replay ? current.seq : this.state.replay[0]!);
    while (this.buffer.length > 0 && this.buffer[0]!.seq <= this.state.cursor) this.buffer.shift();
    if (this.mode === 'joined') {
      if (this.ticket!.failed()) this.leaveCatchUp('self');
      else if (this.ticket!.through() === Infinity) this.leaveCatchUp('live');
      else {
        // Only what the reader has passed: a live signal further on waits for the stored ones before it.
        const head = this.buffer[0];
        return head && head.seq <= this.ticket!.through() ? head : null;
      }
    }
    if (this.mode === 'self') return this.storedItem();
    return this.buffer[0] ?? null;
  }

  private async replayItem(seq: number): Promise<Item | null> {
    const letter = await this.deps.dead.get(deadKey(this.deps.channel, this.deps.deploymentId, seq));
    if (letter) return { seq, event: letter.value.signal, replay: true };
    // Expired or removed: nothing left to replay for it.
    await this.commit((s) => ({
      ...s,
      replay: s.replay.filter((x) => x !== seq),
      current: s.current?.replay && s.current.seq === seq ? null : s.current,
      updated_at: this.clock.now(),
    }));
    return this.nextItem();
  }

  /** The next stored signal, read from the stream; none left: caught up, the pushes take over. */
  private async storedItem(): Promise<Item | null> {
    const stored = await this.deps.signals.next(this.deps.deploymentId, this.state.cursor + 1);
    if (stored) return { ...stored, replay: false };
    this.mode = 'live';
    return this.buffer[0] ?? null;
  }

  /**
   * Applies a state transition in memory and writes it to KV: compare-and-set on the revision
   * this worker holds, merged with the other writer's change on conflict (a replay). Writes go
   * one at a time; transitions made while one is in flight are written together by the next.
   * With `wait` false the caller goes on before the write lands (a delivery: a crash before it
   * lands means that signal is sent again, which receivers de-duplicate by webhook-id). A write of
   * deliveries alone is not parsed by the schema again: they move the cursor and counters on from a
   * parsed state, a parsed signal and the clock; any other transition (error texts, statuses) is.
   */
  private commit(change: ((s: DeliveryState) => DeliveryState) | null, wait = true): Promise<void> {
    // Journaled deliveries came before this transition, and are written with it.
    const journaled = this.journaled;
    if (journaled) {
      this.journaled = null;
      this.unwritten.push((s) => withProgress(s, journaled));
      this.carried = Math.max(this.carried, journaled.cursor);
    }
    if (change) {
      this.state = change(this.state);
      this.unwritten.push(change);
      if (wait) this.parseNext = true;
    }
    const write = (this.writes = this.writes.then(this.writeNext, this.writeNext));
    if (wait) return write;
    write.catch(this.writeFailed);
    return DONE;
  }

  private async flush(): Promise<void> {
    if (this.unwritten.length === 0) return;
    const changes = this.unwritten.splice(0);
    const target = this.state;
    const parse = this.parseNext;
    const carried = this.carried;
    this.parseNext = false;
    this.carried = 0;
    try {
      this.revision = await this.deps.state.update(this.key, target, this.revision, { parse });
    } catch (err) {
      if (!(err instanceof StaleRevisionError)) {
        this.unwritten.unshift(...changes);
        this.parseNext ||= parse;
        this.carried = Math.max(this.carried, carried);
        throw err;
      }
      const merged = await this.deps.state.mutate(this.key, (cur) => changes.reduce((s, f) => f(s), cur ?? target));
      this.revision = merged.revision;
      // Transitions made meanwhile (and deliveries journaled meanwhile) apply on top of the merged state.
      this.state = withProgress(
        this.unwritten.reduce((s, f) => f(s), merged.value),
        this.journaled,
      );
    }
    if (carried > 0) this.deps.journal?.forget(this.key, carried);
  }

  /**
   * Writes the journaled deliveries to the state (the journal asks after a while; a stop before
   * the lease goes). `wait`: resolves once stored, or rejects.
   */
  private checkpoint(wait: boolean): Promise<void> {
    if (this.journaled) return this.commit(null, wait);
    return wait ? this.writes : DONE;
  }

  private readonly checkpointLater = (): void => void this.checkpoint(false);

  /** The item is done with (delivered or dead): the cursor or the replay queue moves past it. */
  private pastItem(s: DeliveryState, item: Item): Pick<DeliveryState, 'cursor' | 'replay' | 'current'> {
    return {
      cursor: item.replay ? s.cursor : Math.max(s.cursor, item.seq),
      replay: item.replay ? s.replay.filter((x) => x !== item.seq) : s.replay,
      current: s.current && s.current.seq === item.seq && s.current.replay === item.replay ? null : s.current,
    };
  }

  private delivered(item: Item, event: SignalEvent): Promise<void> | undefined {
    const now = this.clock.now();
    const change = (s: DeliveryState): DeliveryState => ({
      ...s,
      ...this.pastItem(s, item),
      delivered: s.delivered + 1,
      last_delivered_at: now,
      last_delivered_id: event.id,
      updated_at: now,
    });
    // A replayed dead letter is deleted once its delivery is written; a signal's write is not waited for.
    if (item.replay) {
      return this.commit(change)
        .then(() => this.deps.dead.delete(deadKey(this.deps.channel, this.deps.deploymentId, item.seq)))
        .then(() => this.deps.onDelivered?.(event, this.deps.channel));
    }
    const journal = this.deps.journal;
    if (journal && !this.state.current) {
      // Nothing else pending: the delivery goes to the journal, the state is written later with others.
      this.state = change(this.state);
      this.journaled = progressOf(this.state);
      journal.record(this.key, this.journaled, this.checkpointLater);
    } else void this.commit(change, false);
    this.deps.onDelivered?.(event, this.deps.channel);
    return undefined;
  }

  private async failed(
    item: Item,
    event: SignalEvent,
    current: AttemptRecord | null,
    outcome: Extract<SendOutcome, { ok: false }>,
  ): Promise<void> {
    const now = this.clock.now();
    const attempts = (current?.attempts ?? 0) + 1;
    const first = current?.first_attempt_at ?? now;
    const next = nextAttemptAt(this.deps.policy, first, attempts, now, this.deps.random);
    if (next === null) return this.deadLetter(item, event, { attempts, first_attempt_at: first }, outcome, undefined, true);
    const attempt: AttemptRecord = {
      seq: item.seq,
      signal_id: event.id,
      replay: item.replay,
      attempts,
      first_attempt_at: first,
      last_attempt_at: now,
      next_attempt_at: next,
      last_error: outcome.error,
      last_status: outcome.status,
    };
    await this.commit((s) => ({ ...s, current: attempt, updated_at: now }));
    this.deps.log.info(
      {
        deployment_id: this.deps.deploymentId,
        channel: this.deps.channel,
        signal_id: event.id,
        attempts,
        retry_in_ms: next - now,
        error: outcome.error,
      },
      'delivery failed; will retry',
    );
  }

  /**
   * Moves the item to the dead letters (its record first, so a crash in between retries it
   * rather than losing it), then past it in the queue.
   */
  private async deadLetter(
    item: Item,
    event: SignalEvent,
    attempt: Pick<AttemptRecord, 'attempts' | 'first_attempt_at'> | null,
    outcome: { error: string; status: number | null; capped?: boolean },
    disable?: { reason: string; at: number },
    counted = false,
  ): Promise<void> {
    const now = this.clock.now();
    const attempts = counted ? (attempt?.attempts ?? 1) : (attempt?.attempts ?? 0) + (disable ? 1 : 0);
    const record: DeadLetterRecord = {
      deployment_id: this.deps.deploymentId,
      channel: this.deps.channel,
      seq: item.seq,
      signal: event,
      attempts,
      first_attempt_at: attempt?.first_attempt_at ?? (attempts > 0 ? now : null),
      died_at: now,
      last_error: outcome.error,
      last_status: outcome.status,
      status: 'dead',
      ...(outcome.capped ? { capped: true as const } : {}),
    };
    await this.deps.dead.put(deadKey(this.deps.channel, this.deps.deploymentId, item.seq), record);
    await this.commit((s) => ({
      ...s,
      ...this.pastItem(s, item),
      dead_lettered: s.dead_lettered + (item.replay ? 0 : 1),
      ...(disable ? { disabled: disable } : {}),
      updated_at: now,
    }));
    this.deps.log.warn(
      { deployment_id: this.deps.deploymentId, channel: this.deps.channel, signal_id: event.id, attempts, error: outcome.error },
      'signal moved to the dead letters',
    );
  }
}
