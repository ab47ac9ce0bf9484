/**
 * `signalforge serve` as a real child process (for tests that need real signals: SIGTERM,
 * SIGKILL, a restart on the same data directory).
 *
 * The child runs from the repository root with our environment minus NATS_URL and
 * CLICKHOUSE_URL (so it never talks to outside infrastructure: it starts its own nats-server
 * and store under DATA_DIR), plus PORT, HOST=127.0.0.1, DATA_DIR, LOG_LEVEL=info and the
 * caller's `env`.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/bus/index.ts';
import { serviceNodeFlags } from './node-flags.ts';

/** The repository: where service children run from. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServeOptions {
  /** The port to listen on; a free one when not given. */
  port?: number;
  /** Variables set on top of the defaults (HISTORY_DAYS, MARKET_FEED, …). */
  env?: Record<string, string>;
  /** How long to wait for 'signalforge serving' before failing (SIGTERM to the child). */
  startTimeoutMs?: number;
  /** Runs the child in its own process group, so a test can signal the whole group (`kill(-pid)`). */
  group?: boolean;
}

export interface ChildService {
  child: ChildProcess;
  url: string;
  /** The embedded nats-server, from its 'embedded nats-server ready' line ('' and 0 if none). */
  natsUrl: string;
  natsPid: number;
  /** Every stdout line so far, as written. */
  lines: string[];
  /** The log lines (JSON) so far, parsed. */
  log: Array<Record<string, any>>;
  exited: Promise<number | null>;
}

/** The environment of a child: ours plus `extra`, minus anything that would point it at outside infrastructure. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  // Role processes' health endpoints on free ports: children of one test never collide.
  const env: NodeJS.ProcessEnv = { ...process.env, HEALTH_PORT: '0', ...extra };
  delete env.NATS_URL;
  delete env.CLICKHOUSE_URL;
  return env;
}

/** Starts `signalforge serve` on `dataDir`; resolves once it logs 'signalforge serving', rejects (with its log and stderr) if it exits or times out first. */
export async function serveChild(dataDir: string, options: ServeOptions = {}): Promise<ChildService> {
  const port = options.port ?? (await freePort());
  const env = childEnv({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...options.env });
  const child = spawn(process.execPath, [...serviceNodeFlags(), '--import', 'tsx', 'src/cli.ts', 'serve'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.group ?? false,
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const running: ChildService = { child, url: `http://127.0.0.1:${port}`, natsUrl: '', natsPid: 0, lines: [], log: [], exited };
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const output = () => `${running.lines.join('\n')}\n${stderr}`;
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      fail(new Error(`service did not start:\n${output()}`));
    }, options.startTimeoutMs ?? 30_000);
    let pending = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        running.lines.push(line);
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line);
        running.log.push(entry);
        if (entry.msg === 'embedded nats-server ready') {
          running.natsUrl = `nats://127.0.0.1:${entry.port}`;
          running.natsPid = entry.pid;
        }
        if (entry.msg === 'signalforge serving') {
          clearTimeout(timer);
          ready();
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`service exited with ${code}:\n${output()}`));
    });
  });
  return running;
}

/** SIGTERM, and asserts a clean exit (code 0). */
export async function stopChild(running: ChildService, message = 'a clean exit on SIGTERM'): Promise<void> {
  running.child.kill('SIGTERM');
  assert.equal(await running.exited, 0, message);
}

/** Stops a service if it still runs: SIGTERM (which stops its nats-server too; SIGKILL would orphan it), SIGKILL only if it hangs. */
export async function shutdownChild(running: ChildService): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return;
  running.child.kill('SIGTERM');
  const timer = setTimeout(() => running.child.kill('SIGKILL'), 15_000);
  await running.exited;
  clearTimeout(timer);
}

/** One JSON call to a child service; the body is parsed when it is JSON (else the text). */
export async function callChild(
  base: string,
  method: string,
  path: string,
  key?: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(base + path, {
    method,
    headers: { ...(key ? { 'x-api-key': key } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

/** Resolves once a log line (parsed JSON) matches, rejecting after `timeoutMs`. */
export async function waitForLog(
  running: ChildService,
  match: (entry: Record<string, any>) => boolean,
  timeoutMs = 30_000,
): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = running.log.find(match);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for a log line; last lines:\n${running.lines.slice(-20).join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
