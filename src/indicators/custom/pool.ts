import { Worker } from 'node:worker_threads';
import { RateLimitedError } from '../../errors.ts';
import type { PineJob, PineJobResult } from './job.ts';

export interface PinePoolOptions {
  /** Worker threads (scripts run in parallel up to this many). */
  size: number;
  /** Wall-clock budget of one run; the worker is killed at twice this, plus a second. */
  wallMs: number;
  /** Jobs waiting beyond the running ones; past it a request gets 429. */
  maxQueue: number;
  /** Heap per worker, in MB: a script allocating past it kills only its worker. */
  heapMb: number;
  /** Nice value of the worker threads (0-19; 0 keeps the process's): scripts yield a core to the event loop. */
  nice: number;
}

interface Pending {
  job: PineJob;
  resolve(r: PineJobResult): void;
  stamps: PineRunStamps | undefined;
}

/** When a job left the queue for a worker (performance.now()), for the caller's stage timings. */
export interface PineRunStamps {
  dispatchedAt?: number;
}

interface Slot {
  worker: Worker;
  busy: Pending | null;
  timer: NodeJS.Timeout | null;
}

const WORKER_URL = new URL('./worker-boot.mjs', import.meta.url);

/**
 * Worker threads that run Pine scripts, so a long or hostile script never blocks the event loop:
 * each run has a wall-clock limit inside the worker, and a worker that does not answer in time
 * (or dies) is terminated and replaced, its job answered as a script problem.
 */
export class PinePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: PinePoolOptions) {
    for (let i = 0; i < options.size; i++) this.slots.push(this.spawn());
  }

  run(job: Omit<PineJob, 'id' | 'wallMs'>, stamps?: PineRunStamps): Promise<PineJobResult> {
    if (this.closed) return Promise.resolve({ id: 0, ok: false, failure: 'the Pine pool is closed' });
    if (this.queue.length >= this.options.maxQueue) {
      throw new RateLimitedError('too many custom indicators are running; retry in a few seconds', 2);
    }
    return new Promise((resolve) => {
      this.queue.push({ job: { ...job, id: this.nextId++, wallMs: this.options.wallMs }, resolve, stamps });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.resolve({ id: p.job.id, ok: false, failure: 'the service is shutting down' });
    await Promise.all(this.slots.map((s) => this.retire(s, 'the service is shutting down')));
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_URL, { workerData: { nice: this.options.nice }, resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb } });
    worker.unref();
    const slot: Slot = { worker, busy: null, timer: null };
    worker.on('message', (r: PineJobResult) => this.settle(slot, r));
    // Out of memory is the script's doing (a huge array); any other crash is ours.
    worker.on('error', (err: Error & { code?: string }) =>
      err.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? this.replace(slot, 'the script ran out of memory and was stopped; use smaller arrays', true)
        : this.replace(slot, `the Pine worker failed: ${err.message}`, false),
    );
    worker.on('exit', () => {
      if (!this.closed && this.slots.includes(slot)) this.replace(slot, 'the Pine worker exited', false);
    });
    return slot;
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (slot.busy || this.queue.length === 0) continue;
      const p = this.queue.shift()!;
      slot.busy = p;
      slot.timer = setTimeout(() => this.replace(slot, 'the script ran past its time limit and was stopped; simplify it or shorten loops', true), this.options.wallMs * 2 + 1000);
      if (p.stamps) p.stamps.dispatchedAt = performance.now();
      slot.worker.postMessage(p.job);
    }
  }

  private settle(slot: Slot, r: PineJobResult): void {
    const p = slot.busy;
    if (!p || p.job.id !== r.id) return;
    if (slot.timer) clearTimeout(slot.timer);
    slot.busy = null;
    slot.timer = null;
    p.resolve(r);
    this.pump();
  }

  /** Kills a worker and starts another; its job (if any) is answered with `why` (a script problem when `scriptsFault`). */
  private replace(slot: Slot, why: string, scriptsFault: boolean): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    const p = slot.busy;
    slot.busy = null;
    this.slots.splice(i, 1);
    void this.retire(slot, why);
    if (p) p.resolve(scriptsFault ? { id: p.job.id, ok: false, problem: { message: why, line: 1, col: 1, construct: null } } : { id: p.job.id, ok: false, failure: why });
    if (!this.closed) {
      this.slots.push(this.spawn());
      this.pump();
    }
  }

  private async retire(slot: Slot, _why: string): Promise<void> {
    if (slot.timer) clearTimeout(slot.timer);
    slot.worker.removeAllListeners();
    slot.worker.on('error', () => {});
    await slot.worker.terminate().catch(() => {});
  }
}
