/**
 * HTTP over a bare socket, for what fetch cannot send or hides: oversized headers, malformed
 * request lines, bodies trickled one byte at a time, connections held open on purpose.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
  text: string;
}

/** Parses the first HTTP/1.1 response in `raw` (content-length bodies only). */
export function parseResponse(raw: string): RawResponse {
  const split = raw.indexOf('\r\n\r\n');
  assert.ok(split > 0, `no complete response head in ${JSON.stringify(raw.slice(0, 300))}`);
  const [statusLine, ...lines] = raw.slice(0, split).split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine!)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? raw.length - split - 4);
  const text = raw.slice(split + 4, split + 4 + length);
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status, headers, body, text };
}

export function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sends on the socket until it closes the connection. */
export function readUntilClosed(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {}); // a reset after the answer still ends the read below
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
  });
}

/** Sends `request` on a new connection and returns the server's answer once it has closed it. */
export async function rawRequest(url: string, request: string | Buffer): Promise<RawResponse> {
  const socket = await openSocket(url);
  const answer = readUntilClosed(socket);
  socket.write(request);
  return parseResponse(await answer);
}

/** Reads one response on a kept-alive socket (the socket stays open). */
export function readOneResponse(socket: Socket): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let raw = '';
    const onData = (chunk: Buffer) => {
      raw += chunk.toString('latin1');
      const split = raw.indexOf('\r\n\r\n');
      if (split < 0) return;
      const length = Number(/content-length:\s*(\d+)/i.exec(raw.slice(0, split))?.[1] ?? 0);
      if (raw.length < split + 4 + length) return;
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve(parseResponse(raw));
    };
    const onClose = () => (raw ? resolve(parseResponse(raw)) : reject(new Error('closed before any response')));
    socket.on('data', onData);
    socket.once('close', onClose);
  });
}
