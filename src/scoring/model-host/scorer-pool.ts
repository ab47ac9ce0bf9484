import { createHash } from 'node:crypto';
import { RateLimitedError, UnavailableError, UnprocessableError } from '../../errors.ts';
import { FairShare, type Release, type UserKey } from '../../lib/fair-share.ts';
import type { Logger } from '../../log.ts';
import type { BatchItem, FromScorer } from './messages.ts';
import { spawnScorer, type ScorerChild } from './scorer-spawn.ts';
import type { OnnxModel } from './onnx-model.ts';
import { liveClock, type Clock } from '../../lib/clock.ts';

export interface ScorerPoolOptions {
  /** Scoring processes kept warm (default 2). */
  processes?: number;
  /** Memory of each, in MB (RLIMIT_DATA; default 1024). */
  memoryMb?: number;
  /** Deadline of loading one model (default 10 s). */
  loadMs?: number;
  /** Deadline of one run (default 10 s), plus RUN_MS_PER_ROW for each row it scores. */
  runMs?: number;
  /** A model whose load or runs stopped this many processes is refused from then on (default 2). */
  maxKills?: number;
  /** How long the owner of such a model is served only when the pool is otherwise idle (default 10 min). */
  penaltyMs?: number;
  log?: Logger;
  /** The time of the penalties (liveClock unless a test sets it). */
  clock?: Clock;
}

/** A run's deadline grows by this per row: the training span's tens of thousands of rows take longer than a live bar. */
export const RUN_MS_PER_ROW = 0.05;
/** Requests of one owner waiting at most; more are refused at once (429). */
const MAX_WAITING_PER_OWNER = 10_000;
/** Items in one message to a process: one owner's requests waiting when a process came free. */
const MAX_BATCH = 1024;
/** Batches sent to one process before its answers come: the next waits in its inbox, not a round trip away. */
const PIPELINE = 2;
/** A process whose item has run this long takes no batch behind it: it is busy with a big span, or hangs. */
const LONG_ITEM_MS = 100;
/** Content hashes whose models stopped a process, remembered at most. */
const MAX_REMEMBERED_KILLS = 10_000;
const ANONYMOUS = 'anonymous';
/**
 * Runs of X up to this many values (live: one row per bar) are shared: identical calls of one
 * owner (the same model bytes, the same X) waiting or running at once get one inference. Clones
 * of a model deployed many times score the same feature row on every bar; a span (training,
 * /predict) is too large to be worth comparing.
 */
const SHARE_MAX_VALUES = 4096;

/** The model failed in its scoring process: ran past its deadline, crashed or exhausted its memory, or was refused for doing so. */
export class ModelScoringError extends UnprocessableError {
  override name = 'ModelScoringError';
}

interface Model {
  readonly hash: string;
  readonly bytes: Uint8Array;
  refs: number;
  dims: { nFeatures: number; nClasses: number } | null;
  loading: Promise<{ nFeatures: number; nClasses: number }> | null;
}

interface Job {
  kind: 'load' | 'run';
  owner: UserKey;
  model: Model;
  X?: Float32Array;
  rows?: number;
  retried: boolean;
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/** An item sent; `job` null for a load the pool adds before a run on a process that lacks the model. */
interface Sent {
  item: BatchItem;
  job: Job | null;
  model: Model;
}

interface Batch {
  owner: UserKey;
  sent: Sent[];
  /** The item running (answers come in order). */
  next: number;
  release: Release;
}

interface Proc {
  child: ScorerChild;
  ready: boolean;
  /** Models it has, or will have once the loads sent are done. */
  loaded: Set<string>;
  /** Sent and not all answered, oldest (running) first. */
  batches: Batch[];
  /** The deadline of the item running, and when it started (performance.now()). */
  timer: NodeJS.Timeout | null;
  itemSince: number;
  /** Why we killed it (a deadline), else it died on its own. */
  killedFor: string | null;
  startTimer: NodeJS.Timeout | null;
  /** Told when it has exited (close() waits for it). */
  onExit?: () => void;
}

/**
 * Scores ONNX models in processes of their own (scorer-spawn.ts), never on the service's event
 * loop. Owners take turns by FairShare (one batch of an owner's calls at once, the least recently
 * served first); a process has at most PIPELINE batches sent, run in order, so one user's slow or
 * hostile model holds at most one process and delays at most the batch queued behind it there.
 * - Every load and run has a wall-clock deadline; past it, or when the process crashes, aborts or
 *   runs out of memory, the process is SIGKILLed and replaced. The item that was running fails;
 *   other items sent to that process are sent again once to a fresh one, and the models they need
 *   are loaded there again from the bytes kept here.
 * - A model that stopped `maxKills` processes is refused from then on (it fails at once), and its
 *   owner is served only on an otherwise idle pool for `penaltyMs`.
 * - Calls in one event-loop turn (and those waiting while their owner's process was busy) go to
 *   the process as one message.
 */
export class ScorerPool {
  private readonly procs: Proc[] = [];
  private readonly models = new Map<string, Model>();
  private readonly kills = new Map<string, number>();
  private readonly penaltyUntil = new Map<UserKey, number>();
  private readonly queues = new Map<UserKey, Job[]>();
  /** Owners with a FairShare request under way (at most one each). */
  private readonly asking = new Set<UserKey>();
  /** Owners granted a turn while no process was free (one was being replaced). */
  private readonly granted: Array<{ owner: UserKey; release: Release }> = [];
  private readonly shares: FairShare;
  private readonly opts: Required<Omit<ScorerPoolOptions, 'log' | 'clock'>>;
  private readonly clock: Clock;
  private readonly log: Logger | undefined;
  /** Identical small runs waiting or running, by owner, model and X (SHARE_MAX_VALUES). */
  private readonly inflight = new Map<string, Promise<Float32Array>>();
  /** Runs sent to a process, and calls answered by an identical run instead (metrics, tests). */
  private readonly counts = { runs: 0, shared: 0 };
  private seq = 0;
  private closed = false;
  private startFailures = 0;

  constructor(options: ScorerPoolOptions = {}) {
    this.opts = {
      processes: options.processes ?? 2,
      memoryMb: options.memoryMb ?? 1024,
      loadMs: options.loadMs ?? 10_000,
      runMs: options.runMs ?? 10_000,
      maxKills: options.maxKills ?? 2,
      penaltyMs: options.penaltyMs ?? 600_000,
    };
    this.log = options.log;
    this.clock = options.clock ?? liveClock;
    this.shares = new FairShare('the model scorers', {
      slots: this.opts.processes * PIPELINE,
      perUser: 1,
      maxWaitingPerUser: 1,
      penalized: (owner) => (this.penaltyUntil.get(owner) ?? 0) > this.clock.now(),
    });
    for (let i = 0; i < this.opts.processes; i++) this.procs.push(this.spawn());
  }

  /** Loads a model from its bytes; identical bytes share one session per process. */
  async load(bytes: Uint8Array, owner: UserKey = ANONYMOUS): Promise<OnnxModel> {
    if (this.closed) throw new UnavailableError('the service is shutting down; scoring stopped');
    const hash = createHash('sha256').update(bytes).digest('hex');
    this.refuseIfKilling(hash);
    let model = this.models.get(hash);
    if (!model) {
      model = { hash, bytes: new Uint8Array(bytes), refs: 0, dims: null, loading: null };
      this.models.set(hash, model);
    }
    model.refs++;
    try {
      model.dims ??= await (model.loading ??= this.enqueue<{ nFeatures: number; nClasses: number }>({ kind: 'load', owner, model }).finally(
        () => (model.loading = null),
      ));
    } catch (err) {
      this.unref(model);
      throw err;
    }
    return this.handle(model, model.dims, owner);
  }

  /** Runs sent to the processes, and calls answered by an identical run of the same owner instead. */
  stats(): { runs: number; shared: number } {
    return { ...this.counts };
  }

  /** Processes alive now (tests, metrics). */
  get pids(): number[] {
    return this.procs.map((p) => p.child.pid);
  }

  /** Stops every process; waiting and running requests fail. Bounded: processes are SIGKILLed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const gone = new UnavailableError('the service is shutting down; scoring stopped');
    this.shares.rejectWaiting(gone);
    for (const jobs of this.queues.values()) for (const job of jobs) job.reject(gone);
    this.queues.clear();
    const exits = this.procs.map((proc) => {
      for (const batch of proc.batches) for (const s of batch.sent.slice(batch.next)) s.job?.reject(gone);
      if (proc.timer) clearTimeout(proc.timer);
      if (proc.startTimer) clearTimeout(proc.startTimer);
      proc.batches = [];
      return new Promise<void>((done) => {
        proc.onExit = done;
        proc.child.hold(true);
        proc.child.kill();
        setTimeout(done, 2000).unref();
      });
    });
    await Promise.all(exits);
  }

  private handle(model: Model, dims: { nFeatures: number; nClasses: number }, owner: UserKey): OnnxModel {
    const { nFeatures, nClasses } = dims;
    let closed = false;
    const probabilities = async (X: Float32Array, rows: number): Promise<Float32Array> => {
      if (!Number.isInteger(rows) || rows < 0 || X.length !== rows * nFeatures) {
        throw new Error(`onnx-scorer: X has ${X.length} values, expected ${rows} rows x ${nFeatures} features`);
      }
      if (closed) throw new Error('onnx-scorer: the model was closed');
      if (rows === 0) return new Float32Array(0);
      if (X.length > SHARE_MAX_VALUES) return this.enqueue<Float32Array>({ kind: 'run', owner, model, X, rows });
      const key = `${owner}\0${model.hash}\0${rows}\0${Buffer.from(X.buffer, X.byteOffset, X.byteLength).toString('base64')}`;
      let run = this.inflight.get(key);
      if (run) this.counts.shared++;
      else {
        run = this.enqueue<Float32Array>({ kind: 'run', owner, model, X, rows });
        this.inflight.set(key, run);
        const forget = () => void this.inflight.delete(key);
        run.then(forget, forget);
      }
      // Each caller its own copy: the answer is shared, its buffer is not.
      return run.then((p) => p.slice());
    };
    return {
      nFeatures,
      nClasses,
      shareKey: `${owner}\u0000${model.hash}`,
      probabilities,
      async score(X, rows) {
        const p = await probabilities(X, rows);
        const up = new Float32Array(rows);
        for (let i = 0; i < rows; i++) up[i] = p[i * nClasses + nClasses - 1]!;
        return up;
      },
      close: async () => {
        if (closed) return;
        closed = true;
        this.unref(model);
      },
    };
  }

  private unref(model: Model): void {
    if (--model.refs > 0 || this.models.get(model.hash) !== model) return;
    this.models.delete(model.hash);
    for (const proc of this.procs) this.sweep(proc);
  }

  /** Drops sessions no handle holds any more from an idle process. */
  private sweep(proc: Proc): void {
    if (proc.batches.length) return;
    for (const hash of proc.loaded) {
      if (this.models.has(hash)) continue;
      proc.loaded.delete(hash);
      proc.child.send({ type: 'release', hash });
    }
  }

  private refuseIfKilling(hash: string): void {
    if ((this.kills.get(hash) ?? 0) >= this.opts.maxKills) {
      throw new ModelScoringError('this model is refused: it kept stopping its scoring process (time, memory or a crash); train it again');
    }
  }

  private enqueue<T>(spec: Omit<Job, 'retried' | 'resolve' | 'reject'>): Promise<T> {
    if (this.closed) return Promise.reject(new UnavailableError('the service is shutting down; scoring stopped'));
    try {
      this.refuseIfKilling(spec.model.hash);
    } catch (err) {
      return Promise.reject(err);
    }
    const queue = this.queues.get(spec.owner) ?? [];
    if (queue.length >= MAX_WAITING_PER_OWNER) {
      return Promise.reject(
        new RateLimitedError(`${queue.length} of your model scorings are waiting; wait for them before sending more`, 2),
      );
    }
    return new Promise<T>((resolve, reject) => {
      queue.push({ ...spec, retried: false, resolve: resolve as (v: unknown) => void, reject });
      this.queues.set(spec.owner, queue);
      this.ask(spec.owner);
    });
  }

  /** Asks FairShare for the owner's next turn, after this event-loop turn so its calls go together. */
  private ask(owner: UserKey): void {
    if (this.asking.has(owner) || this.closed) return;
    this.asking.add(owner);
    setImmediate(() => {
      this.shares.acquire(owner).then(
        (release) => this.dispatch(owner, release),
        (err: Error) => {
          this.asking.delete(owner);
          for (const job of this.queues.get(owner) ?? []) job.reject(err);
          this.queues.delete(owner);
        },
      );
    });
  }

  /** The owner's turn: everything it has waiting (up to MAX_BATCH) goes to one free process as one message. */
  private dispatch(owner: UserKey, release: Release): void {
    if (this.closed) return release();
    const proc = this.freeProcess(this.queues.get(owner)?.[0]?.model.hash);
    if (!proc) {
      this.granted.push({ owner, release });
      return;
    }
    const queue = this.queues.get(owner) ?? [];
    const jobs = queue.splice(0, MAX_BATCH);
    if (queue.length === 0) this.queues.delete(owner);
    const sent: Sent[] = [];
    const loading = new Set<string>();
    for (const job of jobs) {
      const { hash } = job.model;
      if ((this.kills.get(hash) ?? 0) >= this.opts.maxKills) {
        job.reject(
          new ModelScoringError('this model is refused: it kept stopping its scoring process (time, memory or a crash); train it again'),
        );
        continue;
      }
      if (job.kind === 'load' || !proc.loaded.has(hash)) {
        if (!loading.has(hash)) {
          loading.add(hash);
          // A process that has the model answers from its session: the bytes need not travel again.
          const bytes = proc.loaded.has(hash) ? new Uint8Array(0) : job.model.bytes;
          proc.loaded.add(hash);
          sent.push({ item: { kind: 'load', seq: ++this.seq, hash, bytes }, job: job.kind === 'load' ? job : null, model: job.model });
        } else if (job.kind === 'load') {
          // The same model twice in one batch: answered by the first load.
          sent.push({ item: { kind: 'load', seq: ++this.seq, hash, bytes: new Uint8Array(0) }, job, model: job.model });
        }
      }
      if (job.kind === 'run') {
        this.counts.runs++;
        sent.push({ item: { kind: 'run', seq: ++this.seq, hash, X: job.X!, rows: job.rows! }, job, model: job.model });
      }
    }
    if (sent.length === 0) {
      this.asking.delete(owner);
      release();
      if (this.queues.has(owner)) this.ask(owner);
      return;
    }
    proc.batches.push({ owner, sent, next: 0, release });
    proc.child.hold(true);
    proc.child.send({ type: 'batch', items: sent.map((s) => s.item) });
    if (proc.batches.length === 1) this.arm(proc);
  }

  /** The ready process with the fewest batches sent (under PIPELINE, none behind a long item), one that has the model first. */
  private freeProcess(hash: string | undefined): Proc | undefined {
    let best: Proc | undefined;
    for (const p of this.procs) {
      if (!p.ready || p.batches.length >= PIPELINE) continue;
      if (p.batches.length && performance.now() - p.itemSince > LONG_ITEM_MS) continue;
      if (
        !best ||
        p.batches.length < best.batches.length ||
        (p.batches.length === best.batches.length && hash !== undefined && p.loaded.has(hash) && !best.loaded.has(hash))
      )
        best = p;
    }
    return best;
  }

  /** Starts the deadline of the batch's item now running. */
  private arm(proc: Proc): void {
    const batch = proc.batches[0]!;
    if (proc.timer) clearTimeout(proc.timer);
    const { item } = batch.sent[batch.next]!;
    const ms = item.kind === 'load' ? this.opts.loadMs : this.opts.runMs + item.rows * RUN_MS_PER_ROW;
    const what = item.kind === 'load' ? 'loading the model' : 'scoring';
    proc.itemSince = performance.now();
    proc.timer = setTimeout(() => this.stop(proc, `${what} ran past its ${Math.round(ms / 100) / 10} s limit and was stopped`), ms);
  }

  private onMessage(proc: Proc, message: FromScorer): void {
    if (message.type === 'ready') {
      proc.ready = true;
      proc.child.hold(false);
      this.startFailures = 0;
      if (proc.startTimer) clearTimeout(proc.startTimer);
      this.grantWaiting();
      return;
    }
    const batch = proc.batches[0];
    const current = batch?.sent[batch.next];
    if (!batch || !current || current.item.seq !== message.seq) return;
    const { job, model } = current;
    if (message.type === 'loaded') {
      job?.resolve({ nFeatures: message.nFeatures, nClasses: message.nClasses });
    } else if (message.type === 'scored') {
      job?.resolve(message.p);
    } else {
      this.log?.warn({ model: model.hash.slice(0, 16), owner: batch.owner, error: message.error }, 'model scorer: a model failed');
      // onnxruntime's own words stay in the log: they describe its internals, not what the user can change.
      const err = new ModelScoringError(
        `the model could not be ${current.item.kind === 'load' ? 'loaded' : 'scored'} (onnxruntime refused it; the error was logged): train it again`,
      );
      job?.reject(err);
      if (current.item.kind === 'load') proc.loaded.delete(model.hash);
      // A run whose model did not load on this process cannot run: its later runs here fail alike.
      if (current.item.kind === 'load' && !job) for (const s of batch.sent.slice(batch.next + 1)) if (s.model === model) s.job?.reject(err);
    }
    if (++batch.next < batch.sent.length) return this.arm(proc);
    this.finish(proc);
  }

  private finish(proc: Proc): void {
    const batch = proc.batches.shift()!;
    if (proc.timer) clearTimeout(proc.timer);
    proc.timer = null;
    if (proc.batches.length) this.arm(proc);
    else {
      proc.child.hold(false);
      this.sweep(proc);
    }
    this.asking.delete(batch.owner);
    batch.release();
    if (this.queues.has(batch.owner)) this.ask(batch.owner);
    this.grantWaiting();
  }

  private grantWaiting(): void {
    while (this.granted.length && this.freeProcess(undefined)) {
      const { owner, release } = this.granted.shift()!;
      this.dispatch(owner, release);
    }
  }

  /** Kills the process for `why` (a deadline); its exit does the rest. */
  private stop(proc: Proc, why: string): void {
    proc.killedFor ??= why;
    proc.child.kill();
  }

  private onExit(proc: Proc, code: number | null, signal: NodeJS.Signals | null): void {
    const i = this.procs.indexOf(proc);
    if (i >= 0) this.procs.splice(i, 1);
    if (proc.startTimer) clearTimeout(proc.startTimer);
    proc.onExit?.();
    if (this.closed) return;
    const batches = proc.batches;
    proc.batches = [];
    if (proc.timer) clearTimeout(proc.timer);
    if (!proc.ready && !batches.length) this.startFailures++;
    const culprit = batches[0]?.sent[batches[0].next];
    if (culprit) {
      const why =
        proc.killedFor ??
        (code === null && signal === null ? 'its scoring process could not start' : 'it crashed its scoring process or ran out of memory');
      this.blame(culprit, batches[0]!, why, code, signal, proc);
    }
    // Everything else sent there gets one more try on a fresh process (models reload from the bytes kept here).
    batches.forEach((batch, i) => {
      const again: Job[] = [];
      for (const s of batch.sent.slice(i === 0 ? batch.next + 1 : batch.next)) {
        // The culprit's own later runs in its batch failed with it (blame).
        if (!s.job || (i === 0 && s.model === culprit?.model)) continue;
        if (s.job.retried) s.job.reject(new ModelScoringError('scoring was interrupted twice by other models failing; try again'));
        else again.push({ ...s.job, retried: true });
      }
      if (again.length) this.queues.set(batch.owner, [...again, ...(this.queues.get(batch.owner) ?? [])]);
      this.asking.delete(batch.owner);
      batch.release();
      if (this.queues.has(batch.owner)) this.ask(batch.owner);
    });
    const delay = this.startFailures >= 3 ? Math.min(10, this.startFailures) * 1000 : 0;
    if (this.startFailures >= 3)
      this.failAll(new UnavailableError('the model scoring processes do not start; the failure was logged, try again later'));
    const respawn = () => {
      if (this.closed) return;
      this.procs.push(this.spawn());
    };
    if (delay) setTimeout(respawn, delay).unref();
    else respawn();
  }

  /** The item that was running when its process died: it fails, its model counts a kill, its owner is penalized. */
  private blame(culprit: Sent, batch: Batch, why: string, code: number | null, signal: NodeJS.Signals | null, proc: Proc): void {
    const { hash } = culprit.model;
    const kills = (this.kills.get(hash) ?? 0) + 1;
    this.kills.delete(hash);
    this.kills.set(hash, kills);
    if (this.kills.size > MAX_REMEMBERED_KILLS) this.kills.delete(this.kills.keys().next().value!);
    this.penaltyUntil.set(batch.owner, this.clock.now() + this.opts.penaltyMs);
    this.log?.warn(
      {
        model: hash.slice(0, 16),
        owner: batch.owner,
        pid: proc.child.pid,
        code,
        signal,
        kills,
        why,
        stderr: proc.child.stderrTail().slice(-500),
      },
      'model scorer: a model stopped its scoring process',
    );
    const err = new ModelScoringError(`the model failed: ${why}`);
    culprit.job?.reject(err);
    // A load the pool added for runs: those runs of the model fail with it.
    for (const s of batch.sent.slice(batch.next + 1)) if (s.model === culprit.model) s.job?.reject(err);
  }

  private failAll(err: Error): void {
    for (const jobs of this.queues.values()) for (const job of jobs) job.reject(err);
    this.queues.clear();
  }

  private spawn(): Proc {
    const proc: Proc = {
      child: null as unknown as ScorerChild,
      ready: false,
      loaded: new Set(),
      batches: [],
      timer: null,
      itemSince: 0,
      killedFor: null,
      startTimer: null,
    };
    proc.child = spawnScorer(
      { memoryMb: this.opts.memoryMb },
      {
        message: (m) => this.onMessage(proc, m),
        exit: (code, signal) => this.onExit(proc, code, signal),
      },
    );
    // A process that never says ready is stuck: replace it.
    proc.startTimer = setTimeout(() => this.stop(proc, 'the scoring process did not start'), Math.max(this.opts.loadMs, 10_000));
    proc.startTimer.unref();
    return proc;
  }
}
