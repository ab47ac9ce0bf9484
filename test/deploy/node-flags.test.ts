/**
 * Every way the service starts gives Node the same V8 flags (deploy/OPERATIONS.md "Node flags"):
 * `npm start`, bin/signalforge.js run as a command (its shebang), and the image's entrypoint; the
 * role processes of tests and benchmarks take them from `npm start` (serviceNodeFlags).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { serviceNodeFlags } from '../helpers/node-flags.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('Node flags of the service', () => {
  const flags = serviceNodeFlags();

  it('npm start gives the young generation 64 MB per semi-space, kept between bars (a bar is a burst of short-lived objects), and no idle-time heap shrinking', () => {
    assert.deepEqual(flags, ['--max-semi-space-size=64', '--min-semi-space-size=64', '--no-memory-reducer']);
  });

  it('bin/signalforge.js run as a command passes the same flags (env -S splits them)', () => {
    const shebang = read('bin/signalforge.js').split('\n')[0]!;
    assert.equal(shebang, `#!/usr/bin/env -S node ${flags.join(' ')}`);
  });

  it("the image's entrypoint passes the same flags", () => {
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(read('deploy/Dockerfile'))?.[1];
    assert.ok(entrypoint, 'deploy/Dockerfile has an exec-form ENTRYPOINT');
    assert.deepEqual(JSON.parse(entrypoint), ['node', ...flags, 'bin/signalforge.js']);
  });
});
