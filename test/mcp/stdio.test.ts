/**
 * `signalforge mcp` over stdio, driven by the SDK's own client: the process is spawned the way an
 * MCP client configuration spawns it, with SIGNALFORGE_URL pointing at the real test service.
 */
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { KeyResponse } from '../../schemas/accounts.ts';
import { GenerateResponse } from '../../schemas/generation.ts';
import { OneShotDone } from '../../schemas/oneshot.ts';
import { checkStrategyCode } from '../../src/sandbox/static-check.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { assertProgress, callTool, ONE_SHOT_ARGS, spyOnMints } from './mcp-helpers.ts';
import type { NewAccount } from '../../src/accounts/index.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface StdioServer {
  client: Client;
  /** What the server wrote to stderr (its logs). */
  stderr: () => string;
  /** Errors the client saw on the transport (a non-MCP line on stdout is one). */
  errors: Error[];
}

describe('signalforge mcp (stdio)', () => {
  let sf: TestService;
  let minted: NewAccount[];
  const clients: Client[] = [];

  before(async () => {
    sf = await startTestService({ HISTORY_DAYS: '4' });
    minted = spyOnMints(sf);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await sf.stop();
  });

  const spawn = async (env: Record<string, string> = {}, args = ['--import', 'tsx', 'src/cli.ts', 'mcp']): Promise<StdioServer> => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args,
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SIGNALFORGE_URL: sf.url, ...env },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const errors: Error[] = [];
    const client = new Client({ name: 'stdio-test', version: '0' });
    client.onerror = (err) => errors.push(err);
    await client.connect(transport);
    clients.push(client);
    return { client, stderr: () => stderr, errors };
  };

  it('lists the hosted tools plus get_trial_key, with the same input schemas as the hosted server', async () => {
    const { client, stderr, errors } = await spawn();
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'generate_strategy',
      'get_trial_key',
      'list_deployed',
      'list_models',
      'one_shot',
      'optimize',
    ]);

    const hosted = new Client({ name: 'hosted', version: '0' });
    await hosted.connect(new StreamableHTTPClientTransport(new URL(`${sf.url}/mcp`)));
    clients.push(hosted);
    const hostedTools = (await hosted.listTools()).tools;
    for (const tool of hostedTools) {
      const local = tools.find((t) => t.name === tool.name)!;
      assert.deepEqual(local.inputSchema, tool.inputSchema, `${tool.name}: one definition for both transports`);
      assert.deepEqual(local.outputSchema, tool.outputSchema);
      assert.equal(local.description, tool.description);
    }
    const trial = tools.find((t) => t.name === 'get_trial_key')!;
    assert.deepEqual(Object.keys(trial.inputSchema.properties ?? {}), ['username']);
    assert.deepEqual(errors, [], 'stdout carries MCP frames only');
    assert.match(stderr(), /serving over stdio/, 'logs go to stderr');
  });

  it('without SIGNALFORGE_API_KEY mints a trial key over REST on first use, then keeps it', async () => {
    const { client, stderr, errors } = await spawn();
    const before = minted.length;
    const models = await callTool(client, 'list_models');
    assert.equal(models.error, null, JSON.stringify(models.error));
    assert.equal(minted.length, before + 1);
    const account = minted.at(-1)!;
    assert.deepEqual(models.data, (await sf.api('GET', '/api/v1/models', { key: account.apiKey })).body);
    const deployed = await callTool(client, 'list_deployed');
    assert.deepEqual(deployed.data, (await sf.api('GET', '/api/v1/deployed', { key: account.apiKey })).body);
    assert.equal(minted.length, before + 1, 'one key for the whole session');
    assert.ok(!stderr().includes(account.apiKey), 'the key is never logged');
    assert.deepEqual(errors, []);
  });

  it('one_shot with progress to 100, generate_strategy with checked code; both agree with REST for SIGNALFORGE_API_KEY', async () => {
    const key = await sf.mintKey('stdio_key');
    const before = minted.length;
    // Through the `signalforge` bin, as an installed package runs it.
    const { client, errors } = await spawn({ SIGNALFORGE_API_KEY: key.api_key }, ['bin/signalforge.js', 'mcp']);

    const generated = await callTool(client, 'generate_strategy', { description: 'mean reversion on Bollinger Bands', timeframe: '1min' });
    assert.equal(generated.error, null, JSON.stringify(generated.error));
    const code = GenerateResponse.parse(generated.data);
    assert.deepEqual((await checkStrategyCode(code.code)).violations, []);

    const res = await callTool(client, 'one_shot', ONE_SHOT_ARGS, 180_000);
    assert.equal(res.error, null, JSON.stringify(res.error));
    assertProgress(res.progress);
    const done = OneShotDone.parse(res.data);
    assert.match(done.stem, new RegExp(`^${key.user_id}_EURUSD_1min_`));
    assert.equal(done.credits_remaining, (await sf.api('GET', '/api/v1/key/usage', { key: key.api_key })).body.balance);

    const models = await callTool(client, 'list_models');
    assert.deepEqual(models.data, (await sf.api('GET', '/api/v1/models', { key: key.api_key })).body);
    assert.equal(models.data.models[0].name, done.stem);
    const deployed = await callTool(client, 'list_deployed');
    assert.deepEqual(deployed.data, (await sf.api('GET', '/api/v1/deployed', { key: key.api_key })).body);
    assert.equal(deployed.data.deployed[0].model, done.stem);
    assert.equal(minted.length, before, 'the configured key is used: nothing minted');
    assert.deepEqual(errors, []);
  });

  it('out of credits is a 402 error result; get_trial_key switches the session to a fresh key', async () => {
    const key = await sf.mintKey('stdio_broke');
    await sf.service.domain.accounts.metering.charge(key.user_id, key.credits, 'test:drain');
    const { client } = await spawn({ SIGNALFORGE_API_KEY: key.api_key });
    const refused = await callTool(client, 'generate_strategy', { description: 'macd momentum' });
    assert.equal(refused.result.isError, true);
    assert.equal(refused.error?.code, 402);
    assert.match(refused.error!.error, /out of credits/);
    assert.match(refused.error!.hint ?? '', /get_trial_key/);

    const fresh = await callTool(client, 'get_trial_key', { username: 'stdio_fresh' });
    assert.equal(fresh.error, null, JSON.stringify(fresh.error));
    const trial = KeyResponse.parse(fresh.data);
    assert.equal(trial.username, 'stdio_fresh');
    assert.equal(trial.is_trial, true);
    assert.equal((await sf.api('GET', '/api/v1/whoami-key', { key: trial.api_key })).body.user_id, trial.user_id);

    const generated = await callTool(client, 'generate_strategy', { description: 'macd momentum' });
    assert.equal(generated.error, null, JSON.stringify(generated.error));
    assert.equal(generated.data.credits_remaining, (await sf.api('GET', '/api/v1/key/usage', { key: trial.api_key })).body.balance);
    assert.ok(generated.data.credits_remaining < trial.credits, 'the new key paid');
    const taken = await callTool(client, 'get_trial_key', { username: 'stdio_fresh' });
    assert.equal(taken.error?.code, 409);
  });

  it('an unreachable service is an error result naming SIGNALFORGE_URL', async () => {
    // A port that was free a moment ago: nothing listens there.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const url = `http://127.0.0.1:${port}`;
    const { client } = await spawn({ SIGNALFORGE_URL: url, SIGNALFORGE_API_KEY: 'sf_whatever' });
    const res = await callTool(client, 'list_models');
    assert.equal(res.error?.code, 503);
    assert.ok(res.error!.error.startsWith(`signalforge is unreachable at ${url}: ECONNREFUSED`), res.error!.error);
    assert.match(res.error!.hint ?? '', /SIGNALFORGE_URL/);
  });
});
