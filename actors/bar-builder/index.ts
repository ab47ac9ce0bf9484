export { BarBuilder, type BarBuilderDeps } from './bar-builder.ts';
export { buildIngestHost, type IngestHost, type IngestHostDeps } from './ingest-host.ts';
