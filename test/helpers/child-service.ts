/**
 * `signalforge serve` as a real child process (for tests that need real signals: SIGTERM,
 * SIGKILL, a restart on the same data directory).
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface ChildService {
  child: ChildProcess;
  url: string;
  natsUrl: string;
  natsPid: number;
  /** Every log line so far (JSON text). */
  log: string[];
  exited: Promise<number | null>;
}

const CLI = ['--import', 'tsx', 'src/cli.ts', 'serve'];

export async function serveChild(dataDir: string, port: number, extraEnv: Record<string, string> = {}, startTimeoutMs = 60_000): Promise<ChildService> {
  const child = spawn(process.execPath, CLI, {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', HISTORY_DAYS: '2', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const log: string[] = [];
  let natsUrl = '';
  let natsPid = 0;
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${out}`)), startTimeoutMs);
    let pending = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        log.push(line);
        const entry = JSON.parse(line);
        if (entry.msg === 'embedded nats-server ready') {
          natsUrl = `nats://127.0.0.1:${entry.port}`;
          natsPid = entry.pid;
        }
        if (entry.msg === 'signalforge serving') {
          clearTimeout(timer);
          resolve();
        }
      }
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    void exited.then((code) => reject(new Error(`service exited with ${code}:\n${out}`)));
  });
  return { child, url: `http://127.0.0.1:${port}`, natsUrl, natsPid, log, exited };
}

/** Stops a service if it still runs: SIGTERM (which stops its nats-server too), SIGKILL only if it hangs. */
export async function shutdownChild(running: ChildService): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return;
  running.child.kill('SIGTERM');
  const timer = setTimeout(() => running.child.kill('SIGKILL'), 15_000);
  await running.exited;
  clearTimeout(timer);
}
