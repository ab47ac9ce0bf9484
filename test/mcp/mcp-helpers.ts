/** Shared by the MCP tests: driving a tool server with the SDK's own client. */
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import type { NewAccount } from '../../src/accounts/index.ts';
import type { TestService } from '../helpers/service.ts';

export interface ToolOutcome {
  result: CallToolResult;
  /** structuredContent of a success (also checked to equal the JSON text). */
  data: any;
  /** The parsed error body of an error result. */
  error: { error: string; code?: number; hint?: string } | null;
  progress: Progress[];
}

const wireProgress = new WeakMap<Client, Progress[]>();

/**
 * Progress notifications as they come off the wire, in order. The SDK client hands a notification
 * to `onprogress` a microtask late and drops it if the result came in the same read (its handler is
 * gone by then), so on a loaded machine the per-call handler can miss the last one the server sent.
 */
function progressOnTheWire(client: Client): Progress[] {
  let seen = wireProgress.get(client);
  if (seen) return seen;
  const transport = client.transport;
  assert.ok(transport?.onmessage, 'the client is connected');
  const received = transport.onmessage.bind(transport);
  const list: Progress[] = [];
  transport.onmessage = (message, extra) => {
    if ('method' in message && message.method === 'notifications/progress') list.push(message.params as Progress);
    received(message, extra);
  };
  wireProgress.set(client, (seen = list));
  return seen;
}

/** Calls a tool (one at a time per client); a success's text must be the JSON of its structuredContent. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}, timeoutMs = 60_000): Promise<ToolOutcome> {
  const wire = progressOnTheWire(client);
  const from = wire.length;
  const result = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: timeoutMs,
    onprogress: () => undefined,
  })) as CallToolResult;
  const progress = wire.slice(from).map(({ progress, total, message }) => ({ progress, total, message }));
  const text = result.content.find((c) => c.type === 'text');
  assert.ok(text && text.type === 'text', `${name} answers with text content: ${JSON.stringify(result)}`);
  if (result.isError) {
    // The SDK's own refusals (bad arguments) are plain text; the tools' are the REST error body.
    let error: ToolOutcome['error'];
    try {
      error = JSON.parse(text.text);
    } catch {
      error = { error: text.text };
    }
    return { result, data: null, error, progress };
  }
  assert.deepEqual(JSON.parse(text.text), result.structuredContent, `${name}: the text is the JSON of structuredContent`);
  return { result, data: result.structuredContent, error: null, progress };
}

/** Records every account the service creates (trial mints, in-process or over REST), key included. */
export function spyOnMints(sf: TestService): NewAccount[] {
  const minted: NewAccount[] = [];
  const directory = sf.service.accounts.directory;
  const createTrial = directory.createTrial.bind(directory);
  directory.createTrial = async (username) => {
    const account = await createTrial(username);
    minted.push(account);
    return account;
  };
  return minted;
}

/** Progress notifications: strictly increasing, of total 100, ending at 100, each with a message. */
export function assertProgress(progress: Progress[]): void {
  assert.ok(progress.length >= 3, `several progress notifications: ${JSON.stringify(progress)}`);
  for (const p of progress) {
    assert.equal(p.total, 100);
    assert.equal(typeof p.message, 'string');
    assert.ok(p.message!.length > 0);
  }
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i]!.progress > progress[i - 1]!.progress, `progress increases: ${JSON.stringify(progress)}`);
  assert.equal(progress.at(-1)!.progress, 100);
}

export const ONE_SHOT_ARGS = {
  prompt: 'EUR/USD 1 minute: buy when RSI(14) is below 30, sell above 70, stop 10 pips, random forest',
  symbol: 'EURUSD',
  timeframe: '1min',
} as const;
