/**
 * One module per role, each building its parts (`build…`, returning them with `stats()` and
 * `stop()`) and its command (`start…Role`: join NATS_URL, reach ClickHouse at CLICKHOUSE_URL or
 * through the data owner over NATS, serve a health endpoint, drain on SIGTERM). `serve` builds
 * every role with the same functions in one process, on an embedded NATS and chdb.
 */
import { startActorsRole } from './actors.ts';
import { startDeliveryRole } from './delivery.ts';
import { startEdgeRole } from './edge.ts';
import { startIngestRole } from './ingest.ts';
import { startStoreRole } from './store.ts';
import { startTrainerRole } from './trainer.ts';

/** The role commands of the distributed layout, by CLI name (`serve` runs them all: startService). */
export const DISTRIBUTED_ROLES = {
  edge: startEdgeRole,
  trainer: startTrainerRole,
  delivery: startDeliveryRole,
  ingest: startIngestRole,
  store: startStoreRole,
  actors: startActorsRole,
} as const;
export { startService, type Service } from './serve.ts';
export type { RoleContext, RoleParts } from './context.ts';
export type { RoleProcess } from './kit.ts';
export { serveHealth, type Health } from './health.ts';
