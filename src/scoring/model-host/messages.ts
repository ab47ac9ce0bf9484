/**
 * What the service and a scoring process (scorer-process.mjs) say to each other over the IPC
 * channel, with `serialization: 'advanced'`: typed arrays travel as raw bytes, never JSON numbers.
 * The process handles messages strictly in order and answers every batch item with one reply, in
 * the item's order, as soon as that item is done: the parent always knows which item is running.
 */

/** Loads a model from its bytes (never a path) under its content hash; a hash loaded already is answered at once. */
export interface LoadItem {
  kind: 'load';
  seq: number;
  hash: string;
  bytes: Uint8Array;
}

/** Scores X (row-major float32 [rows, nFeatures]) with a model loaded earlier on this process. */
export interface RunItem {
  kind: 'run';
  seq: number;
  hash: string;
  X: Float32Array;
  rows: number;
}

export type BatchItem = LoadItem | RunItem;

/** Parent → process. */
export type ToScorer =
  | { type: 'batch'; items: BatchItem[] }
  /** Drops the model's session (no reply). */
  | { type: 'release'; hash: string };

/** Process → parent. */
export type FromScorer =
  /** Sent once, when onnxruntime is imported and the process takes work. */
  | { type: 'ready' }
  | { type: 'loaded'; seq: number; nFeatures: number; nClasses: number }
  /** Probabilities, row-major [rows, nClasses]. */
  | { type: 'scored'; seq: number; p: Float32Array }
  /** The item failed without harming the process (an onnxruntime error, a foreign graph). */
  | { type: 'failed'; seq: number; error: string };
