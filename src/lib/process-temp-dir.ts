import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { liveClock } from './clock.ts';

/** A directory is swept only when older than this: a process in another pid namespace that just made it is left alone. */
const SWEEP_AFTER_MS = 10 * 60_000;

const swept = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, as another user's process.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes what earlier processes left under `<tmp>/<prefix><pid>-…` when that process is gone (a
 * SIGKILL runs no exit handler): only directories of this uid, older than ten minutes, whose pid
 * is not running. Once per prefix and process.
 */
export function sweepStaleTempDirs(prefix: string, root = tmpdir()): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return 0;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(/^(\d+)-/.exec(name.slice(prefix.length))?.[1]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || alive(pid)) continue;
    const path = join(root, name);
    try {
      const stat = lstatSync(path);
      // A real directory of ours, never a link someone else put there.
      if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || liveClock.now() - stat.mtimeMs < SWEEP_AFTER_MS) continue;
      rmSync(path, { recursive: true, force: true });
      removed++;
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
  return removed;
}

/**
 * A new private directory `<tmp>/<prefix><pid>-XXXXXX`: named by this process, so that the next
 * process to make one sweeps it away if this one is killed before it removes it itself.
 */
export function processTempDir(prefix: string): string {
  if (!swept.has(prefix)) {
    swept.add(prefix);
    sweepStaleTempDirs(prefix);
  }
  return mkdtempSync(join(tmpdir(), `${prefix}${process.pid}-`));
}
