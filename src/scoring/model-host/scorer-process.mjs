// A scoring process: onnxruntime-node and nothing else of ours. It is started by scorer-spawn.ts
// within limits (memory, no environment, an empty private working directory, killed with its
// parent) and speaks the protocol of messages.ts. Models arrive as bytes only, under their content
// hash, so identical models share one session. Plain JS on purpose: tsx would start an esbuild
// service process inside these limits and add ~45 MB and ~400 ms to every (re)start.
import * as ort from 'onnxruntime-node';

// The same options as every scorer before this one: a fixed single thread keeps the tree-sum
// order, hence the float result, the same between backtest and live.
const SESSION_OPTIONS = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' };

/** @type {Map<string, { session: import('onnxruntime-node').InferenceSession, nFeatures: number, nClasses: number }>} */
const sessions = new Map();
/** @type {Array<import('./messages.ts').ToScorer>} */
const inbox = [];
let draining = false;

process.on('message', (message) => {
  inbox.push(message);
  if (!draining) void drain();
});
// The service went away (or closed the channel): nothing more will come.
process.on('disconnect', () => process.exit(0));

async function drain() {
  draining = true;
  while (inbox.length) {
    const message = inbox.shift();
    if (message.type === 'release') {
      const held = sessions.get(message.hash);
      sessions.delete(message.hash);
      await held?.session.release().catch(() => {});
      continue;
    }
    // One reply per item as soon as it is done: the parent's deadline follows the item running.
    for (const item of message.items) process.send(await handle(item));
  }
  draining = false;
}

/** @param {import('./messages.ts').BatchItem} item @returns {Promise<import('./messages.ts').FromScorer>} */
async function handle(item) {
  try {
    if (item.kind === 'load') {
      let held = sessions.get(item.hash);
      if (!held) {
        const session = await ort.InferenceSession.create(item.bytes, SESSION_OPTIONS);
        try {
          held = { session, nFeatures: lastDim(session, 'X', 'input'), nClasses: lastDim(session, 'probabilities', 'output') };
        } catch (err) {
          await session.release().catch(() => {});
          throw err;
        }
        sessions.set(item.hash, held);
      }
      return { type: 'loaded', seq: item.seq, nFeatures: held.nFeatures, nClasses: held.nClasses };
    }
    const held = sessions.get(item.hash);
    if (!held) return { type: 'failed', seq: item.seq, error: 'model not loaded on this scoring process' };
    const { session, nFeatures, nClasses } = held;
    if (item.X.length !== item.rows * nFeatures)
      return { type: 'failed', seq: item.seq, error: `X has ${item.X.length} values, expected ${item.rows} rows x ${nFeatures} features` };
    const out = await session.run({ X: new ort.Tensor('float32', item.X, [item.rows, nFeatures]) });
    const p = out['probabilities'];
    if (!p || !(p.data instanceof Float32Array) || p.data.length !== item.rows * nClasses) {
      return { type: 'failed', seq: item.seq, error: 'model returned no float32 [rows, nClasses] "probabilities"' };
    }
    return { type: 'scored', seq: item.seq, p: p.data };
  } catch (err) {
    return { type: 'failed', seq: item.seq, error: err instanceof Error ? err.message : String(err) };
  }
}

// The exporter always writes a fixed last dimension; reading it here catches a foreign model early.
function lastDim(session, name, kind) {
  const meta = kind === 'input' ? session.inputMetadata : session.outputMetadata;
  const names = kind === 'input' ? session.inputNames : session.outputNames;
  const i = names.indexOf(name);
  const m = meta[i];
  if (i < 0 || !m || !m.isTensor || m.type !== 'float32') throw new Error(`model has no float32 ${kind} "${name}"`);
  const d = m.shape[m.shape.length - 1];
  if (m.shape.length !== 2 || typeof d !== 'number' || d < 1) throw new Error(`${kind} "${name}" must be [N, k] with a fixed k`);
  return d;
}

process.send({ type: 'ready' });
