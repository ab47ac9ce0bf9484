import type { WebSocket } from 'ws';
import type { Logger } from '../../log.ts';
import { CloseCodes, type ServerMessage } from '../../../schemas/stream.ts';

/** Encoded frames, cached per payload object: a bar sent to 10,000 sockets is printed and encoded once. */
const frames = new WeakMap<object, Buffer>();

/** The UTF-8 JSON of `build()`, made once per `key` object. */
export function frameOnce(key: object, build: () => ServerMessage): Buffer {
  let bytes = frames.get(key);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(build()));
    frames.set(key, bytes);
  }
  return bytes;
}

/** How long a closing client has to read what is queued and answer the close frame. */
export const CLOSE_GRACE_MS = 5_000;

export interface SocketLimits {
  /** Unsent bytes before `lagging`; the socket is closed (4413) at twice this. */
  sendBufferBytes: number;
}

/**
 * One connected socket's sending side, with flow control: frames go out while the socket's unsent
 * bytes stay under the limit; past it the client is told once (`lagging`), and at twice the limit
 * it is closed (4413) instead of letting the edge's memory grow with a client that cannot read.
 */
export class ClientSocket {
  private warned = false;
  private ended = false;
  /** Answered the last ping (or sent anything since). */
  alive = true;
  /** When the client last sent a frame (epoch ms). */
  lastHeardAt = Date.now();

  constructor(
    readonly ws: WebSocket,
    private readonly limits: SocketLimits,
    private readonly log: Logger,
  ) {
    ws.on('pong', () => {
      this.alive = true;
    });
  }

  get closed(): boolean {
    return this.ended || this.ws.readyState !== this.ws.OPEN;
  }

  /** Sends a message (or its already encoded JSON, see frameOnce); false when the socket is closed or cut off. */
  send(message: ServerMessage | Buffer): boolean {
    if (this.closed) return false;
    const buffered = this.ws.bufferedAmount;
    const limit = this.limits.sendBufferBytes;
    if (buffered >= 2 * limit) {
      this.log.warn({ buffered }, 'websocket client too slow: closing');
      this.close(CloseCodes.tooSlow, `too slow: more than ${2 * limit} bytes unsent; reconnect with since to resume`);
      return false;
    }
    if (buffered >= limit && !this.warned) {
      this.warned = true;
      this.ws.send(JSON.stringify({ type: 'lagging', buffered_bytes: buffered, limit_bytes: limit } satisfies ServerMessage));
    } else if (buffered < limit / 2) this.warned = false;
    if (Buffer.isBuffer(message)) this.ws.send(message, { binary: false });
    else this.ws.send(JSON.stringify(message));
    return true;
  }

  /**
   * Closes with a code and reason (the close frame goes after what is already queued); a client
   * that does not complete the closing handshake is cut off after CLOSE_GRACE_MS, so a stuck
   * reader holds its bounded buffer no longer than that.
   */
  close(code: number, reason: string): void {
    if (this.ended) return;
    this.ended = true;
    try {
      this.ws.close(code, reason.slice(0, 120));
    } catch {
      this.ws.terminate();
      return;
    }
    setTimeout(() => this.ws.terminate(), CLOSE_GRACE_MS).unref();
  }

  /** One heartbeat round: closes a socket that did not answer the previous ping, else pings. */
  heartbeat(): void {
    if (this.closed) return;
    if (!this.alive) {
      this.close(CloseCodes.idle, 'no pong to the last ping');
      return;
    }
    this.alive = false;
    this.ws.ping();
  }
}
