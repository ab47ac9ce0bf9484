/**
 * The hosted MCP server: Streamable HTTP at /mcp inside the service's own Fastify app, so
 * {mcp_url} is the service's base URL. Sessions are stateful (keyed by the `mcp-session-id`
 * header the initialize answer assigns), kept in this process's memory, and end on DELETE, after
 * `idleMs` without a request, or when the app closes.
 *
 * No account is needed: a session mints its own trial key on its first tool call, in-process
 * through the accounts module with the MCP client's IP (so the per-IP trial limit counts the real
 * client, not this service's loopback). The key lives in the session only and is never logged or
 * shown. A client that sends a valid X-API-Key with initialize uses that key instead.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { mintTrial, type Accounts } from '../accounts/index.ts';
import type { Config } from '../config.ts';
import { ApiClient } from './api-client.ts';
import { buildMcpServer } from './tools.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

export const MCP_PATH = '/mcp';

export interface HostedMcpDeps {
  accounts: Pick<Accounts, 'directory' | 'metering' | 'mintLimiter'>;
  config: Pick<Config, 'TRIAL_CREDITS' | 'TRIAL_MINTS_PER_HOUR'>;
  /** Base URL of the REST API the tools call; default: the address this app listens on (loopback when on all interfaces). */
  apiUrl?: () => string;
  /** A session without a request for this long ends (default 30 minutes). */
  idleMs?: number;
  /** Sessions at once (default 1000): past it the longest-idle one ends; when none is idle, 503. */
  maxSessions?: number;
  /** Sessions at once per client IP (default 20): past it, 429. */
  maxSessionsPerIp?: number;
  /** The time sessions idle by (liveClock unless a test sets it). */
  clock?: Clock;
}

interface Session {
  id: string;
  ip: string;
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  /** Requests of this session still open (a tool call in progress, the GET notification stream). */
  open: number;
  lastSeen: number;
}

/** The live sessions, for shutdown, tests and /_metrics-like introspection. */
export interface McpSessions {
  size(): number;
  /** Ends the sessions idle at `now` (the sweeper calls it every minute); returns how many ended. */
  sweep(now?: number): Promise<number>;
  closeAll(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    mcpSessions: McpSessions;
  }
}

/** A session without a request for this long ends (the default of `idleMs`). */
export const MCP_SESSION_IDLE_MINUTES = 30;
const DEFAULT_IDLE_MS = MCP_SESSION_IDLE_MINUTES * 60_000;

/** Registers GET, POST and DELETE /mcp (kept out of /openapi.json: the MCP protocol describes it). */
export function registerMcp(app: FastifyInstance, deps: HostedMcpDeps): McpSessions {
  const { accounts, config } = deps;
  const idleMs = deps.idleMs ?? DEFAULT_IDLE_MS;
  const maxSessions = deps.maxSessions ?? 1000;
  const maxPerIp = deps.maxSessionsPerIp ?? 20;
  const clock = deps.clock ?? liveClock;
  const apiUrl = deps.apiUrl ?? (() => listeningUrl(app));
  const sessions = new Map<string, Session>();
  const log = app.log.child({ component: 'mcp' });

  const hints = {
    402:
      `Each MCP session gets its own trial key with ${config.TRIAL_CREDITS} credits: start a new session for a fresh one ` +
      `(at most ${config.TRIAL_MINTS_PER_HOUR} per IP address per hour), or connect with your own key in the X-API-Key header.`,
  };

  /** Mints the session's trial key in-process, counted against the client's IP. */
  const mint = async (session: Session): Promise<string> => {
    const { user, apiKey } = await mintTrial(accounts, { ip: session.ip, credits: config.TRIAL_CREDITS });
    log.info({ session: session.id, user_id: user.user_id }, 'mcp session minted its trial key');
    return apiKey;
  };

  const close = async (session: Session) => {
    sessions.delete(session.id);
    await session.server.close().catch((err: unknown) => log.warn({ err, session: session.id }, 'mcp session close failed'));
  };

  const handle = {
    size: () => sessions.size,
    async sweep(now = clock.now()) {
      const idle = [...sessions.values()].filter((s) => s.open === 0 && now - s.lastSeen >= idleMs);
      await Promise.all(idle.map(close));
      if (idle.length) log.info({ ended: idle.length, open: sessions.size }, 'mcp sessions expired');
      return idle.length;
    },
    async closeAll() {
      await Promise.all([...sessions.values()].map(close));
    },
  } satisfies McpSessions;

  /** A new session for an initialize request, or null when the reply has been sent (a refusal). */
  const openSession = async (request: FastifyRequest, reply: FastifyReply): Promise<Session | null> => {
    const header = request.headers['x-api-key'];
    if (typeof header === 'string' && header && !request.user) {
      rpcError(reply, 401, 'invalid X-API-Key: leave it out to use a trial key of this session');
      return null;
    }
    const ip = request.ip;
    if ([...sessions.values()].filter((s) => s.ip === ip).length >= maxPerIp) {
      rpcError(reply, 429, `at most ${maxPerIp} MCP sessions per client address: end one (DELETE /mcp) first`);
      return null;
    }
    if (sessions.size >= maxSessions) {
      const idlest = [...sessions.values()].filter((s) => s.open === 0).sort((a, b) => a.lastSeen - b.lastSeen)[0];
      if (!idlest) {
        rpcError(reply, 503, 'the MCP server is at its session limit: try again shortly');
        return null;
      }
      await close(idlest);
    }

    const id = randomUUID();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => {
        sessions.set(id, session);
        log.info({ session: id, open: sessions.size }, 'mcp session opened');
      },
    });
    const presetKey = typeof header === 'string' && request.user ? header : null;
    let key: Promise<string> | null = presetKey ? Promise.resolve(presetKey) : null;
    const server = buildMcpServer({
      api: new ApiClient({
        baseUrl: apiUrl(),
        // Minted once, on first use; a failed mint (429 past the per-IP limit) is tried again next call.
        key: () =>
          (key ??= mint(session).catch((err: unknown) => {
            key = null;
            throw err;
          })),
      }),
      hints,
    });
    const session: Session = { id, ip, server, transport, open: 0, lastSeen: clock.now() };
    transport.onclose = () => {
      if (sessions.get(id) === session) sessions.delete(id);
      log.info({ session: id, open: sessions.size }, 'mcp session ended');
    };
    await server.connect(transport);
    return session;
  };

  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: MCP_PATH,
    config: { auth: 'none' },
    schema: { hide: true },
    handler: async (request, reply) => {
      const sessionId = request.headers['mcp-session-id'];
      let session: Session | null | undefined;
      let fresh = false;
      if (typeof sessionId === 'string' && sessionId) {
        session = sessions.get(sessionId);
        if (!session)
          return rpcError(
            reply,
            404,
            'session not found (it ended, expired, or the server holding it stopped): start a new one with initialize, without mcp-session-id',
            -32001,
          );
      } else if (request.method === 'POST' && isInitializeRequest(request.body)) {
        session = await openSession(request, reply);
        if (!session) return reply;
        fresh = true;
      } else {
        return rpcError(reply, 400, 'no valid mcp-session-id header: start a session with an initialize request (POST)');
      }
      if (request.method === 'POST' && request.body === undefined)
        return rpcError(reply, 400, 'empty body: send a JSON-RPC message', -32700);

      const current = session;
      current.open++;
      reply.raw.on('close', () => {
        current.open--;
        current.lastSeen = clock.now();
      });
      // The SDK writes the answer (JSON, or an SSE stream) to the raw response itself.
      reply.hijack();
      try {
        await current.transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (err) {
        log.error({ err, session: current.id }, 'mcp request failed');
        if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json' });
        if (!reply.raw.writableEnded) reply.raw.end(JSON.stringify(rpcErrorBody('internal error')));
      }
      // An initialize the transport refused never became a session: nothing keeps its server.
      if (fresh && !sessions.has(current.id)) await current.server.close().catch(() => undefined);
      return reply;
    },
  });

  const sweeper = setInterval(() => void handle.sweep(), Math.min(idleMs, 60_000));
  sweeper.unref();
  // Open streams (GET notification streams, tool calls in progress) would hold the close for ever.
  app.addHook('preClose', async () => {
    clearInterval(sweeper);
    await handle.closeAll();
  });
  app.decorate('mcpSessions', handle);
  return handle;
}

const rpcErrorBody = (message: string, code = -32000) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

/** A refusal as MCP clients expect it: a JSON-RPC error body with the HTTP status. */
function rpcError(reply: FastifyReply, status: number, message: string, code?: number): FastifyReply {
  return reply.code(status).type('application/json').serializer(JSON.stringify).send(rpcErrorBody(message, code));
}

/** http://host:port of the address this app listens on (127.0.0.1 when it listens on every interface). */
export function listeningUrl(app: Pick<FastifyInstance, 'server'>): string {
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('the service is not listening on a TCP port');
  const any = address.address === '0.0.0.0' || address.address === '::';
  const host = any ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
