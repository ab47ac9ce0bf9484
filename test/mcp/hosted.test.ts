/**
 * The hosted MCP server at {mcp_url}/mcp (Streamable HTTP, in the service's own Fastify app),
 * driven by the SDK's own client against the real service. Each session mints its own trial key
 * in-process, counted against the MCP client's IP (TRUST_PROXY lets each test client have one).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { GenerateRequest, GenerateResponse } from '../../schemas/generation.ts';
import { OneShotDone, OneShotRequest } from '../../schemas/oneshot.ts';
import { OptimizeJobView, OptimizeRequest } from '../../schemas/optimize.ts';
import { summariseRobustness } from '../../schemas/robustness-summary.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { checkStrategyCode } from '../../src/sandbox/static-check.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { assertProgress, callTool, ONE_SHOT_ARGS, spyOnMints } from './mcp-helpers.ts';
import type { NewAccount } from '../../src/accounts/index.ts';

describe('hosted MCP at /mcp', () => {
  let sf: TestService;
  let minted: NewAccount[];
  const clients: Client[] = [];
  let ips = 0;

  before(async () => {
    sf = await startTestService({ HISTORY_DAYS: '4', TRUST_PROXY: '1' });
    minted = spyOnMints(sf);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await sf.stop();
  });

  /** A connected MCP client, from its own client address unless one is given. */
  const connect = async (headers: Record<string, string> = {}) => {
    const client = new Client({ name: 'hosted-test', version: '0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${sf.url}/mcp`), {
      requestInit: { headers: { 'x-forwarded-for': `10.50.${Math.floor(++ips / 250)}.${ips % 250}`, ...headers } },
    });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  };
  /** The account a session minted on its first tool call. */
  const mintedBy = async (client: Client) => {
    const before = minted.length;
    const res = await callTool(client, 'list_deployed');
    assert.equal(res.error, null, JSON.stringify(res.error));
    assert.equal(minted.length, before + 1, 'the first tool call minted one trial key');
    return minted.at(-1)!;
  };

  it('{mcp_url}/_healthz answers the text ok', async () => {
    const res = await fetch(`${sf.url}/_healthz`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(await res.text(), 'ok');
  });

  it('lists one_shot, optimize, list_models, list_deployed and generate_strategy with the REST request schemas', async () => {
    const { client } = await connect();
    assert.equal(client.getServerVersion()?.name, 'signalforge');
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.deepEqual([...byName.keys()].sort(), ['generate_strategy', 'list_deployed', 'list_models', 'one_shot', 'optimize']);
    const oneShot = byName.get('one_shot')!;
    assert.deepEqual(Object.keys(oneShot.inputSchema.properties ?? {}).sort(), Object.keys(OneShotRequest.shape).sort());
    assert.deepEqual(oneShot.inputSchema.required, ['prompt']);
    assert.deepEqual((oneShot.inputSchema.properties as any).timeframe.enum, ['1min', '5min', '15min', '1h']);
    assert.ok((oneShot.inputSchema.properties as any).deploy_if.enum.includes('not_overfit'), 'one_shot takes deploy_if');
    const optimize = byName.get('optimize')!;
    assert.deepEqual(Object.keys(optimize.inputSchema.properties ?? {}).sort(), Object.keys(OptimizeRequest.shape).sort());
    assert.ok(optimize.inputSchema.required?.includes('code') && optimize.inputSchema.required.includes('parameters'));
    assert.ok('robustness' in (optimize.outputSchema?.properties ?? {}), 'optimize returns the robustness report');
    const generate = byName.get('generate_strategy')!;
    assert.deepEqual(Object.keys(generate.inputSchema.properties ?? {}).sort(), Object.keys(GenerateRequest.shape).sort());
    for (const name of ['list_models', 'list_deployed']) {
      assert.deepEqual(Object.keys(byName.get(name)!.inputSchema.properties ?? {}), [], `${name} takes no arguments`);
      assert.equal(byName.get(name)!.annotations?.readOnlyHint, true);
    }
    for (const tool of tools) {
      assert.ok(tool.description && tool.description.length > 40, `${tool.name} is described`);
      assert.equal(tool.outputSchema?.type, 'object', `${tool.name} declares its output`);
    }
    assert.equal(minted.length, 0, 'listing tools mints no key');
  });

  it('each session mints its own trial key on first use: two sessions, two users, each seeing only its own', async () => {
    const a = await connect();
    const b = await connect();
    const userA = await mintedBy(a.client);
    const userB = await mintedBy(b.client);
    assert.notEqual(userA.user.user_id, userB.user.user_id);
    assert.equal(userA.user.is_trial, true);
    // The key is kept: more calls mint nothing more.
    const models = await callTool(a.client, 'list_models');
    assert.equal(minted.length, 2);
    const rest = await sf.api('GET', '/api/v1/models', { key: userA.apiKey });
    assert.deepEqual(models.data, rest.body);
    const deployed = await callTool(b.client, 'list_deployed');
    assert.deepEqual(deployed.data, (await sf.api('GET', '/api/v1/deployed', { key: userB.apiKey })).body);
    const usage = await sf.api('GET', '/api/v1/key/usage', { key: userA.apiKey });
    assert.equal(usage.body.balance, 50, 'the session key got the trial credits');
  });

  it('mints with the MCP client’s address: the per-IP trial limit counts the real client', async () => {
    const ip = '10.77.0.1';
    for (let i = 0; i < 5; i++) {
      const res = await sf.api('POST', '/api/v1/key/trial', { body: {}, headers: { 'x-forwarded-for': ip } });
      assert.equal(res.status, 200, res.text);
    }
    const limited = await connect({ 'x-forwarded-for': ip });
    const refused = await callTool(limited.client, 'list_models');
    assert.equal(refused.error?.code, 429, JSON.stringify(refused.error));
    assert.match(refused.error!.error, /trial keys/);
    assert.match(refused.error!.hint ?? '', /Retry after \d+ s/);
    const other = await connect({ 'x-forwarded-for': '10.77.0.2' });
    assert.equal((await callTool(other.client, 'list_models')).error, null, 'another address still mints');
  });

  it('a mint the limit refused keeps no handle: the name it reserved can be taken at once', async () => {
    const ip = '10.77.1.1';
    for (let i = 0; i < 5; i++)
      assert.equal((await sf.api('POST', '/api/v1/key/trial', { body: {}, headers: { 'x-forwarded-for': ip } })).status, 200);
    const directory = sf.service.domain.accounts.directory;
    const reserveTrial = directory.reserveTrial.bind(directory);
    const reserved: string[] = [];
    directory.reserveTrial = async (username) => {
      const reservation = await reserveTrial(username);
      reserved.push(reservation.username);
      return reservation;
    };
    try {
      const limited = await connect({ 'x-forwarded-for': ip });
      assert.equal((await callTool(limited.client, 'list_models')).error?.code, 429);
    } finally {
      directory.reserveTrial = reserveTrial;
    }
    assert.equal(reserved.length, 1, 'the session reserved one handle before it asked for a mint slot');
    const taken = await sf.api('POST', '/api/v1/key/trial', {
      body: { username: reserved[0] },
      headers: { 'x-forwarded-for': '10.77.1.2' },
    });
    assert.equal(taken.status, 200, `the refused session's handle is free again: ${taken.text}`);
  });

  it('uses a valid X-API-Key sent with initialize instead of minting; refuses an invalid one', async () => {
    const key = await sf.mintKey('mcp_own_key');
    const before = minted.length;
    const { client } = await connect({ 'x-api-key': key.api_key });
    const deployed = await callTool(client, 'list_deployed');
    assert.deepEqual(deployed.data, (await sf.api('GET', '/api/v1/deployed', { key: key.api_key })).body);
    assert.equal(minted.length, before, 'nothing minted');
    await assert.rejects(connect({ 'x-api-key': 'sf_not_a_key' }), /401|invalid X-API-Key/);
  });

  it('generate_strategy answers as POST /generate: code that passes the static check', async () => {
    const { client } = await connect();
    const res = await callTool(client, 'generate_strategy', {
      description: 'EMA crossover with an RSI filter',
      symbol: 'GBPUSD',
      timeframe: '1h',
      pos_rules: { direction: 'long' },
    });
    assert.equal(res.error, null, JSON.stringify(res.error));
    const answer = GenerateResponse.parse(res.data);
    assert.equal(answer.generator, 'offline');
    assert.match(answer.code, /symbol=GBPUSD/);
    assert.deepEqual((await checkStrategyCode(answer.code)).violations, []);
    const user = minted.at(-1)!;
    assert.equal(answer.credits_remaining, (await sf.api('GET', '/api/v1/key/usage', { key: user.apiKey })).body.balance);
    const bad = await callTool(client, 'generate_strategy', { timeframe: '2h' });
    assert.equal(bad.result.isError, true, 'arguments are checked with the REST schema');
    assert.match((bad.result.content[0] as { text: string }).text, /timeframe/);
  });

  it('one_shot: progress notifications up to 100, then the done payload; list_models and list_deployed agree with REST', async () => {
    const { client } = await connect();
    const res = await callTool(client, 'one_shot', ONE_SHOT_ARGS, 180_000);
    assert.equal(res.error, null, JSON.stringify(res.error));
    assertProgress(res.progress);
    const done = OneShotDone.parse(res.data);
    const user = minted.at(-1)!;
    assert.match(done.stem, new RegExp(`^${user.user.user_id}_EURUSD_1min_`));
    assert.deepEqual(done.channels, ['sse']);
    // Is the edge real? The verdict of the model's own report, with its reasons.
    assert.equal(done.deployed, true);
    const results = await sf.api('GET', `/api/v1/results/${encodeURIComponent(done.stem)}`, { key: user.apiKey });
    assert.deepEqual(done.robustness, summariseRobustness(results.body.robustness), 'one_shot returns the verdict of the model’s report');
    assert.ok(done.robustness!.reasons.length > 0, 'with its reasons');

    const models = await callTool(client, 'list_models');
    const restModels = await sf.api('GET', '/api/v1/models', { key: user.apiKey });
    assert.deepEqual(models.data, restModels.body);
    assert.equal(models.data.count, 1);
    assert.equal(models.data.models[0].name, done.stem);
    assert.deepEqual(models.data.models[0].test_stats, done.metrics);
    const deployed = await callTool(client, 'list_deployed');
    assert.deepEqual(deployed.data, (await sf.api('GET', '/api/v1/deployed', { key: user.apiKey })).body);
    assert.equal(deployed.data.deployed[0].model, done.stem);
  });

  it('optimize: runs the optimisation through POST /api/v1/optimize, with progress to the trials planned, and returns the job as REST has it, with the chosen trial’s verdict', async () => {
    const { client } = await connect();
    const args = {
      code: strategyCode(),
      symbol: 'EURUSD',
      timeframe: '1min',
      parameters: { confidence_threshold: { type: 'choice', values: [0.5, 0.55] } },
      method: 'grid',
      optimization: 'maximise return',
      walk_forward: { folds: 2, scheme: 'anchored', embargo: 0 },
    };
    const res = await callTool(client, 'optimize', args, 240_000);
    assert.equal(res.error, null, JSON.stringify(res.error));
    const job = OptimizeJobView.parse(res.data);
    assert.equal(job.status, 'done', job.error);
    assert.equal(job.trials_planned, 2);
    assert.equal(job.trials.length, 2);
    assert.ok(job.robustness, 'the chosen trial’s robustness report');
    assert.ok(['robust', 'inconclusive', 'overfit'].includes(job.robustness!.verdict));
    assert.ok(res.progress.length >= 1 && res.progress.every((p) => p.total === 2), JSON.stringify(res.progress));
    for (let i = 1; i < res.progress.length; i++) assert.ok(res.progress[i]!.progress > res.progress[i - 1]!.progress);
    const user = minted.at(-1)!;
    const rest = await sf.api('GET', `/api/v1/optimize/${job.optimize_id}`, { key: user.apiKey });
    assert.deepEqual(res.data, rest.body, 'the tool answers what GET /api/v1/optimize/{id} answers');
  });

  it('out of credits: an error result with the 402 and how to get credits', async () => {
    const { client } = await connect();
    const user = await mintedBy(client);
    const balance = await sf.service.domain.accounts.metering.balance(user.user.user_id);
    await sf.service.domain.accounts.metering.charge(user.user.user_id, balance, 'test:drain');
    for (const [tool, args] of [
      ['generate_strategy', { description: 'macd momentum' }],
      ['one_shot', ONE_SHOT_ARGS],
    ] as const) {
      const res = await callTool(client, tool, args);
      assert.equal(res.result.isError, true, `${tool} refuses`);
      assert.equal(res.result.structuredContent, undefined);
      assert.equal(res.error?.code, 402, JSON.stringify(res.error));
      assert.match(res.error!.error, /out of credits/);
      assert.match(res.error!.hint ?? '', /new session|X-API-Key/);
    }
    assert.equal((await callTool(client, 'list_models')).error, null, 'free tools still answer');
  });

  it('sessions end on DELETE and after idle time; unknown or missing session ids are refused', async () => {
    const sessions = sf.service.edge.app.mcpSessions;
    const { client, transport } = await connect();
    const id = transport.sessionId!;
    assert.match(id, /^[0-9a-f-]{36}$/);
    const open = sessions.size();
    await transport.terminateSession();
    assert.equal(sessions.size(), open - 1);
    const gone = await fetch(`${sf.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(gone.status, 404);
    assert.equal((await gone.json()).error.code, -32001);
    await client.close();

    const noSession = await fetch(`${sf.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(noSession.status, 400);
    assert.equal((await noSession.json()).jsonrpc, '2.0');
    assert.equal((await fetch(`${sf.url}/mcp`)).status, 400, 'GET without a session');

    const idle = await connect();
    await callTool(idle.client, 'list_models');
    const idleId = idle.transport.sessionId!;
    // The GET notification stream keeps a session open; once it is closed the session can idle out.
    await idle.client.close();
    assert.equal(await sessions.sweep(Date.now()), 0, 'nothing is idle yet');
    // The service sees the stream close a moment after the client drops it.
    let ended = 0;
    // (A generous poll: its end only stops a hang, it is not a latency bound.)
    for (let i = 0; i < 600 && ended === 0; i++) {
      ended = await sessions.sweep(Date.now() + 31 * 60_000);
      if (ended === 0) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(ended >= 1, 'the idle session ended');
    const expired = await fetch(`${sf.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': idleId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(expired.status, 404);
  });

  it('is left out of /openapi.json, whose introduction names {mcp_url}', async () => {
    const spec = (await sf.api('GET', '/openapi.json')).body;
    assert.equal(spec.paths['/mcp'], undefined);
    assert.match(spec.info.description, /\/mcp\b/);
    assert.match(spec.info.description, /mcp_url/);
  });
});
