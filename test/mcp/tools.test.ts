/** src/mcp/tools.ts: progress notifications reach a client that reads in bursts, as a loaded one does. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { JSONRPCMessage, Progress } from '@modelcontextprotocol/sdk/types.js';
import { progressReporter } from '../../src/mcp/tools.ts';

/**
 * A client transport that reads in bursts: notifications wait until the next request or response
 * comes, then all are handed over in one go, as when a busy client's one read of its pipe holds the
 * last notification and the result together. The SDK client then handles the result first.
 */
function burstyPair(): { client: InMemoryTransport; server: InMemoryTransport } {
  const [client, server] = InMemoryTransport.createLinkedPair();
  const held: JSONRPCMessage[] = [];
  let onmessage: InMemoryTransport['onmessage'];
  Object.defineProperty(client, 'onmessage', {
    get: () => onmessage,
    set: (handler: InMemoryTransport['onmessage']) => {
      onmessage = (message, extra) => {
        held.push(message);
        if ('method' in message && !('id' in message)) return;
        for (const m of held.splice(0)) handler?.(m, extra);
      };
    },
  });
  return { client, server };
}

async function callWithProgress(steps: number[]): Promise<{ progress: Progress[]; errors: Error[] }> {
  const server = new McpServer({ name: 't', version: '1' });
  server.registerTool('steps', { description: 'reports each step' }, async (extra) => {
    const progress = progressReporter(extra);
    for (const step of steps) progress.report(step, 100, `at ${step}`);
    await progress.flush();
    return { content: [{ type: 'text', text: 'done' }] };
  });
  const pair = burstyPair();
  const client = new Client({ name: 'c', version: '1' });
  const errors: Error[] = [];
  client.onerror = (err) => errors.push(err);
  await Promise.all([server.connect(pair.server), client.connect(pair.client)]);
  const progress: Progress[] = [];
  const result = await client.callTool({ name: 'steps', arguments: {} }, undefined, { onprogress: (p) => progress.push(p) });
  assert.deepEqual(result.content, [{ type: 'text', text: 'done' }]);
  await client.close();
  return { progress, errors };
}

describe('progressReporter', () => {
  it('every notification reaches the call’s onprogress before its result, even when read in one burst with it', async () => {
    const { progress, errors } = await callWithProgress([5, 40, 100]);
    assert.deepEqual(errors, []);
    assert.deepEqual(
      progress.map((p) => p.progress),
      [5, 40, 100],
    );
    assert.deepEqual(progress[2], { progress: 100, total: 100, message: 'at 100' });
  });

  it('sends only increasing values, and answers at once when there was nothing to report', async () => {
    assert.deepEqual(
      (await callWithProgress([10, 10, 5, 20])).progress.map((p) => p.progress),
      [10, 20],
    );
    const none = await callWithProgress([]);
    assert.deepEqual(none.progress, []);
    assert.deepEqual(none.errors, []);
  });
});
