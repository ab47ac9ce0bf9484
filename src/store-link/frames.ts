import { randomUUID } from 'node:crypto';
import type { BlobStore } from '../bus/index.ts';
import { StoreFrameHead } from '../../schemas/store-link.ts';

/** Frames up to this size travel in the message itself (NATS's default max_payload is 1 MB). */
const INLINE_MAX = 900 * 1024;
const EMPTY = new Uint8Array(0);

/** [u32 LE length of the JSON][the JSON][body] (schemas/store-link.ts). */
export function encodeFrame(head: object, body: Uint8Array = EMPTY): Uint8Array {
  const json = Buffer.from(JSON.stringify(head), 'utf8');
  const out = Buffer.allocUnsafe(4 + json.byteLength + body.byteLength);
  out.writeUInt32LE(json.byteLength, 0);
  json.copy(out, 4);
  out.set(body, 4 + json.byteLength);
  return out;
}

function decodeFrame(data: Uint8Array): { head: unknown; body: Uint8Array } {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (buf.byteLength < 4) throw new Error('store frame too short');
  const length = buf.readUInt32LE(0);
  if (4 + length > buf.byteLength) throw new Error('store frame cut short');
  return { head: JSON.parse(buf.toString('utf8', 4, 4 + length)), body: buf.subarray(4 + length) };
}

/** The frame as it can travel: itself, or (too large for a message) a blob named in a small frame. */
export async function outgoing(frame: Uint8Array, blobs: BlobStore): Promise<Uint8Array> {
  if (frame.byteLength <= INLINE_MAX) return frame;
  const blob = `f-${randomUUID()}`;
  await blobs.put(blob, frame);
  return encodeFrame({ blob });
}

/** A frame as it arrived, fetched back from its blob (which is then removed) when it was large. */
export async function incoming(data: Uint8Array, blobs: BlobStore): Promise<{ head: unknown; body: Uint8Array }> {
  const frame = decodeFrame(data);
  const { blob } = StoreFrameHead.parse(frame.head);
  if (!blob) return frame;
  const stored = await blobs.get(blob);
  if (!stored) throw new Error(`store frame ${blob} is gone (kept 10 minutes at most)`);
  await blobs.delete(blob).catch(() => undefined);
  return decodeFrame(stored);
}
