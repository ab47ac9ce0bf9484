/**
 * Two edges of one installation on one nats-server — the service in this process (edge 1) and a
 * `signalforge edge` child process (edge 2, reading the store over NATS) — and what a key's
 * stream limits and an MCP client see when an edge dies:
 * - a key's SSE stream (1 per key) and WebSocket connection (WS_PER_KEY = 1 here) open on one
 *   edge make the other refuse the next; closing it frees it there;
 * - an edge that is SIGKILLed holding them frees them within the stated bound (STREAM_EXPIRY_MS
 *   after its last renewal); one drained with SIGTERM removes its entries before it exits;
 * - MCP through the real load balancer (haproxy running deploy/haproxy.cfg): a session's calls
 *   stick to its edge; that edge is killed, the client's next call gets 404, the client opens a
 *   new session (on the surviving edge) and the call succeeds; the health check marks the dead
 *   edge down; a drained edge ends the session's GET stream cleanly.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { freePort, openBucket } from '../../src/bus/index.ts';
import { STREAM_EXPIRY_MS, STREAM_RENEW_MS } from '../../src/edge/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { CloseCodes } from '../../schemas/stream.ts';
import { callTool, spyOnMints } from '../mcp/mcp-helpers.ts';
import { until } from '../helpers/nats.ts';
import { startRole, type RoleProcess } from '../helpers/role-process.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { startHaproxy, type Haproxy } from '../helpers/haproxy.ts';
import { connectStream, type StreamClient } from '../helpers/ws-client.ts';

/** How long a dead edge's slots may still count: the README's bound, with room for a loaded machine (a guard, not a measurement). */
const FREED_WITHIN_MS = STREAM_RENEW_MS + STREAM_EXPIRY_MS + 30_000;
const LIMITS = { TRUST_PROXY: '1', WS_PER_KEY: '1' };

describe('two edges: per-key stream limits over both, MCP clients never stranded by a dead edge', () => {
  let sf: TestService;
  let natsUrl: string;
  let dir: string;
  const children: RoleProcess[] = [];
  const sockets: StreamClient[] = [];
  const aborts: AbortController[] = [];
  const balancers: Haproxy[] = [];
  const mcpClients: Client[] = [];

  /** Another edge process on the installation's NATS. */
  const startEdge = async () => {
    const port = await freePort();
    const process = startRole('edge', natsUrl, {
      ...LIMITS,
      PORT: String(port),
      HOST: '127.0.0.1',
      STRATEGY_WORKERS: '1',
      DATA_DIR: join(dir, `edge-${children.length}`),
    });
    children.push(process);
    const running = await process.running();
    return { process, url: running.url as string };
  };

  /** GET /activity/stream with the key: the response (200: the stream is open; close() ends it). */
  const sse = async (base: string, key: string) => {
    const abort = new AbortController();
    aborts.push(abort);
    const res = await fetch(`${base}/api/v1/activity/stream`, { headers: { 'x-api-key': key }, signal: abort.signal });
    return { res, close: () => abort.abort() };
  };
  /** Polls until the edge lets the key's stream open (guarded, not timed). */
  const sseOnceFree = async (base: string, key: string, what: string, timeoutMs = 20_000) => {
    let open: Awaited<ReturnType<typeof sse>> | null = null;
    await until(
      what,
      async () => {
        const attempt = await sse(base, key);
        if (attempt.res.status === 200) open = attempt;
        else await attempt.res.text();
        return open !== null;
      },
      timeoutMs,
    );
    return open!;
  };
  /** A WebSocket with the key: 'welcome' or the close code it was refused with. */
  const ws = async (base: string, key: string) => {
    const client = await connectStream(base, { 'x-api-key': key });
    sockets.push(client);
    const outcome = await Promise.race([client.next('welcome').then(() => 'welcome' as const), client.closed.then((c) => c.code)]);
    return { client, outcome };
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sf-two-edges-'));
    sf = await startTestService(LIMITS);
    natsUrl = `nats://${sf.service.bus.nc.getServer()}`;
  });
  after(async () => {
    for (const a of aborts) a.abort();
    for (const s of sockets) s.ws.terminate();
    await Promise.all(mcpClients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(balancers.map((b) => b.stop()));
    for (const c of children) c.child.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    await sf?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a key’s SSE stream and WebSocket on one edge make the other refuse the next; closing frees them there; SIGKILL frees them within the bound', async () => {
    const edge2 = await startEdge();
    const { api_key: key } = await sf.mintKey();

    const first = await sse(sf.url, key);
    assert.equal(first.res.status, 200);
    const refused = await sse(edge2.url, key);
    assert.equal(refused.res.status, 429);
    const body = await refused.res.json();
    assert.equal(body.code, 429);
    assert.match(body.error, /one concurrent SSE stream per key/);
    first.close();
    await sseOnceFree(edge2.url, key, 'the stream closed on edge 1 frees the key on edge 2');
    assert.equal((await sse(sf.url, key)).res.status, 429, 'now edge 2 holds it');

    const socket = await ws(edge2.url, key);
    assert.equal(socket.outcome, 'welcome');
    assert.equal((await ws(sf.url, key)).outcome, CloseCodes.tooManyConnections, 'the key’s one connection is on edge 2');
    socket.client.close();
    await socket.client.closed;
    await until('the socket closed on edge 2 frees the key on edge 1', async () => (await ws(sf.url, key)).outcome === 'welcome');
    const held = sockets.at(-1)!;
    held.close();
    await held.closed;
    const onEdge2 = await ws(edge2.url, key);
    // (the release of edge 1's socket may still be on its way: try until it is written)
    if (onEdge2.outcome !== 'welcome')
      await until('edge 2 takes the connection again', async () => (await ws(edge2.url, key)).outcome === 'welcome');

    // Edge 2 dies holding both: no release ever comes, its entries stop being renewed.
    edge2.process.child.kill('SIGKILL');
    await edge2.process.exited;
    await sseOnceFree(sf.url, key, 'the dead edge’s SSE slot freed', FREED_WITHIN_MS);
    await until('the dead edge’s WebSocket slot freed', async () => (await ws(sf.url, key)).outcome === 'welcome', FREED_WITHIN_MS);
  });

  it('an edge drained with SIGTERM removes its streams’ entries before it exits, and ends the MCP GET stream cleanly', async () => {
    const edge = await startEdge();
    const { api_key: key, user_id } = await sf.mintKey();
    assert.equal((await sse(edge.url, key)).res.status, 200);
    const slots = await openBucket(sf.service.bus, Buckets.streamSlots);
    assert.equal((await slots.get(`sse.${user_id}`))?.value.streams.length, 1);

    // An MCP session on that edge with its GET notification stream open (raw HTTP: what any client sends).
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(`${edge.url}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'drain', version: '0' } },
      }),
    });
    assert.equal(init.status, 200);
    await init.text();
    const session = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
    const initialized = await fetch(`${edge.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, ...session },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    assert.equal(initialized.status, 202);
    const stream = await fetch(`${edge.url}/mcp`, { headers: { accept: 'text/event-stream', ...session } });
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /text\/event-stream/);

    edge.process.child.kill('SIGTERM');
    // A clean end (the body resolves), not a connection cut by the process's exit (the body would fail).
    await stream.text();
    assert.equal(await edge.process.exited, 0);
    assert.deepEqual((await slots.get(`sse.${user_id}`))?.value.streams, [], 'released at the drain, not left to expire');
    assert.equal((await sse(sf.url, key)).res.status, 200, 'so the other edge takes the key’s stream at once');
  });

  it('MCP through the real load balancer (deploy/haproxy.cfg): a session sticks to its edge; that edge dies, the next call gets 404, a new session on the surviving edge succeeds', async () => {
    const doomed = await startEdge();
    const lb = await startHaproxy([doomed.url, sf.url]);
    balancers.push(lb);
    await until('both edges pass the balancer’s health check', async () => [...(await lb.status()).values()].every((s) => s === 'UP'));
    const minted = spyOnMints(sf);
    const connect = async () => {
      const client = new Client({ name: 'two-edges', version: '0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${lb.url}/mcp`), {
        requestInit: { headers: { 'x-forwarded-for': '10.77.0.1' } },
      });
      await client.connect(transport);
      mcpClients.push(client);
      return { client, transport };
    };
    /** Whether an edge, asked directly, knows a session (an edge answers 404 for one it does not hold). */
    const holds = async (edge: string, sessionId: string) => {
      const res = await fetch(`${edge}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }),
      });
      await res.text();
      return res.status !== 404;
    };

    // The balancer spreads new sessions over both edges: open sessions until one lives on the edge to kill.
    let session = await connect();
    for (let k = 0; k < 8 && !(await holds(doomed.url, session.transport.sessionId!)); k++) session = await connect();
    let { client, transport } = session;
    assert.ok(await holds(doomed.url, transport.sessionId!), 'a session on the edge to kill');
    assert.equal(await holds(sf.url, transport.sessionId!), false, 'and only there');
    // Sticky: every call of the session reaches its edge (one sent to the other edge would get 404).
    for (let k = 0; k < 6; k++) {
      const listed = await callTool(client, 'list_deployed');
      assert.equal(listed.error, null, JSON.stringify(listed.error));
    }

    doomed.process.child.kill('SIGKILL');
    await doomed.process.exited;
    // The balancer sends the call on to the surviving edge (redispatch), which does not know the session: 404, not 400, not a hang.
    const stranded = await client.callTool({ name: 'list_deployed', arguments: {} }).then(
      () => null,
      (err: unknown) => err,
    );
    assert.ok(stranded instanceof StreamableHTTPError, `a transport error: ${String(stranded)}`);
    assert.equal(stranded.code, 404);
    assert.match(stranded.message, /session not found/);

    // What the client does (the SDK does not by itself): a new transport without a session id, initialize again.
    await client.close();
    ({ client, transport } = await connect());
    assert.ok(await holds(sf.url, transport.sessionId!), 'the new session lives on the surviving edge');
    const mintsBefore = minted.length;
    const after = await callTool(client, 'list_deployed');
    assert.equal(after.error, null, JSON.stringify(after.error));
    assert.equal(after.data.count, 0, 'a new account: nothing deployed');
    assert.equal(minted.length, mintsBefore + 1, 'the new session mints its own trial key on its first tool call (the README says so)');
    // The health check takes the dead edge out of the rotation (inter 2s, fall 2).
    await until('the dead edge marked down', async () => (await lb.status()).get('edge1') === 'DOWN', 20_000);
  });
});
