/**
 * The bus: the only user of the raw NATS client. Connection, the embedded server, provisioning
 * from the switchboard (streams, KV buckets, object stores, durable consumers), typed publish
 * and subscribe (validated against the switchboard's schemas) and stream reads.
 */
export { connectBus, type Bus } from './connection.ts';
export { startEmbeddedNats, freePort, type EmbeddedNats } from './nats-server.ts';
export { JsonKv, openBucket, StaleRevisionError, type Versioned } from './json-kv.ts';
export { createRacing, ensureStream } from './provision.ts';
export { StreamBatcher } from './stream-batch.ts';
export {
  publish,
  publishBatched,
  publishEncoded,
  subscribe,
  type Published,
  type PublishVia,
  type SubscribeVia,
  type Topic,
  type TopicSubscription,
} from './typed.ts';
export { answer, ask, type AnswerOptions, type RequestService } from './request-reply.ts';
export {
  ensureConsumer,
  consume,
  puller,
  followStream,
  followStreamEach,
  type Delivered,
  type Consuming,
  type Followed,
  type FollowedEach,
  type FollowedStream,
  type Puller,
} from './consumers.ts';
export { openBlobStore, type BlobStore } from './object-store.ts';
export {
  nextBySubject,
  lastBySubject,
  lastSeq,
  countAfter,
  readFromTime,
  openRangeReader,
  type RangeReader,
  type StoredMessage,
} from './stream-reads.ts';
export type { ConsumerMessages } from '@nats-io/jetstream';
export { isTransientBusError } from './transient.ts';
export {
  BusRetry,
  backoffMs,
  isStartupTransient,
  stepLabel,
  STARTUP_BACKOFF,
  type Backoff,
  type RetryOptions,
  type Step,
} from './retry.ts';
