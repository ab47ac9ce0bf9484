/** POST /one_shot: words → trained → deployed in one call, durable across restarts (runs in KV, swept by the recovery). */
export { OneShot, type OneShotDeps } from './one-shot.ts';
export { OneShotRuns } from './run-store.ts';
