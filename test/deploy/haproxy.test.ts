/**
 * deploy/haproxy.cfg as shipped: haproxy itself accepts it (`haproxy -c`), including before the
 * edges' names resolve (compose starts the balancer beside them, and an edge restarts on a new
 * address). Its behaviour in front of real edges — health checks, MCP sessions sticking to their
 * edge, redispatch when one dies — is checked in test/e2e/two-edges.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { HAPROXY_BIN } from '../helpers/haproxy.ts';

const CONFIG = fileURLToPath(new URL('../../deploy/haproxy.cfg', import.meta.url));

describe('deploy/haproxy.cfg', () => {
  it('is a valid haproxy configuration, with edges that do not resolve yet', () => {
    const check = spawnSync(HAPROXY_BIN, ['-c', '-f', CONFIG], { encoding: 'utf8' });
    assert.equal(check.status, 0, check.stderr + check.stdout);
    assert.match(check.stdout + check.stderr, /Configuration file is valid/);
  });
});
