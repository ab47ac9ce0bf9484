/**
 * Live tick sources. Each one delivers batches of one symbol's ticks, in time order, to a TickSink.
 * Wire format on NATS `ticks.<SYMBOL>` and Kafka (key = symbol): one TickMessage JSON object, or a
 * JSON array of them for throughput (tick-decoder.ts).
 */
export { startKafkaTickSource, type KafkaTickSource, type KafkaTickSourceOptions } from './kafka-ticks.ts';
export {
  startOandaStream,
  OANDA_DEFAULT_SYMBOLS,
  type OandaStream,
  type OandaStreamOptions,
  type OandaStreamStats,
} from './oanda-stream.ts';
export type { BackoffOptions } from './backoff.ts';
export type { LiveSourceStats } from './tick-batching.ts';
export { decodeTicks, type DecodeResult } from './tick-decoder.ts';
