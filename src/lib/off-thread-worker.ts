// The thread of off-thread.ts: imports the module it is sent, calls the named export with the
// arguments, and answers with the value or the error's name and message, one task at a time.
import { parentPort } from 'node:worker_threads';

interface Task {
  id: number;
  module: string;
  name: string;
  args: unknown[];
}

parentPort!.on('message', async ({ id, module, name, args }: Task) => {
  try {
    const fn = ((await import(module)) as Record<string, unknown>)[name];
    if (typeof fn !== 'function') throw new TypeError(`${module} exports no function ${name}`);
    parentPort!.postMessage({ id, value: await (fn as (...a: unknown[]) => unknown)(...args) });
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    parentPort!.postMessage({ id, error: { name: e.name, message: e.message } });
  }
});
