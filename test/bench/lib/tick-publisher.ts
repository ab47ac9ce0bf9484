/**
 * A second process that publishes ticks on NATS `ticks.<SYMBOL>` at a steady `rate` (ticks/s;
 * 0 = as fast as the server takes them), as JSON arrays of `batch` ticks (the high-rate form of
 * the wire format), round-robin over the symbols, for `seconds`. Prints `{"published": n, "cpu_ms": n}`.
 * Usage: node --import tsx tick-publisher.ts <natsUrl> <seconds> <batch> <rate> [<startMs>]
 * (startMs: the market time of the first tick, default sixty days ago; a later run on the same
 * service must start after the last tick of the one before, or all its ticks are late).
 *
 * It shares the 2 cores with the service, so it must cost as little CPU as it can: the payloads
 * are built once, and each later pass over them only rewrites, in place, the leading digits of
 * every timestamp (the 100-second "round" the tick falls in). Time moves forward by a round per
 * pass, so every tick is later than the one before it on its symbol, and about one tick in
 * seven shares its millisecond with the previous one (seq > 0).
 */
import { connect } from '@nats-io/transport-node';
import { SYMBOLS } from '../../../schemas/common.ts';
import { Topics } from '../../../schemas/messages.ts';
import { INSTRUMENTS } from '../../../src/lib/instruments.ts';
import { encodeTickFrame, zigzagBytes } from '../../../src/market/sources/tick-frame.ts';
import type { TickMessage } from '../../../schemas/market.ts';

const [url, secondsArg, batchArg, rateArg, startArg, formatArg] = process.argv.slice(2);
const seconds = Number(secondsArg);
const batch = Number(batchArg);
const rate = Number(rateArg ?? 0);
/** `json` (any publisher's form) or `frame` (tick frames, what our own feeds send). */
const format = formatArg === 'frame' ? 'frame' : 'json';

/** A timestamp is printed as its round (8 digits, 100 s each) and the ms within it (5 digits). */
const ROUND_MS = 100_000;
/** Messages per symbol per pass: about 6,400 ticks, 77 s of market time (a round is 100 s). */
const MESSAGES = Math.max(3, Math.floor(6400 / batch));

interface Template {
  bytes: Uint8Array;
  /** Where each tick's 8 round digits start (JSON). */
  roundAt: number[];
  /** The round its digits hold now. */
  round: number;
  /** A frame: where its first tick's timestamp (a zigzag varint) starts, and that tick's ms within its round. */
  frame?: { at: number; offset: number };
}

const enc = new TextEncoder();
const price = (points: number, digits: number) => {
  const s = String(points).padStart(digits + 1, '0');
  return `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}`;
};

/** One symbol's payloads: a random walk of bid/ask, millisecond offsets rising within a round. */
function templates(symbolIndex: number): Template[] {
  const symbol = SYMBOLS[symbolIndex]!;
  const { digits } = INSTRUMENTS[symbol];
  let points = Math.round(INSTRUMENTS[symbol].synthetic.price * 10 ** digits);
  let offset = 0;
  const out: Template[] = [];
  for (let m = 0; m < MESSAGES; m++) {
    let text = '[';
    const marks: number[] = [];
    const ticks: TickMessage[] = [];
    for (let j = 0; j < batch; j++) {
      const k = m * batch + j;
      // 0 to 24 ms apart (12 on average); 0 now and then: ticks that share a millisecond.
      offset += (k * 7919 + symbolIndex) % 25;
      points += ((k * 104729 + symbolIndex) % 7) - 3;
      text += `${j ? ',' : ''}{"ts":`;
      marks.push(text.length);
      text += `00000000${String(offset).padStart(5, '0')},"bid":${price(points, digits)},"ask":${price(points + 15, digits)}}`;
      ticks.push({ ts: offset, bid: points / 10 ** digits, ask: (points + 15) / 10 ** digits });
    }
    out.push(format === 'frame' ? frameTemplate(ticks, digits) : { bytes: enc.encode(`${text}]`), roundAt: marks, round: -1 });
  }
  if (offset >= ROUND_MS) throw new Error(`a pass spans ${offset} ms, more than a round: use a smaller batch`);
  return out;
}

/**
 * The same ticks as a tick frame: only the first timestamp is absolute (the rest are deltas), so
 * a pass rewrites that one varint in place; it keeps its length (6 bytes) for any date near ours.
 */
function frameTemplate(ticks: TickMessage[], digits: number): Template {
  const offset = ticks[0]!.ts;
  const probe = ROUND_MS * 17_000_000;
  const bytes = encodeTickFrame(
    ticks.map((t) => ({ ...t, ts: probe + t.ts })),
    digits,
  );
  if (!bytes) throw new Error('the bench quotes do not fit a tick frame');
  // The header (6 bytes) and the tick count (a plain varint) come before the first timestamp.
  const count = ticks.length < 0x80 ? 1 : ticks.length < 0x4000 ? 2 : 3;
  return { bytes, roundAt: [], round: -1, frame: { at: 6 + count, offset } };
}

/** Writes `round` as 8 ASCII digits into every timestamp of the payload (a frame: its first timestamp). */
function stamp(t: Template, round: number): void {
  if (t.round === round) return;
  if (t.frame) {
    const first = zigzagBytes(round * ROUND_MS + t.frame.offset);
    if (first.length !== 6) throw new Error(`round ${round}: a timestamp of ${first.length} varint bytes`);
    t.bytes.set(first, t.frame.at);
    t.round = round;
    return;
  }
  const digits = String(round).padStart(8, '0');
  const codes = [...digits].map((c) => c.charCodeAt(0));
  for (const at of t.roundAt) for (let d = 0; d < 8; d++) t.bytes[at + d] = codes[d]!;
  t.round = round;
}

const nc = await connect({ servers: url! });
const subjects = SYMBOLS.map((s) => Topics.ticks.subject(s));
const payloads = SYMBOLS.map((_, i) => templates(i));
// By default sixty days back: far from "now", so no tick is refused as stamped in the future.
const firstRound = Math.floor((startArg ? Number(startArg) : Date.now() - 60 * 86_400_000) / ROUND_MS);
const start = Date.now();
const end = start + seconds * 1000;
let published = 0;
let sent = 0;
let unflushed = 0;
while (Date.now() < end) {
  // Paced: never ahead of rate × elapsed time (checked every 16 messages).
  if (rate > 0 && published >= (rate * (Date.now() - start)) / 1000) {
    await new Promise((r) => setTimeout(r, 1));
    continue;
  }
  for (let k = 0; k < 16; k++, sent++) {
    const s = sent % SYMBOLS.length;
    const m = Math.floor(sent / SYMBOLS.length);
    const t = payloads[s]![m % MESSAGES]!;
    // nats.js holds a payload until its next flush; every payload was flushed since its last use
    // (a pass is 8 × MESSAGES ≥ 24 sends, and the loop yields to the event loop every 16).
    stamp(t, firstRound + Math.floor(m / MESSAGES));
    nc.publish(subjects[s]!, t.bytes);
    published += batch;
    unflushed += t.bytes.length;
  }
  // Wait for the server every 4 MB (a round trip): its back-pressure, without paying a round
  // trip so often that the scheduler's latency on a busy machine caps the rate.
  if (unflushed >= 4 * 2 ** 20) {
    unflushed = 0;
    await nc.flush();
  } else await new Promise((r) => setImmediate(r));
}
await nc.drain();
const cpu = process.cpuUsage();
process.stdout.write(JSON.stringify({ published, cpu_ms: Math.round((cpu.user + cpu.system) / 1000) }));
