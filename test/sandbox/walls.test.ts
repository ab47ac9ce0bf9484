/**
 * The sandbox's walls, each proved with the layers above it already gone. The cases in walls/ run
 * straight on the pool (no static check) with the audit hook and import guard bypassed (every case
 * starts from _escape.py: the real import, os, ctypes, raw syscalls); some suites also switch one
 * kernel wall off to show that the others hold alone. Each case asserts the outcome: the errno,
 * the unchanged files, the absent secret, the process that is gone — and that the zygote serves
 * the next job.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/log.ts';
import type { Walls } from '../../src/sandbox/jail-command.ts';
import { StrategyJobError, StrategyRuntime, type JobLimits } from '../../src/sandbox/runtime-pool.ts';
import type { OhlcColumns } from '../../src/lib/bar-columns.ts';

const DIR = join(import.meta.dirname, 'walls');
const PRELUDE = readFileSync(join(DIR, '_escape.py'), 'utf8');
const UNHOOK = readFileSync(join(DIR, '_unhook.py'), 'utf8');
/** Runtimes whose audit hook is up: their cases switch it off from inside first (_unhook.py). */
const HOOKED = new WeakSet<StrategyRuntime>();
const CANARY = `/usr/local/signalforge-canary-${process.pid}`;
const DATA_DIR = mkdtempSync(join(tmpdir(), 'sf-walls-data-'));

/** A case of the corpus as a strategy, with the test's constants defined first (and the hook switched off first when `unhook`). */
function strategy(name: string, constants: Record<string, string> = {}, unhook = false): string {
  const defs = Object.entries({ CANARY, DATA_DIR, SKIP: '', ...constants }).map(([k, v]) => `${k} = ${JSON.stringify(v)}`);
  return `${defs.join('\n')}\n${unhook ? `${UNHOOK}\n` : ''}${PRELUDE}\n${readFileSync(join(DIR, `${name}.py`), 'utf8')}`;
}

/** Live processes whose name (comm) is `name`, from the host's /proc. */
function processesNamed(name: string): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8')))
        pids.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; !ok();) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const N = 300;
const BARS: OhlcColumns = (() => {
  const ts = new Float64Array(N).map((_, i) => Date.UTC(2024, 0, 2) + i * 900_000);
  const close = new Float64Array(N).map((_, i) => 1.1 + 0.001 * Math.sin(i / 7));
  return { ts, open: close, high: close.map((c) => c + 0.0005), low: close.map((c) => c - 0.0005), close };
})();

function treeHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(d, entry.name);
      hash.update(path);
      if (entry.isDirectory()) walk(path);
      else hash.update(readFileSync(path));
    }
  };
  walk(dir);
  return hash.digest('hex');
}

/** Live (non-zombie) processes of a host uid, from the host's /proc. */
function processesOf(uid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let status: string;
    try {
      status = readFileSync(`/proc/${name}/status`, 'utf8');
    } catch {
      continue;
    }
    const state = /^State:\s+(\S)/m.exec(status)?.[1];
    const uids = /^Uid:\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(status)?.slice(1).map(Number) ?? [];
    if (state !== 'Z' && uids.includes(uid)) pids.push(Number(name));
  }
  return pids;
}

type Report = Record<string, unknown>;

function suite(title: string, walls: Walls, cases: (run: () => StrategyRuntime) => void): void {
  describe(title, () => {
    let runtime: StrategyRuntime;
    before(async () => {
      runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 1, walls });
      if (walls.audit) HOOKED.add(runtime);
    });
    after(() => runtime?.stop());
    cases(() => runtime);
    it('the zygote survived every case and serves a normal job', async () => {
      const out = await runtime.features(strategy('identity', {}, walls.audit), BARS);
      assert.deepEqual(out.columns, ['x']);
    });
  });
}

const config = async (runtime: StrategyRuntime, name: string, constants?: Record<string, string>) =>
  (await runtime.config(strategy(name, constants, HOOKED.has(runtime)))) as Report;
const configWith = async (runtime: StrategyRuntime, name: string, limits: JobLimits) =>
  (await runtime.config(strategy(name, {}, HOOKED.has(runtime)), limits)) as Report;

let canaryBefore = '';
let dataBefore = '';
before(() => {
  mkdirSync(CANARY, { recursive: true });
  writeFileSync(join(CANARY, 'file.txt'), 'canary: root-owned, read-only to everyone else\n', { mode: 0o644 });
  writeFileSync(join(DATA_DIR, 'models.json'), '{"private": true}\n');
  canaryBefore = treeHash(CANARY);
  dataBefore = treeHash(DATA_DIR);
});
after(() => {
  rmSync(CANARY, { recursive: true, force: true });
  rmSync(DATA_DIR, { recursive: true, force: true });
});

const HARMFUL_SYSCALLS = [
  'mount',
  'ptrace',
  'process_vm_readv',
  'unshare',
  'setns',
  'socket',
  'socketpair',
  'fork',
  'vfork_like_clone',
  'execve',
  'kill_zygote',
  'bpf',
  'keyctl',
  'kexec_load',
  'setuid_root',
  'chroot',
  'perf_event_open',
  'userfaultfd',
];

function refusesEverySyscall(run: () => StrategyRuntime): void {
  it('seccomp: every harmful syscall fails with EPERM', async () => {
    const report = await config(run(), 'syscalls');
    for (const name of HARMFUL_SYSCALLS) assert.equal(report[name], 'EPERM', `${name}: ${String(report[name])}`);
  });
}

function keepsSecretsApart(run: () => StrategyRuntime): void {
  it("keeps jobs apart: job B finds nothing of job A's code in its memory, the gc, or the zygote", async () => {
    const marker = `sf-secret-${randomBytes(12).toString('hex')}`;
    assert.deepEqual(await config(run(), 'secret_holder', { MARKER: marker }), { holds: marker });
    const found = await config(run(), 'secret_search');
    const token = marker.slice('sf-secret-'.length);
    assert.ok(Array.isArray(found.self) && found.self.length > 0, 'the search sees its own prefix (it reads memory)');
    for (const where of ['self', 'gc', 'zygote'] as const) {
      const hits = found[where];
      if (typeof hits === 'string') continue; // the zygote's memory could not be opened at all
      assert.ok(Array.isArray(hits), `${where}: ${JSON.stringify(hits)}`);
      assert.ok(!hits.some((h) => String(h).includes(token)), `${where} holds job A's secret`);
    }
  });
}

function cannotReachZygote(run: () => StrategyRuntime): void {
  it('cannot reach the zygote: its memory, environment, signals and ptrace are refused', async () => {
    const report = await config(run(), 'zygote_reach');
    for (const [name, outcome] of Object.entries(report)) assert.match(String(outcome), /^(EPERM|EACCES)$/, `${name}: ${String(outcome)}`);
  });
}

function cannotFork(run: () => StrategyRuntime): void {
  it('cannot fork: the process tree is the job alone', async () => {
    assert.deepEqual(await config(run(), 'fork_survivor'), { forked: 'EPERM' });
  });
}

function protectsHostFiles(run: () => StrategyRuntime): void {
  it('nothing on the host is writable: the canary tree and the data dir are unchanged', async () => {
    const report = await config(run(), 'host_writes');
    for (const [name, outcome] of Object.entries(report)) {
      if (name === 'data_dir_visible') assert.equal(outcome, false, 'the data dir is not even visible');
      else assert.notEqual(outcome, 'ok', `${name} succeeded`);
    }
    assert.equal(treeHash(CANARY), canaryBefore);
    assert.equal(treeHash(DATA_DIR), dataBefore);
  });
}

/** Pipes a job can fill: each of its descriptor pairs at most, at the size it could give them. */
function pipeBound(report: Report, widened: boolean): number {
  const nofile = Number(report.nofile);
  assert.ok(nofile > 0 && nofile <= 64, `RLIMIT_NOFILE ${nofile}`);
  return Math.floor(nofile / 2) * (widened ? Number(report.pipe_max_size) : 65_536);
}

suite('every kernel wall up (audit hook and import guard bypassed)', { uid: true, seccomp: true, audit: false }, (run) => {
  it('the child has its own uid, no capability, no_new_privs and a seccomp filter', async () => {
    const id = await config(run(), 'identity');
    assert.ok(Number(id.uid) >= 1000, `uid ${String(id.uid)}`);
    assert.notEqual(id.uid, id.zygote_uid);
    assert.ok(Number(id.host_uid) >= 1_000_000, 'an unprivileged host uid');
    assert.equal(id.cap_eff, '0000000000000000');
    assert.equal(id.cap_prm, '0000000000000000');
    assert.equal(id.cap_amb, '0000000000000000');
    assert.equal(id.no_new_privs, '1');
    assert.equal(id.seccomp, '2');
  });
  refusesEverySyscall(run);
  cannotReachZygote(run);
  protectsHostFiles(run);
  keepsSecretsApart(run);
  cannotFork(run);
  it('runs a job at the niceness it is given, its session’s CPU share too; it cannot raise either back, nor change the zygote’s', async () => {
    // Where the kernel groups sessions (autogroups), the group's niceness is what counts across processes.
    const autogroups = existsSync('/proc/self/autogroup');
    // Twice back to back: the kernel takes one group change per 100 ms, the second waits its turn.
    for (let i = 0; i < 2; i++) {
      assert.deepEqual(await configWith(run(), 'niceness', { nice: 19 }), {
        nice: 19,
        raise_priority: 'EACCES',
        after: 19,
        zygote: 'EPERM',
        own_session: true,
        group_nice: autogroups ? 19 : null,
        raise_group: autogroups ? 'EACCES' : null,
        dumpable: 'EPERM',
      });
    }
    const normal = await configWith(run(), 'niceness', {});
    assert.deepEqual([normal.nice, normal.group_nice], [0, autogroups ? 0 : null], 'normal priority by default');
  });
  it("a feature session's worker is confined like a job child", async () => {
    const session = await run().openSession(strategy('session_identity'));
    try {
      const out = await session.features(BARS);
      const value = (name: string) => out.values[out.columns.indexOf(name)]![0];
      assert.ok(value('uid')! >= 1000);
      assert.notEqual(value('uid'), value('zygote_uid'));
      assert.equal(value('cap_eff'), 0);
      assert.equal(value('seccomp'), 2);
      assert.equal(value('fork'), 0, 'fork is refused');
    } finally {
      await session.close();
    }
  });
  it('no host ptys, and no kernel memory outside the budget: a minimal read-only /dev, few pipes at their default size, no epoll, eventfd, timers…', async () => {
    const report = await config(run(), 'kernel_memory');
    assert.equal(report.ptmx, 'ENOENT');
    assert.deepEqual([report.pts, report.shm], [false, false]);
    assert.deepEqual(report.dev, ['full', 'null', 'random', 'urandom', 'zero']);
    assert.equal(report.dev_write, 'EROFS');
    for (const name of ['epoll_create1', 'eventfd2', 'inotify_init1', 'io_uring_setup', 'memfd_create', 'userfaultfd', 'timer_create']) {
      assert.equal(report[name], 'EPERM', `${name}: ${String(report[name])}`);
    }
    assert.equal(report.raise_nofile, 'EPERM', 'the descriptor limit cannot be raised');
    assert.deepEqual(report.widen, ['EPERM'], 'F_SETPIPE_SZ is refused');
    assert.equal(report.stopped, 'EMFILE');
    const bound = pipeBound(report, false);
    assert.ok(
      Number(report.pinned) > 0 && Number(report.pinned) <= bound,
      `${String(report.pinned)} bytes pinned in pipes; the bound is ${bound}`,
    );
    assert.ok(bound <= 1 << 20, `the bound itself is small: ${bound}`);
  });
  it('a job that closes its answer pipe and waits on ends by its own clock (the idle backstop), and the zygote serves on', async () => {
    const zygotes = run().processIds();
    await assert.rejects(configWith(run(), 'closed_answer', { timeoutMs: 1_000 }), (err: unknown) => {
      assert.ok(err instanceof StrategyJobError, String(err));
      assert.equal(err.kind, 'timeout', err.message);
      assert.equal(err.limit, 'idle', err.message);
      return true;
    });
    assert.deepEqual(run().processIds(), zygotes, 'the same zygote, not one the watchdog replaced');
  });
  it('refuses 2,400 feature columns at once, saying why, without holding the runtime', async () => {
    await assert.rejects(run().features(strategy('too_wide'), BARS), (err: unknown) => {
      assert.ok(err instanceof StrategyJobError);
      assert.match(err.message, /features too wide: 2400 columns × 300 rows; the limit is 256 columns/);
      return true;
    });
  });
});

suite('seccomp off: the job uid holds alone', { uid: true, seccomp: false, audit: false }, (run) => {
  it('the child still has no capability and another uid than the zygote', async () => {
    const id = await config(run(), 'identity');
    assert.equal(id.cap_eff, '0000000000000000');
    assert.notEqual(id.uid, id.zygote_uid);
    assert.equal(id.seccomp, '0');
  });
  it('privileged syscalls fail for want of privilege', async () => {
    // A raw fork or execve would succeed here (that is seccomp's job) and take the answer with it.
    const report = await config(run(), 'syscalls', { SKIP: 'fork,vfork_like_clone,execve' });
    for (const name of ['mount', 'ptrace', 'process_vm_readv', 'kill_zygote', 'chroot']) {
      assert.equal(report[name], 'EPERM', `${name}: ${String(report[name])}`);
    }
    for (const name of ['setuid_root', 'kexec_load']) assert.notEqual(report[name], 'ok', name); // EINVAL / ENOSYS here
  });
  cannotReachZygote(run);
  protectsHostFiles(run);
  it('the descriptor limit alone still bounds what pipes can pin, widened to the most the kernel allows', async () => {
    const report = await config(run(), 'kernel_memory');
    assert.equal(report.ptmx, 'ENOENT');
    assert.equal(report.stopped, 'EMFILE');
    const bound = pipeBound(report, true);
    assert.ok(Number(report.pinned) <= bound, `${String(report.pinned)} bytes pinned in pipes; the bound is ${bound}`);
  });
  it('a grandchild it forks does not outlive the job', async () => {
    const report = await config(run(), 'fork_survivor');
    assert.equal(report.forked, 'ok', 'with seccomp off the fork itself succeeds');
    assert.deepEqual(processesOf(Number(report.host_uid)), [], 'every process of the job uid is gone when the answer arrives');
  });
  it('a grandchild forked by a job that runs past its timeout is gone with it', async () => {
    const marker = `sfsv${randomBytes(5).toString('hex')}`;
    const job = run().config(strategy('fork_timeout', { MARKER: marker }), { timeoutMs: 4_000 });
    const outcome = job.then(
      () => 'answered',
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
    // Seen alive while the job spins: this test can find it.
    await until('the grandchild to be running', () => processesNamed(marker).length > 0);
    assert.match(await outcome, /used up its CPU time budget/, 'the job ended at its budget');
    // A bound on the wait only, so a survivor fails the test instead of hanging it.
    await until('the grandchild to be gone', () => processesNamed(marker).length === 0, 10_000);
  });
});

suite('every kernel wall up, the audit hook switched off from inside the job', { uid: true, seccomp: true, audit: true }, (run) => {
  it('the hook was up and the job switched it off: what it refused now runs', async () => {
    assert.deepEqual(await config(run(), 'unhooked'), { hooks_rewritten: 1, ctypes: 'ok', open_proc: 'ok' });
  });
  refusesEverySyscall(run);
  cannotReachZygote(run);
  protectsHostFiles(run);
  keepsSecretsApart(run);
  cannotFork(run);
});

suite('job uid off: seccomp and the empty zygote hold alone', { uid: false, seccomp: true, audit: false }, (run) => {
  refusesEverySyscall(run);
  keepsSecretsApart(run);
  cannotFork(run);
});
