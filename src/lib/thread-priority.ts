import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Lowers the CPU priority of the calling thread only, to `nice` (never raises it). On Linux a nice
 * value belongs to a thread, and `/proc/thread-self` names this one's id, so a worker thread can
 * step back without slowing the event loop of its process. Returns false where threads have no
 * nice value of their own (other systems) or the call is refused.
 */
export function niceThisThread(nice: number): boolean {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    // Never up: a process started at a lower priority keeps it in its workers too.
    setPriority(tid, Math.max(nice, getPriority(tid)));
    return true;
  } catch {
    return false;
  }
}
