/** A Pine worker thread: runs jobs posted by the pool, one at a time, off the edge's event loop. */
import { parentPort } from 'node:worker_threads';
import { runJob, type PineJob } from './job.ts';

parentPort!.on('message', (job: PineJob) => {
  const r = runJob(job);
  // The response bytes move to the edge's thread rather than being copied there.
  parentPort!.postMessage(r, r.ok && r.body ? [r.body.buffer as ArrayBuffer] : []);
});
