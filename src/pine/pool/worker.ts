/** A Pine worker thread: runs jobs posted by the pool, one at a time, off the edge's event loop. */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { runJob, type PineJob } from '../job/job.ts';

/**
 * Scripts are batch work and the edge's requests are not: this thread runs at a lower priority
 * (a higher nice) than the event loop's, so on a machine whose cores are all busy running scripts
 * the loop still gets a core the moment a request arrives. On Linux a thread id taken by
 * setpriority(2) sets that thread alone; raising one's own nice needs no privilege. Elsewhere
 * (no /proc/thread-self) the thread keeps the process's priority.
 */
function lowerOwnPriority(nice: number): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, nice);
  } catch {
    /* not Linux: the thread keeps the process's priority */
  }
}

const { nice } = workerData as { nice: number };
if (nice > 0) lowerOwnPriority(nice);

parentPort!.on('message', (job: PineJob) => {
  const r = runJob(job);
  // The response bytes move to the edge's thread rather than being copied there.
  parentPort!.postMessage(r, r.ok && r.body ? [r.body.buffer as ArrayBuffer] : []);
});
