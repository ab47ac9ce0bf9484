/**
 * What a benchmark reads of the processes it started, from /proc (Linux): memory (RSS, and PSS,
 * which shares copy-on-write pages fairly between forked Python workers) and CPU time, for one
 * process or a process and its descendants.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_S = 100;

const read = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

/** Resident memory of one process, MB. */
export function rssMb(pid: number): number {
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(read(`/proc/${pid}/status`) ?? '')?.[1] ?? 0) / 1024);
}

/** A process's command name (its comm), or '' once it is gone. */
export const commandOf = (pid: number): string => read(`/proc/${pid}/comm`)?.trim() ?? '';

/** The process and every descendant (children's children too). */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = read(`/proc/${name}/stat`);
    if (!stat) continue;
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!parents.has(ppid)) parents.set(ppid, []);
    parents.get(ppid)!.push(Number(name));
  }
  const out: number[] = [];
  const walk = (p: number) => {
    out.push(p);
    for (const c of parents.get(p) ?? []) walk(c);
  };
  walk(pid);
  return out;
}

/** Proportional memory (PSS) of a process and its descendants, MB: node itself, and the rest (Python workers). */
export function treeMemoryMb(pid: number): { self_rss_mb: number; self_pss_mb: number; children: number; children_pss_mb: number } {
  const pss = (p: number) => Number(/Pss:\s+(\d+)/.exec(read(`/proc/${p}/smaps_rollup`) ?? '')?.[1] ?? 0) / 1024;
  const children = processTree(pid).slice(1);
  return {
    self_rss_mb: rssMb(pid),
    self_pss_mb: Math.round(pss(pid)),
    children: children.length,
    children_pss_mb: Math.round(children.reduce((s, c) => s + pss(c), 0)),
  };
}

/** CPU seconds (user + system) used so far by a process and its descendants (each living one with its waited-for dead children). */
export function treeCpuSeconds(pid: number): number {
  const k = treeCpuByKind(pid);
  return k.self + k.python + k.scoring + k.other;
}

/** What kind of process of a tree a command name is: the tree's own Node, the strategy sandbox's Python, the model scorers (Node). */
function kindOf(comm: string): 'python' | 'scoring' | 'other' {
  if (/^(python|bwrap)/.test(comm)) return 'python';
  if (comm === 'node') return 'scoring';
  return 'other';
}

/** Fields of /proc/<pid>/stat after the command name: [0] is field 3 (state), [7] minflt, [11] utime. */
type StatFields = string[];
/** CPU seconds a process used itself (utime + stime) and those of its waited-for dead children (cutime + cstime). */
const cpuOf = (f: StatFields) => ({
  own: (Number(f[11]) + Number(f[12])) / TICKS_PER_S,
  waited: (Number(f[13]) + Number(f[14])) / TICKS_PER_S,
});
/** Minor page faults (first touches of memory a process had not mapped in), its own and its waited-for children's. */
const minorFaultsOf = (f: StatFields) => ({ own: Number(f[7]), waited: Number(f[8]) });

/**
 * A figure of a process and its descendants by kind: `self` (the process itself), `python`
 * (sandbox sessions and pool jobs, bubblewrap included), `scoring` (the ONNX scorer processes,
 * Node children) and `other`; each living process with its waited-for dead children. The root's
 * dead children count as Python: the ones it waits for are the sandbox's one-shot jobs.
 */
function treeByKind(
  pid: number,
  of: (f: StatFields) => { own: number; waited: number },
): Record<'self' | 'python' | 'scoring' | 'other', number> {
  const out = { self: 0, python: 0, scoring: 0, other: 0 };
  for (const p of processTree(pid)) {
    const stat = read(`/proc/${p}/stat`);
    if (!stat) continue;
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const { own, waited } = of(stat.slice(stat.lastIndexOf(')') + 2).split(' '));
    if (p === pid) {
      out.self += own;
      out.python += waited;
    } else out[kindOf(comm)] += own + waited;
  }
  return out;
}

/** CPU seconds of a process and its descendants by kind (treeByKind). */
export const treeCpuByKind = (pid: number) => treeByKind(pid, cpuOf);

/** Minor page faults of a process and its descendants by kind (treeByKind). */
export const treeMinorFaultsByKind = (pid: number) => treeByKind(pid, minorFaultsOf);
