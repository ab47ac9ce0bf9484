/** A Pine worker thread: runs jobs posted by the pool, one at a time, off the edge's event loop. */
import { parentPort, workerData } from 'node:worker_threads';
import { niceThisThread } from '../../lib/thread-priority.ts';
import { runJob, type PineJob } from './job.ts';

// Scripts wait when the event loop wants the CPU: keyed reads keep answering under a burst of scripts.
const { nice } = workerData as { nice: number };
if (nice > 0) niceThisThread(nice);

parentPort!.on('message', (job: PineJob) => {
  const r = runJob(job);
  // The response bytes move to the edge's thread rather than being copied there.
  parentPort!.postMessage(r, r.ok && r.body ? [r.body.buffer as ArrayBuffer] : []);
});
