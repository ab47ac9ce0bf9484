/**
 * A local stand-in for OANDA's v20 streaming host: GET /v3/accounts/{id}/pricing/stream answered
 * with chunked JSON lines, scripted per connection. Only the real service lives outside this machine.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StreamConnection {
  index: number;
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  openedAt: number;
  /** Set when the client (or we) closed the connection. */
  closedAt: number | null;
  closed: Promise<void>;
  /** Starts the 200 chunked stream. */
  start(): void;
  line(value: unknown): void;
  /** Writes raw text (to split a line across chunks). */
  raw(text: string): void;
  /** Drops the TCP connection without ending the response. */
  drop(): void;
}

export type Script = (conn: StreamConnection) => void | Promise<void>;

export class FakeOanda {
  readonly connections: StreamConnection[] = [];
  private server: Server;
  private port = 0;

  constructor(
    private readonly token: string,
    private readonly scripts: Script[],
  ) {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    if (!/^\/v3\/accounts\/[^/]+\/pricing\/stream$/.test(url.pathname)) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"errorMessage":"Not found"}');
      return;
    }
    let closedResolve!: () => void;
    const conn: StreamConnection = {
      index: this.connections.length,
      req,
      res,
      url,
      openedAt: Date.now(),
      closedAt: null,
      closed: new Promise((r) => (closedResolve = r)),
      start: () => res.writeHead(200, { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' }).flushHeaders(),
      line: (value) => res.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`),
      raw: (text) => res.write(text),
      drop: () => req.socket.destroy(),
    };
    res.on('close', () => {
      conn.closedAt = Date.now();
      closedResolve();
    });
    this.connections.push(conn);
    if (req.headers.authorization !== `Bearer ${this.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"errorMessage":"Insufficient authorization to perform request."}');
      return;
    }
    const script = this.scripts[Math.min(conn.index, this.scripts.length - 1)];
    await script?.(conn);
  }
}

/** A PRICE line as OANDA sends it. */
export const priceLine = (instrument: string, time: string, bid: string, ask: string, tradeable = true) => ({
  type: 'PRICE',
  time,
  bids: [{ price: bid, liquidity: 1000000 }],
  asks: [{ price: ask, liquidity: 1000000 }],
  closeoutBid: bid,
  closeoutAsk: ask,
  status: 'tradeable',
  tradeable,
  instrument,
});

export const heartbeatLine = (time = new Date().toISOString()) => ({ type: 'HEARTBEAT', time });
