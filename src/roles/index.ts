/**
 * One composition root per role process, for the distributed layout (deploy/OPERATIONS.md): each
 * joins NATS_URL, reaches ClickHouse at CLICKHOUSE_URL or through the data owner over NATS, has a
 * health endpoint, and drains on SIGTERM. `serve` composes the same parts in one process.
 */
import { startDeliveryRole, startEdgeRole, startIngestRole, startStoreRole, startTrainerRole } from './roles.ts';

export { startDeliveryRole, startEdgeRole, startIngestRole, startStoreRole, startTrainerRole };

/** The role commands of the distributed layout, by CLI name (`serve` and `actors` are the composition root's). */
export const DISTRIBUTED_ROLES = {
  edge: startEdgeRole,
  trainer: startTrainerRole,
  delivery: startDeliveryRole,
  ingest: startIngestRole,
  store: startStoreRole,
} as const;
export { baseChecks, closeBus, serveHealth, startRole, startUsageRecorder, type Health, type Joined, type RoleProcess } from './kit.ts';
export { startEdge, startFoundation, startTrainer, startWork } from './domain.ts';
