/**
 * The runtime's framed messages (python/protocol.py is the other side and documents the flow).
 *
 * frame   = uint32 little-endian length N, then N bytes
 * message = a JSON header frame; if header.payload_bytes > 0, a raw payload frame follows
 *
 * Reading is incremental and linear: each chunk is copied once into a buffer allocated at the
 * size its frame announces, so a large answer never re-concatenates on the event loop, and a
 * frame over its limit is refused before it is buffered.
 */
import { z } from 'zod';

/** Largest header a sandbox process may send (the names of 256 feature columns fit many times). */
export const MAX_HEADER_BYTES = 4 * 1024 * 1024;
/** Largest answer a job may give; python/protocol.py MAX_REPLY_BYTES enforces it at the source. */
export const MAX_PAYLOAD_BYTES = 768 * 1024 * 1024;

const Header = z.looseObject({ payload_bytes: z.number().int().nonnegative().optional() });
export type MessageHeader = z.infer<typeof Header>;

export interface Message {
  header: MessageHeader;
  /** Its own ArrayBuffer from offset 0, so 8-byte aligned: Float64Array views need no copy. */
  payload: Buffer;
}

export class ProtocolError extends Error {
  override name = 'ProtocolError';
}

/** One frame's bytes, filled as chunks arrive. */
class Frame {
  readonly bytes: Buffer;
  filled = 0;
  constructor(size: number) {
    this.bytes = Buffer.from(new ArrayBuffer(size));
  }
  /** Copies what fits from chunk[at..]; returns the new offset. */
  fill(chunk: Buffer, at: number): number {
    const n = Math.min(this.bytes.length - this.filled, chunk.length - at);
    chunk.copy(this.bytes, this.filled, at, at + n);
    this.filled += n;
    return at + n;
  }
  get full(): boolean {
    return this.filled === this.bytes.length;
  }
}

/** Parses a byte stream into messages, calling onMessage for each; throws ProtocolError on a bad frame. */
export class MessageReader {
  private length = new Frame(4);
  private frame: Frame | null = null;
  private header: MessageHeader | null = null;

  constructor(
    private readonly onMessage: (message: Message) => void,
    private readonly maxPayload = MAX_PAYLOAD_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (!this.frame) {
        at = this.length.fill(chunk, at);
        if (!this.length.full) return;
        const size = this.length.bytes.readUInt32LE(0);
        this.length = new Frame(4);
        const limit = this.header ? this.maxPayload : MAX_HEADER_BYTES;
        if (size > limit) throw new ProtocolError(`a frame of ${size} bytes is over the ${limit}-byte limit`);
        if (this.header && size !== this.header.payload_bytes) throw new ProtocolError('payload frame does not match its header');
        this.frame = new Frame(size);
        if (size > 0) continue;
      }
      at = this.frame.fill(chunk, at);
      if (this.frame.full) this.complete(this.frame.bytes);
    }
  }

  private complete(bytes: Buffer): void {
    this.frame = null;
    if (this.header) {
      const header = this.header;
      this.header = null;
      this.onMessage({ header, payload: bytes });
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new ProtocolError('a header is not JSON');
    }
    const header = Header.safeParse(parsed);
    if (!header.success) throw new ProtocolError('a header is not an object');
    if ((header.data.payload_bytes ?? 0) > 0) this.header = header.data;
    else this.onMessage({ header: header.data, payload: Buffer.alloc(0) });
  }
}

/** A message as the buffers to write, in order. */
export function encodeMessage(header: Record<string, unknown>, payload: Buffer = Buffer.alloc(0)): Buffer[] {
  const raw = Buffer.from(JSON.stringify({ ...header, payload_bytes: payload.length }));
  const parts = [u32(raw.length), raw];
  if (payload.length > 0) parts.push(u32(payload.length), payload);
  return parts;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}

/** The whole size of the buffers. */
export function byteLength(parts: Buffer[]): number {
  return parts.reduce((n, b) => n + b.length, 0);
}
