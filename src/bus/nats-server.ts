import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from '../log.ts';

export interface EmbeddedNats {
  url: string;
  pid: number;
  /** Stops the server gracefully (SIGTERM, then SIGKILL after a grace period). */
  stop(): Promise<void>;
}

export interface EmbeddedNatsOptions {
  bin: string;
  storeDir: string;
  log: Logger;
  /** Fixed port; a free loopback port when omitted. */
  port?: number;
}

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
  for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

/** Starts a child `nats-server -js` on loopback with its store in `storeDir`. */
export async function startEmbeddedNats(options: EmbeddedNatsOptions): Promise<EmbeddedNats> {
  const { bin, storeDir, log } = options;
  mkdirSync(storeDir, { recursive: true });
  const pidFile = join(storeDir, 'nats-server.pid');
  await stopLeftover(pidFile, log);
  const port = options.port ?? (await freePort());
  const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir, '-P', pidFile];
  const child: ChildProcess = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Never leave an orphan behind when this process exits normally.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const lines: string[] = [];
  await new Promise<void>((resolve, reject) => {
    child.once('error', (err) =>
      reject(new Error(`cannot start ${bin} (${err.message}): install it with 'apt-get install nats-server' or set NATS_URL`)),
    );
    const rl = createInterface({ input: child.stderr! });
    rl.on('line', (line) => {
      if (lines.length < 50) lines.push(line);
      if (line.includes('Server is ready')) resolve();
      else if (/\[(ERR|FTL)\]/.test(line)) log.error({ nats: line }, 'nats-server');
    });
    void exited.then((code) => reject(new Error(`nats-server exited with ${code} before it was ready:\n${lines.join('\n')}`)));
  });
  log.info({ port, storeDir, pid: child.pid }, 'embedded nats-server ready');

  return {
    url: `nats://127.0.0.1:${port}`,
    pid: child.pid!,
    async stop() {
      process.removeListener('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      log.info('embedded nats-server stopped');
    },
  };
}
