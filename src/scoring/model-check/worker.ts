// The thread of off-thread.ts: checks the models it is sent, one at a time, and answers with the
// shape, the refusal's reason, or an unexpected error's message.
import { parentPort } from 'node:worker_threads';
import { checkModel, ModelRejectedError } from './index.ts';

parentPort!.on('message', ({ id, bytes }: { id: number; bytes: Uint8Array }) => {
  try {
    parentPort!.postMessage({ id, shape: checkModel(bytes) });
  } catch (err) {
    if (err instanceof ModelRejectedError) parentPort!.postMessage({ id, rejected: err.reason });
    else parentPort!.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
