/** The processes below a pid, from /proc (Linux): for tests that check every child is reaped. */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** The state letter: R, S, D, Z (zombie, `<defunct>`), … */
  state: string;
  command: string;
}

function read(pid: number): ProcessInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const [state, ppid] = stat.slice(close + 2).split(' ');
    return { pid, ppid: Number(ppid), state: state!, command: stat.slice(stat.indexOf('(') + 1, close) };
  } catch {
    return null;
  }
}

/** Every live process (zombies included) descending from `root`. */
export function descendants(root: number): ProcessInfo[] {
  const all = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((d) => read(Number(d)))
    .filter((p): p is ProcessInfo => p !== null);
  const out: ProcessInfo[] = [];
  const parents = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of all) {
      if (!parents.has(p.pid) && parents.has(p.ppid)) {
        parents.add(p.pid);
        out.push(p);
        grew = true;
      }
    }
  }
  return out;
}

/** Which of these processes still run (a zombie of a dead parent counts as gone once reaped). */
export function stillRunning(processes: ProcessInfo[]): ProcessInfo[] {
  return processes.map((p) => read(p.pid)).filter((p): p is ProcessInfo => p !== null && p.state !== 'Z');
}
