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

/**
 * Calls a tool (one at a time per client); a success's text must be the JSON of its structuredContent.
 * Progress is what the call's own onprogress received (the server waits for the client before it
 * answers, so none can be lost: see progressReporter).
 */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}, timeoutMs = 60_000): Promise<ToolOutcome> {
  const progress: Progress[] = [];
  const result = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: timeoutMs,
    onprogress: ({ progress: value, total, message }) => progress.push({ progress: value, total, message }),
  })) as CallToolResult;
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
  const directory = sf.service.domain.accounts.directory;
  const createTrial = directory.createTrial.bind(directory);
  directory.createTrial = async (...args) => {
    const account = await createTrial(...args);
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
  for (let i = 1; i < progress.length; i++)
    assert.ok(progress[i]!.progress > progress[i - 1]!.progress, `progress increases: ${JSON.stringify(progress)}`);
  assert.equal(progress.at(-1)!.progress, 100);
}

export const ONE_SHOT_ARGS = {
  prompt: 'EUR/USD 1 minute: buy when RSI(14) is below 30, sell above 70, stop 10 pips, random forest',
  symbol: 'EURUSD',
  timeframe: '1min',
} as const;
