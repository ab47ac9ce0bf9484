// Worker threads of Node 20 do not inherit the parent's TypeScript loader: register tsx here,
// then load the worker itself (as src/pine/pool/worker-boot.mjs does).
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
