export { buildApp, type EdgeDeps } from './app.ts';
export { ClusterStreamSlots, STREAM_EXPIRY_MS, STREAM_RENEW_MS } from './plugins/stream-slots.ts';
export { API_VERSION } from './openapi.ts';
export type { App } from './types.ts';
export { readinessRoutes } from './routes/health.ts';
