/**
 * A `signalforge <role>` child process (edge, trainer, delivery, ingest, store, actors) on a NATS
 * the test runs: its stdout lines kept, its "running" line awaited, SIGKILL or SIGTERM it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { childEnv, ROOT } from './child-service.ts';
import { serviceNodeFlags } from './node-flags.ts';

export interface RoleProcess {
  role: string;
  child: ChildProcess;
  /** The latest stdout lines (at most 2,000: a long run's access log does not pile up). */
  lines: string[];
  exited: Promise<number | null>;
  /** Resolves with the parsed "signalforge <role> running" line, logged at level info (fails when the process exits first or after `timeoutMs`). */
  running(timeoutMs?: number): Promise<Record<string, any>>;
}

/**
 * Node runs with the service's V8 flags (serviceNodeFlags); `nodeArgs` go after them, before the
 * script (e.g. `--cpu-prof` for a benchmark's profile). With
 * ROLE_LOG_DIR set, every stdout line is also written to `<dir>/<role>-<pid>.log` (a long run's
 * whole log, to read while it runs).
 */
export function startRole(role: string, natsUrl: string, env: Record<string, string> = {}, nodeArgs: string[] = []): RoleProcess {
  const lines: string[] = [];
  // childEnv drops NATS_URL (it keeps children off outside infrastructure): this one is the test's.
  const child = spawn(process.execPath, [...serviceNodeFlags(), ...nodeArgs, '--import', 'tsx', 'src/cli.ts', role], {
    cwd: ROOT,
    env: { ...childEnv({ LOG_LEVEL: 'info', ...env }), NATS_URL: natsUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const file = process.env.ROLE_LOG_DIR ? createWriteStream(join(process.env.ROLE_LOG_DIR, `${role}-${child.pid}.log`)) : null;
  const marker = `signalforge ${role} running`;
  let runningLine: string | null = null;
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    file?.write(c);
    const split = (partial + c).split('\n');
    partial = split.pop()!;
    for (const line of split) if (runningLine === null && line.includes(marker)) runningLine = line;
    lines.push(...split);
    if (lines.length > 2_000) lines.splice(0, lines.length - 2_000);
  });
  let code: number | null | undefined;
  const exited = new Promise<number | null>((r) => child.once('exit', (c) => (file?.end(), r((code = c)))));
  return {
    role,
    child,
    lines,
    exited,
    async running(timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (runningLine) return JSON.parse(runningLine) as Record<string, any>;
        if (code !== undefined) throw new Error(`signalforge ${role} exited (${code}) before running`);
        if (Date.now() > deadline) throw new Error(`signalforge ${role} did not start within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}
