/**
 * Drives one load run from a separate process (lib/load-worker.ts) and measures the target
 * service's CPU over exactly the measured window, so a figure can be read two ways: requests/s
 * on this machine (where the load generator competes for the same cores) and requests per
 * CPU-second of the service (what the service itself costs).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadMessage, LoadSpec } from './load-worker.ts';
import { machineBusyCpuMs, processCpuMs, REPO_ROOT } from './service.ts';

const WORKER = fileURLToPath(new URL('./load-worker.ts', import.meta.url));

export interface LoadRun extends LoadMessage {
  /** CPU the service process used in the measured window, in ms (null off Linux). */
  server_cpu_ms: number | null;
  /** CPU the whole machine was busy in the window, in ms (all cores; null off Linux). */
  machine_busy_cpu_ms: number | null;
  /** The same window as seen from the driver, in ms. */
  window_ms: number;
}

export function runLoad(spec: LoadSpec, { serverPid, signal }: { serverPid: number; signal: AbortSignal }): Promise<LoadRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, JSON.stringify(spec)], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    let cpuStart: number | null = null;
    let machineStart: number | null = null;
    let tStart = 0;
    let done = false;
    const finish = (err: Error | null, run?: LoadRun) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (err) {
        child.kill('SIGKILL');
        reject(err);
      } else resolve(run!);
    };
    // Warm-up + run + start-up and teardown slack: the worker never outlives this.
    const limitMs = (spec.warmupS + spec.durationS + 20) * 1000;
    const timer = setTimeout(() => finish(new Error(`load worker still running after ${limitMs} ms`)), limitMs);
    const onAbort = () => finish(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    signal.addEventListener('abort', onAbort, { once: true });

    child.on('message', (raw) => {
      const message = raw as { type: string };
      if (message.type === 'measure-start') {
        tStart = performance.now();
        cpuStart = processCpuMs(serverPid);
        machineStart = machineBusyCpuMs();
      } else if (message.type === 'result') {
        const cpuEnd = processCpuMs(serverPid);
        const machineEnd = machineBusyCpuMs();
        const window = performance.now() - tStart;
        finish(null, {
          ...(raw as LoadMessage),
          server_cpu_ms: cpuStart === null || cpuEnd === null ? null : Math.round(cpuEnd - cpuStart),
          machine_busy_cpu_ms: machineStart === null || machineEnd === null ? null : Math.round(machineEnd - machineStart),
          window_ms: Math.round(window),
        });
      }
    });
    child.on('error', (err) => finish(err));
    child.on('exit', (code, sig) => {
      if (!done) finish(new Error(`load worker exited (${code ?? sig}) before reporting`));
    });
  });
}
