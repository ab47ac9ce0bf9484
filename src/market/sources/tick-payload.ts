/**
 * A tick message on NATS or Kafka in either of its two forms: JSON (one TickMessage or an array
 * of them, what any publisher may send) or a binary tick frame (tick-frame.ts, what our own feeds
 * publish). Readers go through here and need not know which came.
 */
import type { TickColumns } from '../../store/index.ts';
import { countRecords, decodeTicksInto, type ColumnsDecodeResult } from './columns-decoder.ts';
import { decodeTickFrame, decodeTickFrameInto, frameCount, isTickFrame } from './tick-frame.ts';
import { decodeTicks, type DecodeResult } from './tick-decoder.ts';
import { Topics } from '../../../schemas/messages.ts';

/** The valid ticks of a message, and the records rejected; never throws. */
export function decodeTickPayload(payload: Uint8Array | string): DecodeResult {
  return typeof payload !== 'string' && isTickFrame(payload) ? decodeTickFrame(payload) : decodeTicks(payload);
}

/** Appends a message's valid ticks to `out` (seq left 0: the caller numbers them); never throws. */
export function decodeTickPayloadInto(payload: Uint8Array, out: TickColumns): ColumnsDecodeResult {
  return isTickFrame(payload) ? decodeTickFrameInto(payload, out) : decodeTicksInto(payload, out);
}

/** How many records a message holds, without decoding it. */
export function countTickRecords(payload: Uint8Array): number {
  return isTickFrame(payload) ? frameCount(payload) : countRecords(payload);
}

/** A message's ticks as the TICKS topic's schema judges them: a frame's decoded records, or the parsed JSON. */
function decodeForSchema(data: Uint8Array): unknown {
  return isTickFrame(data) ? decodeTickFrame(data).ticks : JSON.parse(new TextDecoder().decode(data));
}

/** `ticks.<SYMBOL>` with both forms: what subscribers of live ticks (the WebSocket channel) and frame publishers use. */
export const TickTopic = { ...Topics.ticks, decode: decodeForSchema };
