import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ShutdownStack } from '../../src/lifecycle/shutdown.ts';
import { createLogger } from '../../src/log.ts';

describe('ShutdownStack', () => {
  it('runs steps latest first, and goes past a step that hangs or throws, logging it', async () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => lines.push(line) });
    const stack = new ShutdownStack(log, 200);
    const order: string[] = [];
    stack.push(() => order.push('nats'));
    stack.push(() => new Promise(() => order.push('hangs')));
    stack.push(() => {
      order.push('throws');
      throw new Error('boom');
    });
    stack.push(async () => order.push('edge'));
    await stack.unwind();
    assert.deepEqual(order, ['edge', 'throws', 'hangs', 'nats']);
    const logged = lines.map((l) => JSON.parse(l));
    assert.ok(
      logged.some((e) => /did not finish within 200 ms/.test(e.err) && /hangs/.test(e.step)),
      lines.join('\n'),
    );
    assert.ok(logged.some((e) => e.err === 'boom'));
    await stack.unwind(); // nothing left: a second call is harmless
    assert.equal(order.length, 4);
  });
});
