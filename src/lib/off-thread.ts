/**
 * Runs a pure function on a worker thread, for long synchronous work (the robustness report,
 * CSCV) that would otherwise hold the event loop the HTTP edge shares under `serve`. The function
 * is named by its module's URL and export; its arguments and value cross by structured clone, so
 * they are plain data (typed arrays, objects — no functions, no class instances), and buffers
 * listed in `transfer` move instead of being copied. Same code on the same inputs: the same result.
 *
 * A small shared pool: at most POOL_SIZE workers, started when needed, not keeping the process
 * alive while idle and ended after IDLE_MS without work; tasks beyond them wait in order. An
 * aborted task is dropped from the queue, or its worker terminated; a worker that dies fails the
 * task it held. stopOffThread() ends every worker and fails what they held (the next call starts anew).
 */
import { availableParallelism } from 'node:os';
import { Worker, type TransferListItem } from 'node:worker_threads';

const BOOT = new URL('./off-thread-boot.mjs', import.meta.url);
/** One worker per spare core, at most 2: the work is a few hundred ms at a time, rarely two jobs at once. */
export const POOL_SIZE = Math.max(1, Math.min(2, availableParallelism() - 1));
const IDLE_MS = 60_000;

export interface OffThreadOptions {
  /** Buffers moved to the worker, not copied (unusable here afterwards). */
  transfer?: readonly TransferListItem[];
  /** Drops the task while it waits; terminates its worker while it runs. Rejects with the signal's reason. */
  signal?: AbortSignal;
}

interface Task {
  id: number;
  module: string;
  name: string;
  args: unknown[];
  transfer: readonly TransferListItem[];
  signal: AbortSignal | undefined;
  resolve(value: unknown): void;
  reject(err: Error): void;
  /** Detaches the abort listener. */
  done(): void;
}

interface Slot {
  worker: Worker;
  task: Task | null;
  idle: NodeJS.Timeout | null;
}

type Answer = { id: number; value: unknown } | { id: number; error: { name: string; message: string } };

const slots: Slot[] = [];
const queue: Task[] = [];
let nextId = 0;

/** The worker's error as the same kind of error here (RangeError stays a RangeError: callers branch on it). */
function errorOf({ name, message }: { name: string; message: string }): Error {
  const Kind = name === 'RangeError' ? RangeError : name === 'TypeError' ? TypeError : Error;
  return new Kind(message);
}

function spawn(): Slot {
  const worker = new Worker(BOOT);
  worker.unref();
  const slot: Slot = { worker, task: null, idle: null };
  worker.on('message', (a: Answer) => {
    const task = slot.task;
    if (!task || task.id !== a.id) return;
    settle(slot);
    if ('error' in a) task.reject(errorOf(a.error));
    else task.resolve(a.value);
  });
  const fail = (err: Error) => {
    const task = slot.task;
    remove(slot);
    if (task) task.reject(new Error(`the off-thread worker stopped (${err.message}) while running ${task.name}`));
    pump();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`exit code ${code}`)));
  slots.push(slot);
  return slot;
}

function remove(slot: Slot): void {
  const i = slots.indexOf(slot);
  if (i >= 0) slots.splice(i, 1);
  if (slot.idle) clearTimeout(slot.idle);
  slot.task?.done();
  slot.task = null;
}

/** The slot's task is over: it goes back to idle (unref'd, ended after IDLE_MS) and takes the next task. */
function settle(slot: Slot): void {
  slot.task?.done();
  slot.task = null;
  slot.worker.unref();
  pump();
  if (!slot.task) {
    slot.idle = setTimeout(() => {
      remove(slot);
      void slot.worker.terminate();
    }, IDLE_MS);
    slot.idle.unref();
  }
}

function pump(): void {
  while (queue.length) {
    const slot = slots.find((s) => !s.task) ?? (slots.length < POOL_SIZE ? spawn() : null);
    if (!slot) return;
    const task = queue.shift()!;
    if (slot.idle) clearTimeout(slot.idle);
    slot.idle = null;
    slot.task = task;
    // Running work keeps the process alive (a caller awaits it); an idle worker does not.
    slot.worker.ref();
    slot.worker.postMessage({ id: task.id, module: task.module, name: task.name, args: task.args }, [...task.transfer]);
  }
}

/** `module`'s export `name` called with `args` on a worker thread; its value, or its error (RangeError and TypeError kept). */
export function runOffThread<T>(module: URL, name: string, args: unknown[], options: OffThreadOptions = {}): Promise<T> {
  const { signal, transfer = [] } = options;
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      const queued = queue.indexOf(task);
      if (queued >= 0) queue.splice(queued, 1);
      const slot = slots.find((s) => s.task === task);
      if (slot) {
        remove(slot);
        void slot.worker.terminate();
        pump();
      }
      reject(signal!.reason as Error);
    };
    const task: Task = {
      id: nextId++,
      module: module.href,
      name,
      args,
      transfer,
      signal,
      resolve: resolve as (v: unknown) => void,
      reject,
      done: () => signal?.removeEventListener('abort', onAbort),
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    queue.push(task);
    pump();
  });
}

/** Ends every worker; queued and running tasks fail. Later calls start new workers. */
export async function stopOffThread(): Promise<void> {
  const stopping = new Error('off-thread work stopped: the service is shutting down');
  for (const task of queue.splice(0)) {
    task.done();
    task.reject(stopping);
  }
  await Promise.all(
    [...slots].map((slot) => {
      const task = slot.task;
      remove(slot);
      task?.reject(stopping);
      return slot.worker.terminate();
    }),
  );
}

/** Workers running and tasks waiting (tests, metrics). */
export function offThreadLoad(): { workers: number; busy: number; waiting: number } {
  return { workers: slots.length, busy: slots.filter((s) => s.task).length, waiting: queue.length };
}
