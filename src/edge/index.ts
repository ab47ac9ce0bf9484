export { buildApp, type EdgeDeps } from './app.ts';
export { API_VERSION } from './openapi.ts';
export type { App } from './types.ts';
export { readinessRoutes } from './routes/health.ts';
