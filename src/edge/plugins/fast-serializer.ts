import type { FastifyReply } from 'fastify';

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
