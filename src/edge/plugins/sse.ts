import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StreamLimitError } from '../../errors.ts';
import type { ClusterStreamSlots } from './stream-slots.ts';
import { liveClock, type Clock } from '../../lib/clock.ts';

/** An open Server-Sent Events response. */
export interface SseStream {
  /** Writes one `event:`/`data:` frame (with `id:` when given); false once the client has gone. */
  send(event: string, data: unknown, id?: number | string): boolean;
  close(): void;
  /** Runs when the client disconnects or the stream is closed, once. */
  onClose(fn: () => void): void;
  readonly closed: boolean;
}

/** Every open stream, so that shutdown can end them instead of waiting on them for ever. */
const openStreams = new WeakMap<FastifyInstance, Set<SseStream>>();

export function registerSse(app: FastifyInstance): void {
  openStreams.set(app, new Set());
  app.addHook('preClose', async () => {
    for (const stream of openStreams.get(app) ?? []) stream.close();
  });
}

/**
 * Takes over the response and opens an SSE stream on it. A `heartbeat` event goes out every
 * `heartbeatMs` so clients and proxies can tell a quiet stream from a dead one.
 */
export function openSse(request: FastifyRequest, reply: FastifyReply, heartbeatMs: number): SseStream {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  const closers: Array<() => void> = [];
  let closed = false;
  const streams = openStreams.get(request.server);
  const stream: SseStream = {
    get closed() {
      return closed;
    },
    send(event, data, id) {
      if (closed) return false;
      res.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      return true;
    },
    close() {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      streams?.delete(stream);
      for (const fn of closers.splice(0)) fn();
      res.end();
    },
    onClose(fn) {
      if (closed) fn();
      else closers.push(fn);
    },
  };
  const heartbeat = setInterval(() => stream.send('heartbeat', { ts: new Date(liveClock.now()).toISOString() }), heartbeatMs);
  streams?.add(stream);
  // The response closes when the client goes away (the request's own close fires earlier).
  res.on('close', () => stream.close());
  // A client gone while the route waited (its stream slot, its first data) has already closed: end now.
  if (res.destroyed) stream.close();
  return stream;
}

/**
 * Counts open streams per holder and refuses past a limit: a key's over every edge (in NATS KV,
 * see ClusterStreamSlots), a client address's and the anonymous total on this edge.
 */
export class SseSlots {
  private readonly open = new Map<string, number>();

  constructor(private readonly keys: Pick<ClusterStreamSlots, 'acquire'>) {}

  /** Takes a slot of a holder counted on this edge; returns its release function, or null when the holder is at its limit. */
  acquire(holder: string, limit: number): (() => void) | null {
    const count = this.open.get(holder) ?? 0;
    if (count >= limit) return null;
    this.open.set(holder, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(holder) ?? 1) - 1;
      if (left <= 0) this.open.delete(holder);
      else this.open.set(holder, left);
    };
  }

  /** A key's slot over every edge, or 429 SF_STREAM_LIMIT: the per-key limit spans every SSE stream of the key. */
  async acquireForKey(userId: number, perKey: number): Promise<() => void> {
    const release = await this.keys.acquire(`sse.${userId}`, perKey);
    if (!release)
      throw new StreamLimitError(
        `at most ${perKey === 1 ? 'one concurrent SSE stream' : `${perKey} concurrent SSE streams`} per key: close the other one first`,
        5,
      );
    return release;
  }
}
