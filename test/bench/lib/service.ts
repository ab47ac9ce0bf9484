/**
 * Runs the real service as a child process (`node --import tsx src/cli.ts serve`) on a free
 * loopback port with a temporary DATA_DIR, the way an operator starts it. Its own output goes
 * to our stderr; it is stopped with SIGTERM (SIGKILL to its process group after a grace time).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { freePort } from '../../../src/bus/index.ts';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

export interface ServiceProcess {
  url: string;
  pid: number;
  dataDir: string;
  env: Record<string, string>;
  /** Milliseconds from spawn to the first healthy /_healthz. */
  startMs: number;
  /** Bytes the service has written to stdout (its pino log, kept in a file as in production). */
  logBytes(): number;
  /** SIGTERM, wait for exit (SIGKILL to the process group after `graceMs`), remove DATA_DIR. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: string | null; ms: number }>;
}

/** Environment variables that would point the service at outside infrastructure. */
const OUTSIDE = ['NATS_URL', 'CLICKHOUSE_URL', 'ANTHROPIC_API_KEY', 'TELEGRAM_BOT_TOKEN', 'KAFKA_BROKERS', 'TRUST_PROXY'];

export interface StartOptions {
  signal: AbortSignal;
  log: (message: string) => void;
  timeoutMs?: number;
  /** Checkout whose src/cli.ts is started (default: this one), to compare two versions. */
  root?: string;
  /** Extra node flags, e.g. ['--cpu-prof', '--cpu-prof-dir=/tmp/prof']. */
  nodeArgs?: string[];
  /** Start on this existing DATA_DIR (a restart) instead of a new temporary one. */
  dataDir?: string;
  /** Leave DATA_DIR in place on stop, for a restart on it. */
  keepDataDir?: boolean;
}

export async function startServiceProcess(
  env: Record<string, string>,
  { signal, log, timeoutMs = 30_000, root = REPO_ROOT, nodeArgs = [], dataDir: reuse, keepDataDir = false }: StartOptions,
): Promise<ServiceProcess> {
  const spawned = performance.now();
  const port = await freePort();
  const dataDir = reuse ?? mkdtempSync(join(tmpdir(), 'sf-bench-'));
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const name of OUTSIDE) delete childEnv[name];
  const serviceEnv = { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ...env };
  Object.assign(childEnv, serviceEnv);

  // pino writes its log to stdout; a file takes it, as a log shipper would, without the bench
  // driver spending CPU relaying it. stderr (warnings, crashes) comes through to ours.
  const logFile = join(dataDir, 'service.stdout.log');
  const logFd = openSync(logFile, 'a');
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/cli.ts', 'serve'], {
    cwd: root,
    env: childEnv,
    stdio: ['ignore', logFd, 'pipe'],
    // Its own process group, so a stuck service and its nats-server can be killed together.
    detached: true,
  });
  let tail = '';
  const keep = (chunk: Buffer) => {
    process.stderr.write(chunk);
    tail = (tail + chunk.toString()).slice(-4000);
  };
  closeSync(logFd);
  child.stderr!.on('data', keep);
  const logTail = () => {
    try {
      return readFileSync(logFile, 'utf8').slice(-4000);
    } catch {
      return '';
    }
  };
  const exited = new Promise<{ code: number | null; signal: string | null }>((done) =>
    child.once('exit', (code, sig) => done({ code, signal: sig })),
  );
  let alive = true;
  void exited.then(() => (alive = false));

  const killGroup = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      /* already gone */
    }
  };
  const groupAlive = () => {
    try {
      process.kill(-child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  };
  let stopping: Promise<{ code: number | null; signal: string | null; ms: number }> | null = null;
  const stop = (graceMs = 15_000) =>
    (stopping ??= (async () => {
      const started = performance.now();
      if (alive) child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const result = await Promise.race([exited, new Promise<null>((done) => (timer = setTimeout(() => done(null), graceMs)))]);
      clearTimeout(timer);
      if (!result) {
        log(`service pid ${child.pid} did not stop within ${graceMs} ms of SIGTERM: SIGKILL to its process group`);
        killGroup('SIGKILL');
      }
      const final = result ?? (await exited);
      // A service stopped before its own signal handler was installed (still starting) dies at
      // once and leaves its nats-server behind: the group holds only what this bench started.
      if (groupAlive()) {
        killGroup('SIGTERM');
        for (let i = 0; i < 40 && groupAlive(); i++) await new Promise((r) => setTimeout(r, 50));
        if (groupAlive()) killGroup('SIGKILL');
      }
      if (!keepDataDir) rmSync(dataDir, { recursive: true, force: true });
      return { ...final, ms: Math.round(performance.now() - started) };
    })());

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      if (!alive) throw new Error(`service exited during start:\n${logTail()}\n${tail}`);
      if (Date.now() > deadline) throw new Error(`service not healthy within ${timeoutMs} ms:\n${logTail()}\n${tail}`);
      try {
        const res = await fetch(`${url}/_healthz`, { signal: AbortSignal.timeout(1000) });
        if (res.ok && (await res.text()) === 'ok') break;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await stop(5000);
    throw err;
  }
  const logBytes = () => {
    try {
      return statSync(logFile).size;
    } catch {
      return 0;
    }
  };
  const startMs = Math.round(performance.now() - spawned);
  return { url, pid: child.pid!, dataDir, env: serviceEnv, startMs, logBytes, stop };
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); null elsewhere. */
export function processCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/**
 * CPU time (ms) the whole machine has spent busy so far (every core: user, nice, system, irq,
 * softirq, steal), from /proc/stat; null elsewhere. Minus the service's and the load generator's
 * own time over a window, it shows how much else competed for the cores.
 */
export function machineBusyCpuMs(): number | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
    return (((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** USER_HZ: 100 on every Linux this runs on (the kernel ABI fixes it for /proc). */
const CLOCK_TICKS = 100;

/**
 * Waits (at most `maxWaitMs`) until the machine is near idle: busy below `maxBusyCores` over a
 * 500 ms sample. Other work on a 2-core machine (a test run next door) halves an HTTP figure,
 * so a run should start in a quiet moment. Returns the busy cores last seen and the time waited.
 */
export async function waitForQuiet(
  maxWaitMs: number,
  signal: AbortSignal,
  maxBusyCores = 0.25,
): Promise<{ busy_cores: number | null; waited_ms: number; quiet: boolean }> {
  const started = performance.now();
  let busy: number | null = null;
  for (;;) {
    const b0 = machineBusyCpuMs();
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, 500));
    const b1 = machineBusyCpuMs();
    if (b0 === null || b1 === null) return { busy_cores: null, waited_ms: 0, quiet: true };
    busy = Math.round(((b1 - b0) / (performance.now() - t0)) * 100) / 100;
    const waited = Math.round(performance.now() - started);
    if (busy < maxBusyCores) return { busy_cores: busy, waited_ms: waited, quiet: true };
    if (waited >= maxWaitMs || signal.aborted) return { busy_cores: busy, waited_ms: waited, quiet: false };
  }
}
