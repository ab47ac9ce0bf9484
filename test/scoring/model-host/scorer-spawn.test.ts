// One scoring process as it is started: what it can reach (no environment, an empty private
// directory), its memory bound, and that it does not outlive the service.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnScorer, type ScorerChild } from '../../../src/scoring/model-host/scorer-spawn.ts';
import type { FromScorer } from '../../../src/scoring/model-host/messages.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function started(memoryMb: number): Promise<{ child: ScorerChild; exited: Promise<void> }> {
  let ready!: () => void;
  let exit!: () => void;
  const isReady = new Promise<void>((r) => (ready = r));
  const exited = new Promise<void>((r) => (exit = r));
  const child = spawnScorer({ memoryMb }, { message: (m: FromScorer) => m.type === 'ready' && ready(), exit: () => exit() });
  await isReady;
  return { child, exited };
}

test(
  'a scoring process has no environment but its IPC channel, an empty private working directory, no core files and its memory bound',
  { timeout: 30_000 },
  async () => {
    process.env['SF_SECRET_FOR_TEST'] = 'must not reach the scorer';
    const { child, exited } = await started(768);
    try {
      // Only what node sets up for its IPC channel.
      const names = readFileSync(`/proc/${child.pid}/environ`, 'utf8')
        .split('\0')
        .filter(Boolean)
        .map((v) => v.split('=')[0]);
      assert.deepEqual(names.sort(), ['NODE_CHANNEL_FD', 'NODE_CHANNEL_SERIALIZATION_MODE']);
      // Its private directory is gone once it is ready: a service killed later leaves none behind,
      // and nothing can be made in a deleted working directory.
      const cwd = readlinkSync(`/proc/${child.pid}/cwd`);
      assert.match(cwd, new RegExp(`^${tmpdir()}/sf-scorer-${process.pid}-\\w+ \\(deleted\\)$`));
      assert.equal(existsSync(cwd.replace(' (deleted)', '')), false);
      const limits = readFileSync(`/proc/${child.pid}/limits`, 'utf8');
      assert.match(limits, new RegExp(`Max data size\\s+${768 * 2 ** 20}\\s+${768 * 2 ** 20}\\s+bytes`));
      assert.match(limits, /Max core file size\s+0\s+0/);
      assert.match(readFileSync(`/proc/${child.pid}/cmdline`, 'utf8'), /scorer-process\.mjs/);
      child.kill();
      await exited;
    } finally {
      delete process.env['SF_SECRET_FOR_TEST'];
      child.kill();
    }
  },
);

test('scoring processes die with the service, even when it is SIGKILLed', { timeout: 30_000 }, async () => {
  // A stand-in service: starts a pool, prints its processes' pids, then waits.
  const script = `
    import { ScorerPool } from ${JSON.stringify(new URL('../../../src/scoring/model-host/scorer-pool.ts', import.meta.url).pathname)};
    const pool = new ScorerPool({ processes: 2 });
    setTimeout(() => console.log(JSON.stringify(pool.pids)), 1000);
    setInterval(() => {}, 1000);
  `;
  const service = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const pids = await new Promise<number[]>((resolve) =>
    service.stdout!.once('data', (d: Buffer) => resolve(JSON.parse(d.toString()) as number[])),
  );
  assert.equal(pids.length, 2);
  assert.ok(pids.every(alive));
  service.kill('SIGKILL');
  for (let i = 0; i < 100 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(pids.filter(alive), []);
});
