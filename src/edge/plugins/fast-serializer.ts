import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';

/**
 * Route option for the bulk data routes (/ohlc, /ticks, /indicators): their responses are built
 * by our own code from typed columns, and validating 5,000 rows against the schema on every
 * call would cost more than building them. The schema still documents the route in
 * /openapi.json, and the route tests check responses against it.
 */
export const plainJsonSerializer = {
  serializerCompiler: () => (data: unknown) => JSON.stringify(data),
};

/**
 * Sends a response body that is already JSON (text assembled from cached per-row text, or the
 * encoded bytes of a cached response). Fastify sends a string or a Buffer as it is; the cast only
 * satisfies the route's declared response type.
 */
export function sendJsonText<T>(reply: FastifyReply, text: string | Buffer): T {
  return reply.type('application/json; charset=utf-8').send(text) as unknown as T;
}

/** Bytes written per event-loop turn by sendJsonInSlices. */
const SLICE_BYTES = 64 * 1024;

/**
 * Sends a large JSON body (hundreds of KB, in parts sent one after another) a slice per
 * event-loop turn, with its full Content-Length: the same bytes, but the socket write of one big
 * answer no longer holds the loop for milliseconds while other requests (keyed reads) wait behind it.
 */
export function sendJsonInSlices<T>(reply: FastifyReply, given: Uint8Array[]): T {
  // An empty part would push an empty chunk, which asks for no further read: the stream would stall.
  const parts = given.filter((p) => p.length > 0);
  const length = parts.reduce((n, p) => n + p.length, 0);
  if (length <= SLICE_BYTES) return sendJsonText<T>(reply, Buffer.concat(parts));
  let part = 0;
  let at = 0;
  const slices = new Readable({
    read() {
      setImmediate(() => {
        const bytes = parts[part]!;
        const end = Math.min(at + SLICE_BYTES, bytes.length);
        this.push(bytes.subarray(at, end));
        at = end;
        if (at === bytes.length) {
          part++;
          at = 0;
          if (part === parts.length) this.push(null);
        }
      });
    },
  });
  return reply.type('application/json; charset=utf-8').header('content-length', length).send(slices) as unknown as T;
}
