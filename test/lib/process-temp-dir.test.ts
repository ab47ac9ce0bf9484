/**
 * A process's private temporary directories carry its pid, and the next process sweeps away those
 * of processes that are gone (a SIGKILL runs no exit handler): only real directories of this uid,
 * older than ten minutes, whose pid no longer runs.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tmpdir } from 'node:os';
import { after, describe, it } from 'node:test';
import { processTempDir, sweepStaleTempDirs } from '../../src/lib/process-temp-dir.ts';

describe('process temp dirs', () => {
  const root = mkdtempSync(join(tmpdir(), 'process-temp-dir-test-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  /** The pid of a process that has ended. */
  const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

  it('removes old directories of ended processes, and nothing else', () => {
    const dead = deadPid();
    const hourAgo = new Date(Date.now() - 3_600_000);
    const make = (name: string, old = true) => {
      const path = join(root, name);
      mkdirSync(path);
      writeFileSync(join(path, 'file.py'), 'x');
      if (old) utimesSync(path, hourAgo, hourAgo);
      return path;
    };
    const stale = make(`sf-x-${dead}-aaaaaa`);
    const fresh = make(`sf-x-${dead}-bbbbbb`, false);
    const running = make(`sf-x-${process.ppid}-cccccc`);
    const mine = make(`sf-x-${process.pid}-dddddd`);
    const noPid = make('sf-x-eeeeee');
    const otherPrefix = make(`sf-y-${dead}-ffffff`);
    // A link with a stale-looking name is never followed or removed.
    const target = make('target');
    const link = join(root, `sf-x-${dead}-link`);
    symlinkSync(target, link);

    assert.equal(sweepStaleTempDirs('sf-x-', root), 1);
    assert.equal(existsSync(stale), false);
    for (const kept of [fresh, running, mine, noPid, otherPrefix, link, join(target, 'file.py')]) assert.ok(existsSync(kept), kept);
  });

  it('names a new directory by this process', () => {
    const dir = processTempDir('sf-process-temp-dir-test-');
    try {
      assert.match(basename(dir), new RegExp(`^sf-process-temp-dir-test-${process.pid}-\\w{6}$`));
      assert.ok(existsSync(dir));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
