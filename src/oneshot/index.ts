/** POST /one_shot: words → trained → deployed in one call, durable across restarts (runs in KV, each driven under its kernel lease `oneshot.<run_id>`, resumed by OneShotRecovery when its process dies). */
export { OneShot, type OneShotDeps } from './one-shot.ts';
export { OneShotRuns } from './run-store.ts';
