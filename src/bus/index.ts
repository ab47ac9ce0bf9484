export { connectBus, type Bus } from './connection.ts';
export { startEmbeddedNats, freePort, type EmbeddedNats } from './nats-server.ts';
export { JsonKv, openBucket, StaleRevisionError, type Versioned } from './json-kv.ts';
export { ensureStream } from './provision.ts';
export { isTransientBusError } from './transient.ts';
