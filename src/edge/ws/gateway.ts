import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { clientBlock, type AccountDirectory } from '../../accounts/index.ts';
import type { Config } from '../../config.ts';
import type { Logger } from '../../log.ts';
import type { UserRecord } from '../../../schemas/account-records.ts';
import { CloseCodes } from '../../../schemas/stream.ts';
import { foreignSite, readCookie, SESSION_COOKIE } from '../plugins/session.ts';
import { SseSlots } from '../plugins/sse.ts';
import type { ClusterStreamSlots } from '../plugins/stream-slots.ts';
import { ClientSocket } from './client-socket.ts';
import { StreamConnection, type ConnectionDeps } from './connection.ts';

/** The path of the WebSocket stream (the same as POST /predict's: the contract announces it there). */
export const STREAM_PATH = '/api/v1/predict';

export type StreamConfig = Pick<
  Config,
  | 'WS_PER_KEY'
  | 'WS_PER_ADDRESS'
  | 'WS_SUBSCRIPTIONS'
  | 'WS_MESSAGE_BYTES'
  | 'WS_SEND_BUFFER_BYTES'
  | 'WS_TICKS_PER_SECOND'
  | 'WS_PING_MS'
  | 'WS_IDLE_MS'
  | 'WS_AUTH_TIMEOUT_MS'
  | 'TRUST_PROXY'
>;

export interface GatewayDeps extends Omit<ConnectionDeps, 'limits' | 'log' | 'directory'> {
  config: StreamConfig;
  directory: Pick<AccountDirectory, 'authenticate' | 'authenticateSession'>;
  /** Origins besides the service's own whose pages may open a cookie-authenticated socket. */
  allowedOrigins: ReadonlySet<string>;
  /** A key's connections, counted over every edge (WS_PER_KEY). */
  streamSlots: Pick<ClusterStreamSlots, 'acquire'>;
  log: Logger;
}

export interface StreamGateway {
  /** Open sockets now. */
  readonly connections: number;
  /** Closes every socket with 1001 (going away) and refuses new ones; resolves once they are gone (or after `graceMs`). */
  close(graceMs?: number): Promise<void>;
}

const rejectUpgrade = (socket: Duplex, status: number, text: string) => {
  const body = JSON.stringify({ error: text, code: status });
  socket.end(
    `HTTP/1.1 ${status} ${text.split(':')[0]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
};

/**
 * The WebSocket server of GET /api/v1/predict, on the HTTP server's `upgrade` event. Auth from
 * the upgrade (X-API-Key, else the session cookie with the Origin check) or an `auth` first
 * message; connection limits per key and per client address; heartbeats and the idle timeout in
 * one sweep for all sockets.
 */
export function attachStreamGateway(server: Server, deps: GatewayDeps): StreamGateway {
  const { config, log } = deps;
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.WS_MESSAGE_BYTES, perMessageDeflate: false, clientTracking: false });
  // Per client address on this edge; per key over every edge.
  const slots = new SseSlots(deps.streamSlots);
  const open = new Map<WebSocket, { socket: ClientSocket; connection: StreamConnection }>();
  let closing = false;
  const connectionDeps: ConnectionDeps = {
    ...deps,
    log,
    limits: {
      subscriptions: config.WS_SUBSCRIPTIONS,
      message_bytes: config.WS_MESSAGE_BYTES,
      ticks_per_second: config.WS_TICKS_PER_SECOND,
      send_buffer_bytes: config.WS_SEND_BUFFER_BYTES,
    },
  };

  const clientAddress = (req: IncomingMessage): string => {
    const forwarded = config.TRUST_PROXY
      ? String(req.headers['x-forwarded-for'] ?? '')
          .split(',')[0]
          ?.trim()
      : '';
    return forwarded || req.socket.remoteAddress || 'unknown';
  };

  server.on('upgrade', (req: IncomingMessage, raw: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== STREAM_PATH) return rejectUpgrade(raw, 404, `Not Found: WebSocket is served at ${STREAM_PATH} only`);
    if (closing) return rejectUpgrade(raw, 503, 'Service Unavailable: shutting down, reconnect shortly');
    wss.handleUpgrade(req, raw, head, (ws) => void accept(ws, req));
  });

  async function accept(ws: WebSocket, req: IncomingMessage): Promise<void> {
    const socket = new ClientSocket(ws, { sendBufferBytes: config.WS_SEND_BUFFER_BYTES }, log);
    let markIdentified = () => {};
    const releases: Array<() => void> = [];
    const onAuthenticated = async (user: UserRecord): Promise<boolean> => {
      const release = await deps.streamSlots.acquire(`ws.${user.user_id}`, config.WS_PER_KEY);
      if (!release) {
        socket.close(CloseCodes.tooManyConnections, `too many connections: at most ${config.WS_PER_KEY} per key; close another first`);
        return false;
      }
      // Gone while its slot was being taken: nothing will release it later.
      if (socket.closed) {
        release();
        return false;
      }
      releases.push(release);
      return true;
    };
    const connection = new StreamConnection(socket, connectionDeps, onAuthenticated);
    open.set(ws, { socket, connection });
    ws.on('error', (err) => log.debug({ err: err.message }, 'websocket error'));
    ws.on('close', () => {
      open.delete(ws);
      connection.end();
      for (const release of releases.splice(0)) release();
    });
    // Frames wait for the upgrade's own credentials to be checked (a session lookup), in order.
    const identified = new Promise<void>((resolve) => (markIdentified = resolve));
    ws.on('message', (data, isBinary) => {
      void identified.then(() => connection.receive(data, isBinary));
    });

    const address = slots.acquire(`ip:${clientBlock(clientAddress(req))}`, config.WS_PER_ADDRESS);
    if (!address) {
      socket.close(
        CloseCodes.tooManyConnections,
        `too many connections: at most ${config.WS_PER_ADDRESS} per client address; close another first`,
      );
      return;
    }
    releases.push(address);

    const user = await identify(req, socket);
    if (user && !socket.closed) void connection.authenticate(user);
    markIdentified();
    if (user || socket.closed) return;
    setTimeout(() => {
      if (!connection.authenticated)
        socket.close(
          CloseCodes.unauthorized,
          `unauthorized: no X-API-Key, ${SESSION_COOKIE} cookie or auth message within ${config.WS_AUTH_TIMEOUT_MS} ms`,
        );
    }, config.WS_AUTH_TIMEOUT_MS).unref();
  }

  /** The user the upgrade names (key header, else session cookie); null when it names none (auth message expected). */
  async function identify(req: IncomingMessage, socket: ClientSocket): Promise<UserRecord | null> {
    const header = req.headers['x-api-key'];
    if (typeof header === 'string') {
      const user = deps.directory.authenticate(header);
      if (!user) socket.close(CloseCodes.unauthorized, 'unauthorized: the X-API-Key is not valid; get one with POST /api/v1/key/trial');
      return user;
    }
    const token = readCookie(req, SESSION_COOKIE);
    if (!token) return null;
    const user = await deps.directory.authenticateSession(token);
    if (!user) {
      socket.close(CloseCodes.unauthorized, `unauthorized: the ${SESSION_COOKIE} session has ended; sign in again or send an X-API-Key`);
      return null;
    }
    // A socket acts for the user like a state change does: a page of another site may not open one with the cookie.
    const proto =
      config.TRUST_PROXY && typeof req.headers['x-forwarded-proto'] === 'string'
        ? req.headers['x-forwarded-proto'].split(',')[0]!.trim()
        : 'http';
    const foreign = foreignSite(req.headers, `${proto}://${req.headers.host}`, deps.allowedOrigins);
    if (foreign) {
      socket.close(
        CloseCodes.foreignOrigin,
        `refused: a ${SESSION_COOKIE} socket opened from another site (${foreign}); send an X-API-Key instead`,
      );
      return null;
    }
    return user;
  }

  // One sweep for all sockets: heartbeats, and the idle timeout of sockets with nothing subscribed.
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const { socket, connection } of open.values()) {
      if (connection.subscriptionCount === 0 && now - socket.lastHeardAt > config.WS_IDLE_MS) {
        socket.close(CloseCodes.idle, `idle: nothing subscribed and nothing sent for ${config.WS_IDLE_MS} ms`);
      } else socket.heartbeat();
    }
  }, config.WS_PING_MS);
  sweep.unref();

  return {
    get connections() {
      return open.size;
    },
    async close(graceMs = 2000) {
      closing = true;
      clearInterval(sweep);
      const sockets = [...open.values()];
      await Promise.all(
        sockets.map(
          ({ socket }) =>
            new Promise<void>((resolve) => {
              if (socket.ws.readyState === socket.ws.CLOSED) return resolve();
              socket.ws.once('close', () => resolve());
              socket.close(CloseCodes.goingAway, 'server shutting down: reconnect with since to resume');
              setTimeout(resolve, graceMs).unref();
            }),
        ),
      );
      wss.close();
    },
  };
}
