/**
 * A stand-in for the load balancer in front of the edges (deploy/haproxy.cfg): an HTTP proxy that
 * keeps an MCP session on the edge that answered its initialize (sticky on the `mcp-session-id`
 * response and request header), sends everything else to the first edge of its list that is up,
 * and sends a request whose edge refuses connections to the next one (haproxy's redispatch).
 */
import { request as httpRequest, createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StickyProxy {
  url: string;
  /** Which edge (its base URL) each MCP session was pinned to. */
  pinned: Map<string, string>;
  stop(): Promise<void>;
}

const readBody = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

export async function startStickyProxy(edges: string[]): Promise<StickyProxy> {
  const pinned = new Map<string, string>();
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const session = req.headers['mcp-session-id'];
    const sticky = typeof session === 'string' ? pinned.get(session) : undefined;
    const order = sticky ? [sticky, ...edges.filter((e) => e !== sticky)] : edges;
    for (const edge of order) {
      const answered = await new Promise<boolean>((done) => {
        const target = new URL(req.url ?? '/', edge);
        const headers: IncomingHttpHeaders = { ...req.headers, host: target.host };
        const upstream = httpRequest(target, { method: req.method, headers }, (answer) => {
          const id = answer.headers['mcp-session-id'];
          if (typeof id === 'string') pinned.set(id, edge);
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.flushHeaders();
          answer.pipe(res);
          // An edge that dies mid-stream cuts the client's stream too (as a balancer does).
          answer.on('error', () => res.destroy());
          answer.on('aborted', () => res.destroy());
          done(true);
        });
        // Connection refused (the edge is down): the next edge, as haproxy's redispatch does.
        upstream.on('error', () => done(false));
        res.on('close', () => upstream.destroy());
        upstream.end(body);
      });
      if (answered) return;
    }
    res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'no edge is up', code: 503 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pinned,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
