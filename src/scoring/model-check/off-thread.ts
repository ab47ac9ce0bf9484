/**
 * checkModel on a worker thread, for callers on the service's event loop: a large model takes
 * seconds to check (npm run bench -- model-check), and a hostile one may be built to. One worker,
 * started at the first call and not keeping the process alive; checks run one at a time, each on
 * a copy of the bytes. A worker that dies fails the checks it held, and the next call starts another.
 */
import { Worker } from 'node:worker_threads';
import type { CheckedModel } from './graph.ts';
import { ModelRejectedError } from './rejected.ts';

type Answer = { id: number; shape: CheckedModel } | { id: number; rejected: string } | { id: number; error: string };

interface Pending {
  resolve(shape: CheckedModel): void;
  reject(err: Error): void;
}

let worker: Worker | null = null;
let nextId = 0;
const pending = new Map<number, Pending>();

function start(): Worker {
  const w = new Worker(new URL('./worker-boot.mjs', import.meta.url));
  w.unref();
  w.on('message', (a: Answer) => {
    const p = pending.get(a.id);
    if (!p) return;
    pending.delete(a.id);
    if ('shape' in a) p.resolve(a.shape);
    else if ('rejected' in a) p.reject(new ModelRejectedError(a.rejected));
    else p.reject(new Error(`model-check worker: ${a.error}`));
  });
  const fail = (err: Error) => {
    if (worker === w) worker = null;
    for (const p of pending.values()) p.reject(new Error(`model-check worker stopped: ${err.message}`));
    pending.clear();
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`exit code ${code}`)));
  return w;
}

/** checkModel(bytes), off the calling thread: the same shape, or the same ModelRejectedError. */
export function checkModelOffThread(bytes: Uint8Array): Promise<CheckedModel> {
  const w = (worker ??= start());
  const id = nextId++;
  return new Promise<CheckedModel>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    if (pending.size === 1) w.ref();
    w.postMessage({ id, bytes });
  }).finally(() => {
    if (pending.size === 0) worker?.unref();
  });
}
