/**
 * The pure part of the Kafka source: turning a slice of Kafka records into per-symbol ticks.
 *
 * Record layout: key = the symbol (`EURUSD`, UTF-8), value = the same payload as on NATS
 * `ticks.<SYMBOL>` (one TickMessage or a JSON array of them). The key, not a `symbol` field in the
 * JSON, because Kafka orders records only within a partition and the default partitioner hashes
 * the key: keying by symbol keeps each symbol in one partition, hence in order, and the payload
 * stays byte-for-byte the NATS one, decoded by the same decoder.
 */
import { SYMBOLS, type Symbol } from '../../../schemas/common.ts';
import { decodeTicks, describeProblem, payloadText, type TickMessage } from './tick-decoder.ts';

/** The fields of a kafkajs `KafkaMessage` this source reads. */
export interface KafkaTickRecord {
  key: Buffer | null;
  value: Buffer | null;
  offset: string;
}

export interface DecodedSlice {
  /** Ticks per symbol, in record order. */
  bySymbol: Map<Symbol, TickMessage[]>;
  /** Records seen: ticks plus rejected records (a record with a bad key counts once). */
  received: number;
  malformed: number;
  /** The first rejection, described for a log line. */
  problem?: { offset: string; reason: string };
}

const KNOWN = new Set<string>(SYMBOLS);

/** The symbol a record key names, or null. */
export function symbolFromKey(key: Uint8Array | string | null): Symbol | null {
  if (key === null) return null;
  const text = payloadText(key);
  return KNOWN.has(text) ? (text as Symbol) : null;
}

export function decodeKafkaRecords(records: readonly KafkaTickRecord[]): DecodedSlice {
  const bySymbol = new Map<Symbol, TickMessage[]>();
  let received = 0;
  let malformed = 0;
  let problem: DecodedSlice['problem'];
  for (const record of records) {
    const symbol = symbolFromKey(record.key);
    if (!symbol || record.value === null) {
      received++;
      malformed++;
      const key = record.key === null ? 'no key' : `key ${JSON.stringify(payloadText(record.key).slice(0, 40))}`;
      problem ??= { offset: record.offset, reason: symbol ? 'record has no value' : `${key} is not a known symbol` };
      continue;
    }
    const result = decodeTicks(record.value);
    received += result.ticks.length + result.malformed;
    malformed += result.malformed;
    if (result.problem) problem ??= { offset: record.offset, reason: describeProblem(result.problem) };
    if (result.ticks.length === 0) continue;
    const list = bySymbol.get(symbol);
    // A loop, not push(...ticks): a large batch record would overflow the argument limit.
    if (list) for (const tick of result.ticks) list.push(tick);
    else bySymbol.set(symbol, result.ticks);
  }
  return problem ? { bySymbol, received, malformed, problem } : { bySymbol, received, malformed };
}
