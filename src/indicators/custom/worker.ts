/** A Pine worker thread: runs jobs posted by the pool, one at a time, off the edge's event loop. */
import { parentPort } from 'node:worker_threads';
import { runJob, type PineJob } from './job.ts';

parentPort!.on('message', (job: PineJob) => {
  parentPort!.postMessage(runJob(job));
});
