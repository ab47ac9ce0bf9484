// Worker threads of Node 20 do not inherit the parent's TypeScript loader: register tsx here,
// then load the worker itself. (Plain JS so it can start before any loader exists.)
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
