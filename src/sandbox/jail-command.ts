/**
 * How a sandbox process is started: the outer walls, put up before Python runs.
 *
 * As root: `userns-launch.py` (trusted, reads no user data) creates a user namespace whose ids
 * 0..65535 are an unprivileged range of host uids of their own (a new range per process), then
 * execs bubblewrap inside it. bubblewrap adds a mount namespace with only /usr (read-only), the
 * runtime's own files (a read-only copy), a private /tmp and a read-only /dev of five harmless
 * devices (no ptys, no shared memory); a PID, network, IPC, UTS and cgroup
 * namespace of its own; no_new_privs; a clean environment; death with its parent. The Python
 * process is uid 0 *of that namespace* only, keeping just the capabilities it needs to give each
 * job child its own uid and end it (setuid/setgid, kill, and resource for the session's limits);
 * they mean nothing on the host, where it is a uid no file belongs to. Children drop to a job uid
 * (jail.py), which leaves them no capability at all.
 *
 * Not root: bubblewrap's own user namespace, one uid (jobs share the process's uid; the seccomp
 * filter and the rest still hold). Without working namespaces nothing is sandboxed: the runtime
 * refuses to start unless SANDBOX=none says that is meant (development only).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processTempDir } from '../lib/process-temp-dir.ts';

const BWRAP = '/usr/bin/bwrap';
const SOURCE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'python');
/** Host uids handed to sandboxes: 65,536 per process, from here on, cycling through 16,000 ranges. */
const HOST_UID_BASE = 1_000_000;
const HOST_UID_RANGES = 16_000;

/** Which walls a sandbox process puts up: all of them, except in the tests that prove each holds alone. */
export interface Walls {
  /** A uid per job (root only). */
  uid: boolean;
  seccomp: boolean;
  /** The audit hook (the friendly early errors). */
  audit: boolean;
}

export const ALL_WALLS: Walls = { uid: true, seccomp: true, audit: true };

export type SandboxMode = 'auto' | 'none';

/** The interpreter and mode every sandbox process of this Node process uses (config: PYTHON, SANDBOX). */
export interface SandboxSettings {
  python: string;
  mode: SandboxMode;
}

let settings: SandboxSettings = { python: '/usr/bin/python3', mode: 'auto' };

/** Set once at start from the config; the static check and the runtime both read it. */
export function configureSandbox(next: Partial<SandboxSettings>): void {
  settings = { ...settings, ...next };
}

export function sandboxSettings(): SandboxSettings {
  return settings;
}

let installedDir: string | null = null;

/**
 * The runtime's Python files, copied once per Node process to a root-owned, read-only,
 * world-readable folder: the sandbox's unprivileged uid can read it wherever the checkout lives,
 * and nothing the checkout later becomes changes a running sandbox.
 */
export function runtimeDir(): string {
  if (installedDir && existsSync(installedDir)) return installedDir;
  const dir = processTempDir('signalforge-sandbox-');
  for (const name of readdirSync(SOURCE_DIR)) {
    if (!/\.(py|json)$/.test(name)) continue;
    copyFileSync(join(SOURCE_DIR, name), join(dir, name));
    chmodSync(join(dir, name), 0o444);
  }
  chmodSync(dir, 0o555);
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return (installedDir = dir);
}

let probed: 'userns' | 'bwrap' | 'none' | null = null;

/** What this machine allows: the full user-namespace sandbox (root), bubblewrap alone, or nothing. */
export function sandboxSupport(): 'userns' | 'bwrap' | 'none' {
  if (probed) return probed;
  if (!existsSync(BWRAP)) return (probed = 'none');
  const base = [
    '--ro-bind',
    '/usr',
    '/usr',
    '--symlink',
    'usr/bin',
    '/bin',
    '--symlink',
    'usr/lib',
    '/lib',
    '--symlink',
    'usr/lib64',
    '/lib64',
  ];
  if (process.getuid?.() === 0) {
    const [cmd, args] = launcher(0, [BWRAP, ...base, '--unshare-pid', '--unshare-net', '--die-with-parent', '/usr/bin/true']);
    if (spawnSync(cmd, args, { timeout: 5000 }).status === 0) return (probed = 'userns');
  }
  const plain = spawnSync(BWRAP, [...base, '--unshare-all', '--die-with-parent', '/usr/bin/true'], { timeout: 5000 });
  return (probed = plain.status === 0 ? 'bwrap' : 'none');
}

let nextRange = Math.floor(Math.random() * HOST_UID_RANGES);

function launcher(range: number, command: string[]): [string, string[]] {
  const base = HOST_UID_BASE + range * 65_536;
  return [settings.python, ['-I', '-S', join(runtimeDir(), 'userns_launch.py'), String(base), '65536', ...command]];
}

/** The device nodes a sandbox sees (os.devnull, and what libraries may read for randomness). */
const DEVICES = ['null', 'zero', 'full', 'random', 'urandom'];

function bwrapArgs(dir: string, userns: boolean): string[] {
  return [
    '--ro-bind',
    '/usr',
    '/usr',
    '--symlink',
    'usr/lib',
    '/lib',
    '--symlink',
    'usr/lib64',
    '/lib64',
    '--symlink',
    'usr/bin',
    '/bin',
    '--ro-bind-try',
    '/etc/alternatives',
    '/etc/alternatives',
    '--ro-bind-try',
    '/etc/ld.so.cache',
    '/etc/ld.so.cache',
    '--ro-bind',
    dir,
    '/sandbox',
    '--tmpfs',
    '/tmp',
    '--proc',
    '/proc',
    // A minimal /dev of the host's harmless devices, read-only: no devpts (a pty is a kernel object
    // of the host's pty.max, whatever instance), no /dev/shm (the fit uses threads, not processes).
    '--tmpfs',
    '/dev',
    ...DEVICES.flatMap((name) => ['--dev-bind', `/dev/${name}`, `/dev/${name}`]),
    '--remount-ro',
    '/dev',
    // Inside our own user namespace bubblewrap must not nest another (its one-uid map would
    // undo the job uids); without it, --unshare-all makes that one-uid namespace.
    ...(userns
      ? [
          '--unshare-pid',
          '--unshare-net',
          '--unshare-ipc',
          '--unshare-uts',
          '--unshare-cgroup-try',
          '--cap-drop',
          'ALL',
          '--cap-add',
          'CAP_SETUID',
          '--cap-add',
          'CAP_SETGID',
          '--cap-add',
          'CAP_KILL',
          '--cap-add',
          'CAP_SYS_RESOURCE',
        ]
      : ['--unshare-all', '--cap-drop', 'ALL']),
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/bin',
    '--setenv',
    'HOME',
    '/tmp',
    '--setenv',
    'OPENBLAS_NUM_THREADS',
    '1',
    '--setenv',
    'OMP_NUM_THREADS',
    '1',
  ];
}

function wallFlags(walls: Walls): string[] {
  return [...(walls.uid ? [] : ['--no-uid']), ...(walls.seccomp ? [] : ['--no-seccomp']), ...(walls.audit ? [] : ['--no-audit'])];
}

/**
 * The command that runs `script` (a file of the runtime) with `args` in the sandbox.
 * Throws when the machine cannot sandbox and mode is not 'none'.
 */
export function sandboxCommand(
  script: string,
  args: string[],
  { python, mode }: SandboxSettings = settings,
  walls: Walls = ALL_WALLS,
  pythonFlags: string[] = ['-I'],
): [string, string[]] {
  const dir = runtimeDir();
  const tail = [...args, ...wallFlags(walls)];
  // Unsandboxed (development only), a job uid would be a real user's of this host: not used.
  if (mode === 'none') return [python, [...pythonFlags, join(dir, script), ...tail, ...(walls.uid ? ['--no-uid'] : [])]];
  const support = sandboxSupport();
  if (support === 'none') {
    throw new Error(
      'cannot sandbox strategy code here: bubblewrap cannot create namespaces (install bubblewrap and allow user namespaces, or set SANDBOX=none on a development machine only)',
    );
  }
  const inner = [BWRAP, ...bwrapArgs(dir, support === 'userns'), python, ...pythonFlags, `/sandbox/${script}`, ...tail];
  if (support === 'bwrap') return [inner[0]!, inner.slice(1)];
  nextRange = (nextRange + 1) % HOST_UID_RANGES;
  return launcher(nextRange, inner);
}

/** Host uids at or above this belong to sandboxes (tests look their processes up by it). */
export const SANDBOX_HOST_UID_BASE = HOST_UID_BASE;
