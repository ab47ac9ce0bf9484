/** The `signalforge` CLI as a child process, as an operator runs it from the repository root. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { childEnv } from './child-service.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node --import tsx src/cli.ts ARGS` on `dataDir` (DATA_DIR; no NATS_URL or CLICKHOUSE_URL from our environment). */
export function runCli(dataDir: string, args: string[]): Promise<Ran> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: ROOT,
    env: childEnv({ DATA_DIR: dataDir }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })));
}
