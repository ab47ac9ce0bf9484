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
 * Bytes handed to the socket at most while it has not written them out: the frames after them
 * wait in the edge's own queue, where the `lagging` warning and a 4413 close can pass them. Were
 * every frame handed over at once, both would wait behind the whole backlog, and a client slow
 * enough to be warned would be cut off (1006) before reading either.
 */
export const WIRE_BYTES = 16 * 1024;

/**
 * One connected socket's sending side, with flow control: frames wait in a queue and go to the
 * socket as it writes out; past the limit of unsent bytes the client is told once (`lagging`,
 * ahead of the queue), and at twice the limit the queue is dropped and the socket closed (4413,
 * right behind the warning) instead of letting the edge's memory grow with a client that cannot read.
 */
export class ClientSocket {
  private warned = false;
  private ended = false;
  /** Frames not yet handed to the socket, oldest first, and their bytes. */
  private readonly held: Buffer[] = [];
  private heldBytes = 0;
  /** A close waiting for the held frames to go out first (a shutdown's 1001). */
  private closeAfterHeld: { code: number; reason: string } | null = null;
  private readonly pumpOnWrite = () => this.pump();
  /** Answered the last ping (or sent anything since). */
  alive = true;
  /** When the client last sent a frame (performance.now(): only its age is read). */
  lastHeardAt = performance.now();

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

  /** Bytes this client has not been sent yet: the edge's queue and the socket's own buffer. */
  get unsentBytes(): number {
    return this.heldBytes + this.ws.bufferedAmount;
  }

  /** Sends a message (or its already encoded JSON, see frameOnce); false when the socket is closed or cut off. */
  send(message: ServerMessage | Buffer): boolean {
    if (this.closed) return false;
    const unsent = this.unsentBytes;
    const limit = this.limits.sendBufferBytes;
    if (unsent >= 2 * limit) {
      this.log.warn({ buffered: unsent }, 'websocket client too slow: closing');
      this.cutOff(unsent, `too slow: more than ${2 * limit} bytes unsent; reconnect with since to resume`);
      return false;
    }
    if (unsent >= limit && !this.warned) this.tellLagging(unsent);
    else if (unsent < limit / 2) this.warned = false;
    const frame = Buffer.isBuffer(message) ? message : Buffer.from(JSON.stringify(message));
    this.held.push(frame);
    this.heldBytes += frame.length;
    this.pump();
    return true;
  }

  /** The warning, straight to the socket: ahead of every held frame. */
  private tellLagging(unsent: number): void {
    this.warned = true;
    this.ws.send(
      JSON.stringify({ type: 'lagging', buffered_bytes: unsent, limit_bytes: this.limits.sendBufferBytes } satisfies ServerMessage),
    );
  }

  /** Hands held frames to the socket while it has less than WIRE_BYTES to write; again each time it writes one out. */
  private pump(): void {
    while (this.held.length > 0 && this.ws.readyState === this.ws.OPEN && this.ws.bufferedAmount < WIRE_BYTES) {
      const frame = this.held.shift()!;
      this.heldBytes -= frame.length;
      this.ws.send(frame, { binary: false }, this.pumpOnWrite);
    }
    if (this.held.length === 0 && this.closeAfterHeld) {
      const { code, reason } = this.closeAfterHeld;
      this.closeAfterHeld = null;
      this.closeNow(code, reason);
    }
  }

  /** Drops what is held (the client resumes with `since`) and closes right behind the lagging warning, told first if it was not yet. */
  private cutOff(unsent: number, reason: string): void {
    this.held.length = 0;
    this.heldBytes = 0;
    if (!this.warned && this.ws.readyState === this.ws.OPEN) this.tellLagging(unsent);
    this.ended = true;
    this.closeNow(CloseCodes.tooSlow, reason);
    this.terminateAfterGrace();
  }

  /**
   * Closes with a code and reason, the close frame after the frames already queued; a client
   * that does not complete the closing handshake is cut off after CLOSE_GRACE_MS, so a stuck
   * reader holds its bounded buffer no longer than that.
   */
  close(code: number, reason: string): void {
    if (this.ended) return;
    this.ended = true;
    if (this.held.length > 0 && this.ws.readyState === this.ws.OPEN) this.closeAfterHeld = { code, reason };
    else this.closeNow(code, reason);
    this.terminateAfterGrace();
  }

  private closeNow(code: number, reason: string): void {
    try {
      this.ws.close(code, reason.slice(0, 120));
    } catch {
      this.ws.terminate();
    }
  }

  private terminateAfterGrace(): void {
    setTimeout(() => {
      this.held.length = 0;
      this.heldBytes = 0;
      this.ws.terminate();
    }, CLOSE_GRACE_MS).unref();
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
