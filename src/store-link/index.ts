/**
 * ClickHouse over NATS: the process that owns chdb answers (`serveStore`); roles without
 * CLICKHOUSE_URL use `remoteClickHouse`, a client the repos run on unchanged.
 */
export { serveStore } from './store-server.ts';
export { remoteClickHouse } from './remote-client.ts';
