/**
 * A job's limits in time. Its budget (`timeoutMs`) is CPU time — the strategy's own, all its threads,
 * times the threads a train job's fit may use — so a job at a low priority on a busy host takes longer
 * in wall time but does not fail for it (python/job_clock.py watches it). Two wall-clock backstops
 * stand behind the budget:
 * - idle: 4 × the budget + 10 s spent neither computing nor waiting for a CPU (sleeping, blocked),
 *   which no CPU budget catches: a `timeout` like the budget;
 * - wall: 16 × the budget + 60 s in all, a host too busy to run the job at all: a `crash` ("try again").
 * Node's own watchdog over the sandbox process comes 10 s after the wall ceiling.
 */

export const IDLE_FACTOR = 4;
export const IDLE_SLACK_MS = 10_000;
export const WALL_FACTOR = 16;
export const WALL_SLACK_MS = 60_000;
const WATCHDOG_SLACK_MS = 10_000;

/** The backstops of a job with this CPU budget, as the runtime's messages name them. */
export function wallBackstops(timeoutMs: number): { idle_ms: number; wall_ms: number } {
  return { idle_ms: IDLE_FACTOR * timeoutMs + IDLE_SLACK_MS, wall_ms: WALL_FACTOR * timeoutMs + WALL_SLACK_MS };
}

/** When Node gives up on the sandbox process running a job with this budget (it is killed). */
export function watchdogMs(timeoutMs: number): number {
  return wallBackstops(timeoutMs).wall_ms + WATCHDOG_SLACK_MS;
}
