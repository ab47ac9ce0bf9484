import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from '../log.ts';

export interface EmbeddedNats {
  url: string;
  /** The pid of the server running now (it changes when the supervisor restarts it). */
  readonly pid: number;
  /** True while a server process runs and has reported ready. */
  running(): boolean;
  /** Stops the server gracefully (SIGTERM, then SIGKILL after a grace period); no restart after. */
  stop(): Promise<void>;
}

export interface EmbeddedNatsOptions {
  bin: string;
  storeDir: string;
  log: Logger;
  /** Fixed port; a free loopback port when omitted. */
  port?: number;
  /** How long a dead server may take to come back before `onFatal` is called (default 30 s). */
  restartBoundMs?: number;
  /** Called once when the server died and could not be restarted within the bound. */
  onFatal?: (err: Error) => void;
  /** Grace between SIGTERM and SIGKILL on stop (default 5 s). */
  stopGraceMs?: number;
}

/** Default bound for a dead embedded nats-server to come back (NATS_RESTART_BOUND_MS). */
export const DEFAULT_RESTART_BOUND_MS = 30_000;
/** How long one start attempt may take to log 'Server is ready'. */
const READY_TIMEOUT_MS = 10_000;

/** Asks the kernel for a free loopback port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A server left running by a process that was killed outright still holds the JetStream store
 * lock. Its pid file tells us which process it is; we stop it only if it really is nats-server.
 */
async function stopLeftover(pidFile: string, log: Logger): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return;
  }
  if (!cmdline.includes('nats-server')) return;
  log.warn({ pid }, 'stopping a nats-server left over from an earlier run on this data directory');
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(50);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

interface Started {
  child: ChildProcess;
  exited: Promise<void>;
}

/**
 * One server process. Its own process group (detached) so a signal sent to the service's group
 * (Ctrl-C, a supervisor's group kill) reaches the service first, which then stops it last.
 */
async function launch(bin: string, args: string[], log: Logger): Promise<Started> {
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines: string[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`nats-server was not ready within ${READY_TIMEOUT_MS} ms:\n${lines.join('\n')}`)),
        READY_TIMEOUT_MS,
      );
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(new Error(`cannot start ${bin} (${err.message}): install it with 'apt-get install nats-server' or set NATS_URL`));
      });
      const rl = createInterface({ input: child.stderr! });
      rl.on('line', (line) => {
        if (lines.length < 50) lines.push(line);
        if (line.includes('Server is ready')) {
          clearTimeout(timer);
          resolve();
        } else if (/\[(ERR|FTL)\]/.test(line)) log.error({ nats: line }, 'nats-server');
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`nats-server exited with ${child.exitCode ?? child.signalCode} before it was ready:\n${lines.join('\n')}`));
      });
    });
  } catch (err) {
    // A binary that could not be spawned has no process (and emits no 'exit').
    if (child.pid !== undefined) {
      child.kill('SIGKILL');
      await exited;
    }
    throw err;
  }
  return { child, exited };
}

/**
 * Starts a child `nats-server -js` on loopback with its store in `storeDir`, and supervises it:
 * a server that dies (kill -9, a crash) is started again on the same port and store, so
 * JetStream state survives and clients reconnect to the same URL. If it cannot come back within
 * `restartBoundMs`, `onFatal` is called (the service exits non-zero).
 */
export async function startEmbeddedNats(options: EmbeddedNatsOptions): Promise<EmbeddedNats> {
  const { bin, storeDir, log } = options;
  const restartBoundMs = options.restartBoundMs ?? DEFAULT_RESTART_BOUND_MS;
  mkdirSync(storeDir, { recursive: true });
  const pidFile = join(storeDir, 'nats-server.pid');
  await stopLeftover(pidFile, log);
  const port = options.port ?? (await freePort());
  const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir, '-P', pidFile];

  let current: Started = await launch(bin, args, log);
  let ready = true;
  let stopping = false;
  // Never leave an orphan behind when this process exits (normally or by process.exit).
  const killOnExit = () => current.child.kill('SIGKILL');
  process.once('exit', killOnExit);
  log.info({ port, storeDir, pid: current.child.pid }, 'embedded nats-server ready');

  const restart = async (): Promise<void> => {
    const diedAt = performance.now();
    const deadline = diedAt + restartBoundMs;
    let delay = 100;
    let lastError: Error | null = null;
    while (!stopping && performance.now() < deadline) {
      try {
        current = await launch(bin, args, log);
        if (stopping) {
          current.child.kill('SIGTERM');
          return;
        }
        ready = true;
        log.warn(
          { port, storeDir, pid: current.child.pid, restarted: true, down_ms: Math.round(performance.now() - diedAt) },
          'embedded nats-server ready',
        );
        void current.exited.then(onExit);
        return;
      } catch (err) {
        lastError = err as Error;
        log.error({ err: lastError.message, retry_in_ms: delay }, 'embedded nats-server did not start again; retrying');
        await sleep(Math.min(delay, Math.max(0, deadline - performance.now())));
        delay = Math.min(delay * 2, 2_000);
      }
    }
    if (stopping) return;
    const fatal = new Error(
      `the embedded nats-server died and could not be restarted within ${restartBoundMs} ms (NATS_RESTART_BOUND_MS)${lastError ? `: ${lastError.message.split('\n')[0]}` : ''}`,
    );
    log.fatal({ port, storeDir, bound_ms: restartBoundMs }, fatal.message);
    options.onFatal?.(fatal);
  };

  const onExit = () => {
    ready = false;
    if (stopping) return;
    const { child } = current;
    log.error(
      { pid: child.pid, code: child.exitCode, signal: child.signalCode },
      'embedded nats-server died; restarting it on the same port and store',
    );
    void restart();
  };
  void current.exited.then(onExit);

  return {
    url: `nats://127.0.0.1:${port}`,
    get pid() {
      return current.child.pid!;
    },
    running: () => ready,
    async stop() {
      stopping = true;
      process.removeListener('exit', killOnExit);
      const { child, exited } = current;
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), options.stopGraceMs ?? 5_000);
      await exited;
      clearTimeout(timer);
      log.info('embedded nats-server stopped');
    },
  };
}
