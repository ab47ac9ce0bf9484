import { lastSeq, openRangeReader, type Bus } from '../../src/bus/index.ts';
import { parseSignal, type SignalLog } from '../../src/delivery/index.ts';
import type { Logger } from '../../src/log.ts';
import type { SignalEvent } from '../../schemas/live.ts';
import { Streams } from '../../schemas/messages.ts';

/** Where stored signals of one worker's deployment go. */
export interface CatchUpSink {
  push(seq: number, event: SignalEvent | null): void;
  /** Its ticket moved on: caught up, or the reader gave up. */
  wake(): void;
}

/** A worker's place in a catch-up. */
export interface CatchUpTicket {
  /**
   * Every stored signal of the deployment from the joined sequence up to this one has been pushed
   * (0: none yet); Infinity once caught up with the stream, after which new signals come only live.
   */
  through(): number;
  /** The reader gave up on it (NATS trouble, a stall): the worker reads the stream itself. */
  failed(): boolean;
  leave(): void;
}

export interface CatchUpReaderDeps {
  bus: Pick<Bus, 'js' | 'jsm'>;
  /** Per-deployment reads, for a deployment whose cursor lies far behind the stream's end. */
  signals: Pick<SignalLog, 'next'>;
  log: Logger;
  /** Joins gathered into one batch: it starts once none came for `gatherMs`, or `maxGatherMs` after the first. */
  gatherMs?: number;
  maxGatherMs?: number;
  /** A cursor further than this many messages behind the stream's end is looked up by subject first. */
  farBehind?: number;
  /** No signal for this long while the end is not reached: the batch gives up (its workers read themselves). */
  stallMs?: number;
}

interface Member {
  deploymentId: string;
  fromSeq: number;
  sink: CatchUpSink;
  batch: Batch | null;
  state: 'queued' | 'reading' | 'done' | 'failed';
}

interface Batch {
  members: Map<string, Set<Member>>;
  /** The last sequence read (and pushed to its members). */
  position: number;
  /** The stream's last sequence, looked up after every member had joined: the batch ends there. */
  end: number;
  /** A member joined after `end` was looked up: look again before ending. */
  refresh: boolean;
  /** Late joiners are taken (their signals lie ahead of `position`). */
  open: boolean;
}

const SUBJECT_PREFIX = 'signals.';
/** Signals asked for at once, and how long a fetch may wait for them. */
const FETCH_MAX = 1_000;
const FETCH_WAIT_MS = 1_000;
/** Cursor look-ups by subject in flight at once (deployments far behind). */
const LOOKUPS_AT_ONCE = 32;

/**
 * Catches a delivery process's workers up on their deployments' stored signals with ONE
 * throw-away consumer over `signals.>` per burst of claims, rather than one stream read per signal and
 * deployment: workers join with the first sequence they still need; joins are gathered into a
 * batch; the batch reads the stream from the lowest of them to the stream's end as looked up
 * after they joined, pushes each signal to its deployment's workers and finally marks them caught
 * up. A signal published after that look-up reaches the worker through the process's live
 * consumer, whose routing to the worker began before it joined, so nothing is missed in between.
 * A worker joining while a batch reads, with nothing behind the batch's position, rides along.
 * A deployment far behind the stream's end (a quiet one, a brand-new state at cursor 0) has its
 * next signal looked up by subject first, so the batch does not re-read weeks of the stream.
 */
export class CatchUpReader {
  private queued: Member[] = [];
  private batch: Batch | null = null;
  private running: Promise<void> | null = null;
  private gatherTimer: NodeJS.Timeout | undefined;
  private firstQueuedAt = 0;
  private closed = false;
  private readonly gatherMs: number;
  private readonly maxGatherMs: number;
  private readonly farBehind: number;
  private readonly stallMs: number;

  constructor(private readonly deps: CatchUpReaderDeps) {
    this.gatherMs = deps.gatherMs ?? 50;
    this.maxGatherMs = deps.maxGatherMs ?? 500;
    this.farBehind = deps.farBehind ?? 100_000;
    this.stallMs = deps.stallMs ?? 5_000;
  }

  /** A worker needs the deployment's stored signals from `fromSeq` on. */
  join(deploymentId: string, fromSeq: number, sink: CatchUpSink): CatchUpTicket {
    const member: Member = { deploymentId, fromSeq, sink, batch: null, state: 'queued' };
    const batch = this.batch;
    if (this.closed) member.state = 'failed';
    else if (batch?.open && fromSeq > batch.position) {
      this.enlist(batch, member);
      batch.refresh = true;
    } else {
      this.queued.push(member);
      this.gather();
    }
    return {
      through: () => (member.state === 'done' ? Infinity : member.state === 'reading' ? member.batch!.position : 0),
      failed: () => member.state === 'failed',
      leave: () => {
        this.queued = this.queued.filter((m) => m !== member);
        member.batch?.members.get(deploymentId)?.delete(member);
        if (member.state === 'queued' || member.state === 'reading') member.state = 'failed';
      },
    };
  }

  /** Stops reading; workers still waiting read the stream themselves. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.gatherTimer);
    for (const m of this.queued.splice(0)) this.settle(m, 'failed');
    await this.running;
  }

  private enlist(batch: Batch, member: Member): void {
    member.batch = batch;
    member.state = 'reading';
    const group = batch.members.get(member.deploymentId) ?? new Set<Member>();
    group.add(member);
    batch.members.set(member.deploymentId, group);
  }

  private settle(member: Member, state: 'done' | 'failed'): void {
    if (member.state !== 'queued' && member.state !== 'reading') return;
    member.state = state;
    member.sink.wake();
  }

  /** Starts a batch once joins stop coming for a moment (claims arrive in bursts). */
  private gather(): void {
    if (this.running || this.closed) return;
    const now = performance.now();
    if (!this.gatherTimer) this.firstQueuedAt = now;
    clearTimeout(this.gatherTimer);
    const wait = Math.max(0, Math.min(this.gatherMs, this.firstQueuedAt + this.maxGatherMs - now));
    this.gatherTimer = setTimeout(() => {
      this.gatherTimer = undefined;
      const members = this.queued.splice(0);
      if (members.length === 0) return;
      this.running = this.read(members)
        .catch((err: unknown) => {
          this.deps.log.warn(
            { error: (err as Error).message, deployments: members.length },
            'delivery: catching up through one reader failed; the workers read the stream themselves',
          );
          for (const m of members) this.settle(m, 'failed');
        })
        .finally(() => {
          this.batch = null;
          this.running = null;
          if (this.queued.length > 0) this.gather();
        });
    }, wait);
  }

  private async read(members: Member[]): Promise<void> {
    const { bus, signals } = this.deps;
    const end = await lastSeq(bus, Streams.signals.name);
    // Far behind: the deployment's next signal looked up by subject (none: caught up at once).
    const far = members.filter((m) => m.fromSeq < end - this.farBehind);
    for (let i = 0; i < far.length; i += LOOKUPS_AT_ONCE) {
      await Promise.all(
        far.slice(i, i + LOOKUPS_AT_ONCE).map(async (m) => {
          const next = await signals.next(m.deploymentId, m.fromSeq);
          if (!next || next.seq > end) this.settle(m, 'done');
          else m.fromSeq = next.seq;
        }),
      );
    }
    const waiting = members.filter((m) => m.state === 'queued');
    const from = Math.min(...waiting.map((m) => m.fromSeq));
    if (waiting.length === 0 || from > end || this.closed) {
      for (const m of waiting) this.settle(m, this.closed ? 'failed' : 'done');
      return;
    }
    const batch: Batch = (this.batch = { members: new Map(), position: from - 1, end, refresh: false, open: true });
    for (const m of waiting) this.enlist(batch, m);
    const started = performance.now();
    let read = 0;
    const range = await openRangeReader(bus, Streams.signals.name, `${SUBJECT_PREFIX}>`, from);
    let empty = 0;
    try {
      while (batch.position < batch.end && !this.closed) {
        // As many as the stream holds up to the end (every sequence is a signal): the batch comes at once.
        const msgs = await range.next(Math.min(FETCH_MAX, batch.end - batch.position), FETCH_WAIT_MS);
        // Nothing where the end says there is (removed by the stream's limits, NATS away): give up after a while.
        if (msgs.length === 0 && ++empty * FETCH_WAIT_MS >= this.stallMs) break;
        for (const msg of msgs) {
          empty = 0;
          read++;
          const group = batch.members.get(msg.subject.slice(SUBJECT_PREFIX.length));
          if (group && group.size > 0) {
            const event = parseSignal(msg.data);
            for (const m of group) if (msg.seq >= m.fromSeq) m.sink.push(msg.seq, event);
          }
          batch.position = msg.seq;
        }
        // Members that joined since the end was looked up: it is looked up again (they may need what came after it).
        while (batch.position >= batch.end && batch.refresh) {
          batch.refresh = false;
          batch.end = await lastSeq(bus, Streams.signals.name);
        }
      }
    } finally {
      batch.open = false;
      await range.close();
    }
    const reached = batch.position >= batch.end;
    for (const group of batch.members.values()) for (const m of group) this.settle(m, reached ? 'done' : 'failed');
    const log = reached ? this.deps.log.debug.bind(this.deps.log) : this.deps.log.warn.bind(this.deps.log);
    log(
      { deployments: batch.members.size, from, end: batch.end, read, ms: Math.round(performance.now() - started) },
      reached
        ? 'delivery: caught up through one reader'
        : 'delivery: the catch-up reader stopped before the end; the workers read the stream themselves',
    );
  }
}
