/**
 * Live ticks from a Kafka topic through kafkajs (see KAFKA.md). Records are keyed by symbol and
 * carry the NATS payload (kafka-batch.ts). Unlike core NATS, Kafka lets us read at the sink's
 * pace, so nothing is dropped: a slice of records is decoded, written to the sink (retrying until
 * it accepts), and only then are its offsets resolved and committed. At-least-once: a crash
 * between the sink write and the commit replays those records.
 */
import { Kafka, logLevel, type EachBatchPayload, type LogEntry } from 'kafkajs';
import type { Logger } from '../../log.ts';
import type { TickSink } from '../tick-sink.ts';
import { decodeKafkaRecords } from './kafka-batch.ts';
import { LogThrottle } from './log-throttle.ts';
import { chunk, SymbolSequencers, writeWithRetry, type LiveSourceStats } from './tick-batching.ts';

export interface KafkaTickSourceOptions {
  /** Broker addresses, e.g. `KAFKA_BROKERS.split(',')`. */
  brokers: string[];
  topic: string;
  groupId: string;
  clientId?: string;
  /** Start a new consumer group at the earliest offset rather than the latest (default false). */
  fromBeginning?: boolean;
  sink: TickSink;
  log: Logger;
  /** Ticks per sink write at most (default 1000). */
  maxBatch?: number;
  /** Records decoded, written and committed together (default 2000). */
  sliceSize?: number;
  /** How long the group waits for a silent member before moving its partitions (kafkajs default: 30 s). */
  sessionTimeoutMs?: number;
}

export interface KafkaTickSource {
  stats(): LiveSourceStats;
  /** Aborts sink retries, stops consuming and leaves the group; uncommitted records are replayed later. */
  stop(): Promise<void>;
}

/** The parts of kafkajs's eachBatch payload the handler uses (a test can hand in its own). */
export type TickBatchPayload = Pick<
  EachBatchPayload,
  'batch' | 'resolveOffset' | 'heartbeat' | 'commitOffsetsIfNecessary' | 'uncommittedOffsets' | 'isRunning' | 'isStale'
>;

export interface TickBatchHandlerDeps {
  sink: TickSink;
  log: Logger;
  maxBatch?: number;
  sliceSize?: number;
  /** Aborted on stop: ends sink retries, leaving the current slice uncommitted. */
  signal: AbortSignal;
}

export interface TickBatchHandler {
  (payload: TickBatchPayload): Promise<void>;
  stats(): LiveSourceStats;
}

/**
 * The eachBatch handler. Per slice: decode, sequence, write every symbol's ticks, then resolve
 * and commit the slice's last offset. Offsets already written in this process are skipped, so a
 * slice replayed after a failed commit (a rebalance) is not written twice.
 */
export function createTickBatchHandler(deps: TickBatchHandlerDeps): TickBatchHandler {
  const { sink, log, signal, maxBatch = 1000, sliceSize = 2000 } = deps;
  const sequencers = new SymbolSequencers();
  const throttle = new LogThrottle(log);
  const writtenUpTo = new Map<string, bigint>();
  const counts = { received: 0, accepted: 0, malformed: 0, dropped: 0, late: 0, pending: 0 };

  const handler = async (payload: TickBatchPayload): Promise<void> => {
    const { batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, uncommittedOffsets, isRunning, isStale } = payload;
    const partitionKey = `${batch.topic}/${batch.partition}`;
    for (const slice of chunk(batch.messages, sliceSize)) {
      if (!isRunning() || isStale()) return;
      const last = slice[slice.length - 1]!.offset;
      const done = writtenUpTo.get(partitionKey) ?? -1n;
      const fresh = slice.filter((m) => BigInt(m.offset) > done);
      const decoded = decodeKafkaRecords(fresh);
      counts.received += decoded.received;
      counts.malformed += decoded.malformed;
      if (decoded.problem) {
        throttle.warn(
          'record',
          { topic: batch.topic, partition: batch.partition, ...decoded.problem, malformed: decoded.malformed },
          'malformed tick record',
        );
      }
      for (const [symbol, messages] of decoded.bySymbol) {
        const { ticks, late } = sequencers.sequence(symbol, messages);
        counts.late += late;
        if (late > 0) throttle.warn(`late.${symbol}`, { symbol, late }, 'ticks older than the previous tick of their symbol skipped');
        for (const part of chunk(ticks, maxBatch)) {
          counts.pending = part.length;
          const ok = await writeWithRetry(sink, part, { throttle, attempts: Infinity, signal });
          counts.pending = 0;
          if (!ok) return; // stopping: this slice stays uncommitted and is read again later
          counts.accepted += part.length;
        }
      }
      writtenUpTo.set(partitionKey, BigInt(last));
      resolveOffset(last);
      await commitOffsetsIfNecessary(uncommittedOffsets());
      await heartbeat();
    }
  };
  // Kafka is read at the sink's pace: nothing is ever shed or queued undecoded.
  return Object.assign(handler, { stats: (): LiveSourceStats => ({ ...counts, shed: 0, shedBySymbol: {}, queued: 0 }) });
}

/** kafkajs logs through pino, at the level kafkajs gives each line. */
function kafkaLogCreator(log: Logger) {
  return () =>
    ({ level, log: entry }: LogEntry): void => {
      // pino stamps its own time; kafkajs's timestamp would only repeat it.
      const { message, timestamp: _timestamp, ...fields } = entry;
      if (level === logLevel.ERROR) log.error(fields, `kafka: ${message}`);
      else if (level === logLevel.WARN) log.warn(fields, `kafka: ${message}`);
      else if (level === logLevel.INFO) log.info(fields, `kafka: ${message}`);
      else log.debug(fields, `kafka: ${message}`);
    };
}

export async function startKafkaTickSource(options: KafkaTickSourceOptions): Promise<KafkaTickSource> {
  const { brokers, topic, groupId, log } = options;
  const kafka = new Kafka({ brokers, clientId: options.clientId ?? 'signalforge-ingest', logCreator: kafkaLogCreator(log) });
  // A shorter session moves a dead member's partitions sooner (heartbeats a third of it apart, as kafkajs's defaults are).
  const session = options.sessionTimeoutMs;
  const consumer = kafka.consumer({ groupId, ...(session ? { sessionTimeout: session, heartbeatInterval: Math.floor(session / 3) } : {}) });
  const abort = new AbortController();
  const handler = createTickBatchHandler({ ...options, signal: abort.signal });
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: options.fromBeginning ?? false });
    // Offsets are resolved and committed by the handler itself, after the sink accepted a slice.
    // One partition at a time, so the shared per-symbol sequencers see each symbol in order.
    await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, partitionsConsumedConcurrently: 1, eachBatch: handler });
  } catch (err) {
    await consumer.disconnect().catch(() => undefined);
    throw err;
  }
  log.info({ brokers, topic, groupId }, 'kafka tick source consuming');
  return {
    stats: handler.stats,
    async stop() {
      abort.abort();
      await consumer.disconnect();
      log.info(handler.stats(), 'kafka tick source stopped');
    },
  };
}
