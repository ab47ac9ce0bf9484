import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FromScorer, ToScorer } from './messages.ts';
import { processTempDir } from '../../lib/process-temp-dir.ts';

const ENTRY = fileURLToPath(new URL('./scorer-process.mjs', import.meta.url));
// util-linux: prlimit bounds the process's memory, setpriv has it killed when the service dies
// (a hung run never reads the closed IPC channel, so it cannot notice by itself).
const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find(existsSync);
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find(existsSync);

export interface ScorerLimits {
  /** RLIMIT_DATA of the process, in MB: counts the heap and private writable mappings, so
   *  onnxruntime's native allocations too (V8's flags bound only the JS heap). */
  memoryMb: number;
}

const running = new Set<ChildProcess>();
let exitHook = false;
/** A service that exits kills its scoring processes at once (setpriv covers a SIGKILLed service). */
function killOnExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => running.forEach((c) => c.kill('SIGKILL')));
}

/** One running scoring process. */
export interface ScorerChild {
  readonly pid: number;
  send(message: ToScorer): void;
  /** Keeps the service alive while it waits for an answer (true) or not (false, when idle). */
  hold(busy: boolean): void;
  /** SIGKILL. */
  kill(): void;
  /** The last lines it wrote on stderr (an abort's message), for the log. */
  stderrTail(): string;
}

export interface ScorerEvents {
  message(message: FromScorer): void;
  /** It ended (killed by us, crashed, aborted, out of memory). */
  exit(code: number | null, signal: NodeJS.Signals | null): void;
}

/**
 * Starts `node scorer-process.mjs` as its own OS process: an empty environment (no secret of the
 * service reaches it), a fresh empty private directory as its working directory (no relative
 * path reaches the service's files; removed once it is ready), RLIMIT_DATA and no core files, SIGKILL when the service
 * dies. Throws when util-linux's prlimit or setpriv is missing.
 */
export function spawnScorer(limits: ScorerLimits, events: ScorerEvents): ScorerChild {
  if (!PRLIMIT || !SETPRIV) throw new Error('scoring models needs prlimit and setpriv (install util-linux)');
  const dir = processTempDir('sf-scorer-');
  const bytes = Math.round(limits.memoryMb * 2 ** 20);
  let child: ChildProcess;
  try {
    child = spawn(SETPRIV, ['--pdeathsig', 'KILL', '--', PRLIMIT, `--data=${bytes}`, '--core=0', '--', process.execPath, ENTRY], {
      cwd: dir,
      env: {},
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  let tail = '';
  child.stderr!.on('data', (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-2000)));
  // Ready, it has everything loaded: its directory goes now, so a service killed later leaves no
  // directory behind, and the process keeps a deleted, empty working directory nothing can be made in.
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  child.on('message', (m) => {
    if ((m as FromScorer).type === 'ready') removeDir();
    events.message(m as FromScorer);
  });
  let ended = false;
  const end = (code: number | null, signal: NodeJS.Signals | null) => {
    if (ended) return;
    ended = true;
    running.delete(child);
    removeDir();
    events.exit(code, signal);
  };
  // A send to a process that just died fails here (its exit follows); one that never started ends here.
  child.on('error', () => {
    if (child.pid === undefined) end(null, null);
  });
  child.once('exit', end);
  running.add(child);
  killOnExit();
  const handles = [child, child.channel, child.stderr].filter((h) => h != null) as Array<{ ref(): void; unref(): void }>;
  const hold = (busy: boolean) => handles.forEach((h) => (busy ? h.ref() : h.unref()));
  // Held while it starts (work may wait for it), let go once ready and idle (the pool decides).
  hold(true);
  return {
    pid: child.pid ?? -1,
    send: (message) => {
      if (child.connected) child.send(message);
    },
    hold,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
    stderrTail: () => tail,
  };
}
