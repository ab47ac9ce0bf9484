/** nats-core errors that mean "the server is away right now" (a restart, a network cut), not "the request is wrong". */
const TRANSIENT_NAMES = new Set([
  'TimeoutError',
  'ConnectionError',
  'RequestError',
  'NoRespondersError',
  'ClosedConnectionError',
  'DrainingConnectionError',
]);

/**
 * Whether an error comes from NATS being unreachable for a while: work that failed this way
 * should be tried again later rather than reported as the user's failure.
 */
export function isTransientBusError(err: unknown): boolean {
  const e = err as { name?: string; message?: string; cause?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (e.name && TRANSIENT_NAMES.has(e.name)) return true;
  // JetStream answers this while its leader is being elected (right after a server restart).
  if (/jetstream (system )?(is )?(temporarily )?unavailable|no responders|disconnect/i.test(e.message ?? '')) return true;
  return e.cause !== undefined && e.cause !== err ? isTransientBusError(e.cause) : false;
}

/** The server's "no stream of that name" (a JetStream API error, by name or by its sentence). */
export function isStreamNotFound(err: unknown): boolean {
  const e = err as { name?: string; message?: string } | null;
  return !!e && typeof e === 'object' && (e.name === 'StreamNotFoundError' || /stream not found/i.test(e.message ?? ''));
}
