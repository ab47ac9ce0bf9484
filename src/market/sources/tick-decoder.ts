/**
 * Decodes one NATS/Kafka tick message. The payload is JSON, either one tick
 * `{"ts": <epoch ms>, "bid": n, "ask": n, "bid_volume"?: n, "ask_volume"?: n}` or an array of them.
 * Arrays (batches) are allowed because a publisher sending hundreds of thousands of ticks a second
 * pays per message (subject, framing, a JSON.parse call); a 100-tick array costs far less per tick.
 * Every element of an array is judged on its own: the good ones pass, each bad one is counted.
 *
 * `TickMessage` (schemas/market.ts, zod) is the definition of a valid tick. `parseTick` is a
 * hand-written check of exactly the same rules, because zod per tick is several times slower than
 * the JSON parse itself; test/market/sources/tick-decoder.test.ts proves the two agree.
 */
import { TickMessage } from '../../../schemas/market.ts';

export type { TickMessage };

/** Why a message (or one element of a batch) was rejected, kept for a rate-limited log line. */
export interface DecodeProblem {
  kind: 'json' | 'shape' | 'tick';
  /** The offending value (the raw text, capped, for `json`). */
  value: unknown;
}

export interface DecodeResult {
  ticks: TickMessage[];
  /** Records rejected: 1 for a message that is not JSON or not an object/array, else per element. */
  malformed: number;
  /** The first rejection, if any. */
  problem?: DecodeProblem;
}

const utf8 = new TextDecoder();
const MAX_SAMPLE = 200;

/** Reads a payload as text; bytes that are not UTF-8 become U+FFFD and then fail JSON or validation. */
export function payloadText(payload: Uint8Array | string): string {
  return typeof payload === 'string' ? payload : utf8.decode(payload);
}

const positiveFinite = (x: unknown): x is number => typeof x === 'number' && x > 0 && x !== Infinity;
// NaN fails `>= 0` as zod's z.number() rejects it; -0 passes both.
const volumeOk = (x: unknown): boolean => x === undefined || (typeof x === 'number' && x >= 0 && x !== Infinity);

/**
 * The `TickMessage` rules on a tick's numbers (`bidVolume` undefined: absent), for decoders that
 * never build the tick object (a tick frame into columns).
 */
export function tickNumbersOk(ts: number, bid: number, ask: number, bidVolume: unknown): boolean {
  // A crossed quote (ask < bid) is valid, as in the schema: vendor feeds really have them.
  return Number.isSafeInteger(ts) && ts > 0 && positiveFinite(bid) && positiveFinite(ask) && volumeOk(bidVolume);
}

/**
 * The fast path: the `TickMessage` rules by hand. Returns the same object zod's parse returns
 * (only the schema's keys) or null. zod's `.int()` means a safe integer, hence isSafeInteger.
 */
export function parseTick(value: unknown): TickMessage | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  const { ts, bid, ask, bid_volume, ask_volume } = v;
  if (typeof ts !== 'number' || typeof bid !== 'number' || typeof ask !== 'number') return null;
  if (!tickNumbersOk(ts, bid, ask, bid_volume) || !volumeOk(ask_volume)) return null;
  const tick: TickMessage = { ts, bid, ask };
  // zod keeps a present-but-undefined optional key; JSON never yields one, but stay identical.
  if (bid_volume !== undefined || 'bid_volume' in v) tick.bid_volume = bid_volume as number | undefined;
  if (ask_volume !== undefined || 'ask_volume' in v) tick.ask_volume = ask_volume as number | undefined;
  return tick;
}

/** The reference path: the zod schema itself. Used by the equivalence test and to explain rejections. */
export function parseTickWithZod(value: unknown): TickMessage | null {
  const result = TickMessage.safeParse(value);
  return result.success ? result.data : null;
}

/** Decodes a payload into valid ticks; never throws. */
export function decodeTicks(payload: Uint8Array | string): DecodeResult {
  const text = payloadText(payload);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ticks: [], malformed: 1, problem: { kind: 'json', value: text.slice(0, MAX_SAMPLE) } };
  }
  if (Array.isArray(value)) return decodeArray(value);
  const tick = parseTick(value);
  if (tick) return { ticks: [tick], malformed: 0 };
  const kind = typeof value === 'object' && value !== null ? 'tick' : 'shape';
  return { ticks: [], malformed: 1, problem: { kind, value } };
}

function decodeArray(values: unknown[]): DecodeResult {
  const ticks: TickMessage[] = [];
  let malformed = 0;
  let problem: DecodeProblem | undefined;
  for (const value of values) {
    const tick = parseTick(value);
    if (tick) ticks.push(tick);
    else {
      malformed++;
      problem ??= { kind: 'tick', value };
    }
  }
  return problem ? { ticks, malformed, problem } : { ticks, malformed };
}

/** A short human reason for a log line; runs zod only here, on the rare rejected record. */
export function describeProblem(problem: DecodeProblem): string {
  if (problem.kind === 'json') return 'payload is not JSON';
  if (problem.kind === 'shape') return 'payload is neither a tick object nor an array of ticks';
  const result = TickMessage.safeParse(problem.value);
  if (result.success) return 'invalid tick';
  return result.error.issues.map((i) => `${i.path.join('.') || 'tick'}: ${i.message}`).join('; ');
}

/** The platform's volume: bid + ask volume where the source gives them, 0 otherwise. */
export const tickVolume = (t: TickMessage): number => (t.bid_volume ?? 0) + (t.ask_volume ?? 0);
