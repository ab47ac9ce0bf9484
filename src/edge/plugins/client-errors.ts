import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, errorBody, HeadersTooLargeError, MalformedRequestError, RequestTimeoutError, UnavailableError } from '../../errors.ts';

/** Writes a whole HTTP/1.1 error response on a raw socket and closes it after the write. */
export function writeRawError(socket: Socket, error: AppError): void {
  const body = JSON.stringify(errorBody(error));
  const headers = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
    ...Object.entries(error.headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}

/** What the HTTP parser's own refusals mean to a client. */
function classify(
  err: NodeJS.ErrnoException,
  limits: { headersTimeoutMs: number; requestTimeoutMs: number; maxHeaderBytes: number },
): AppError {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new RequestTimeoutError(
      `request timeout: the headers must arrive within ${limits.headersTimeoutMs} ms and the whole request within ${limits.requestTimeoutMs} ms`,
    );
  }
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return new HeadersTooLargeError(`request line and headers too large: at most ${limits.maxHeaderBytes} bytes`);
  }
  return new MalformedRequestError(`malformed HTTP request (${err.code ?? 'parse error'})`);
}

/**
 * Fastify's `clientErrorHandler`: errors of Node's HTTP parser (oversized headers, a request that
 * timed out, garbage) happen before Fastify sees a request, so Node would answer them in its own
 * shape; this answers them as `{ error, code, error_code }` too, then closes the connection.
 */
export function clientErrorHandler(limits: { headersTimeoutMs: number; requestTimeoutMs: number; maxHeaderBytes: number }) {
  return function (this: { log: FastifyBaseLogger }, err: NodeJS.ErrnoException, socket: Socket): void {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const response = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || response?.headersSent) {
      socket.destroy(err);
      return;
    }
    const error = classify(err, limits);
    this.log.debug({ code: err.code, status: error.status }, 'client error');
    writeRawError(socket, error);
    socket.destroySoon();
  };
}

/**
 * A global cap on open connections. Node's own `maxConnections` drops the extra socket without a
 * word; this answers it with a 503 in the contract shape and a Retry-After first.
 */
export function capConnections(
  server: { on(event: 'connection', fn: (socket: Socket) => void): unknown },
  max: number,
  log: FastifyBaseLogger,
): void {
  let open = 0;
  let refused = 0;
  server.on('connection', (socket) => {
    if (open >= max) {
      refused++;
      if (refused === 1 || refused % 1000 === 0) log.warn({ open, max, refused }, 'connection limit reached: refusing connections');
      const error = new UnavailableError(`the service is at its connection limit (${max}): try again shortly`);
      error.headers['retry-after'] = '1';
      writeRawError(socket, error);
      socket.destroySoon();
      return;
    }
    open++;
    socket.once('close', () => open--);
  });
}
