import { readFileSync } from 'node:fs';
import type { DependencyStatus, Readiness } from '../../schemas/health.ts';
import { withDeadline } from './deadline.ts';

/** A dependency check: resolves when the dependency answers, throws (or rejects) saying why not. */
export type DependencyCheck = () => Promise<void> | void;

/** How long one check may take before it counts as failed. */
export const CHECK_TIMEOUT_MS = 1_500;

async function run(name: string, check: DependencyCheck, timeoutMs: number): Promise<DependencyStatus> {
  const started = performance.now();
  try {
    await withDeadline(check(), timeoutMs, name);
    return { ok: true, ms: Math.round(performance.now() - started) };
  } catch (err) {
    return { ok: false, ms: Math.round(performance.now() - started), error: (err as Error).message || String(err) };
  }
}

/** Runs every check at once, each under its own deadline. */
export async function probeReadiness(checks: Record<string, DependencyCheck>, timeoutMs = CHECK_TIMEOUT_MS): Promise<Readiness> {
  const names = Object.keys(checks);
  const results = await Promise.all(names.map((name) => run(name, checks[name]!, timeoutMs)));
  const out: Record<string, DependencyStatus> = {};
  names.forEach((name, i) => (out[name] = results[i]!));
  const failing = names.filter((name) => !out[name]!.ok);
  if (failing.length === 0) return { ready: true, checks: out };
  return { ready: false, checks: out, error: `not ready: ${failing.map((n) => `${n} (${out[n]!.error})`).join('; ')}`, code: 503 };
}

/**
 * The answer of a process still starting: not ready, with what it waits for (the start-up steps
 * under way, each retried until the cluster answers), as one `startup` check beside the others.
 */
export function startingReadiness(waitingFor: string[], startedMs: number): Readiness {
  const waiting = waitingFor.length > 0 ? waitingFor : ['start-up'];
  const error = `starting: waiting for ${waiting.join(', ')}`;
  return {
    ready: false,
    checks: { startup: { ok: false, ms: Math.max(0, Math.round(performance.now() - startedMs)), error } },
    error: `not ready: ${error}`,
    code: 503,
    waiting_for: waiting,
  };
}

/** Whether a pid is a running process (a zombie — exited, not yet reaped — does not count). */
export function processRuns(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state letter follows the command name, which is in parentheses and may hold spaces.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}
