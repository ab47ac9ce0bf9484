/**
 * The trusted side's check of a model that came back from the sandbox, before anything loads it:
 * the sandbox may be the attacker's, so the bytes are hostile input. checkModel decodes them
 * against onnx-subset.proto (the part of ONNX that onnx_export.py writes; any other field is
 * refused, which is how external data, subgraphs, functions and sparse tensors are kept out) and
 * then accepts only the graphs the exporter makes, within the bounds of bounds.ts.
 */
import { MAX_MODEL_BYTES } from './bounds.ts';
import { checkGraph, type CheckedModel } from './graph.ts';
import { refuse } from './rejected.ts';
import { decodeModel } from './wire.ts';

export { ModelRejectedError } from './rejected.ts';
export { checkModelOffThread } from './off-thread.ts';
export type { CheckedModel } from './graph.ts';

/** The model's shape, { nFeatures, nClasses }, or a ModelRejectedError (its `reason` says why). */
export function checkModel(bytes: Uint8Array): CheckedModel {
  if (!(bytes instanceof Uint8Array)) refuse('not bytes');
  if (bytes.length === 0) refuse('empty file');
  if (bytes.length > MAX_MODEL_BYTES) refuse(`file of ${bytes.length} bytes, over ${MAX_MODEL_BYTES}`);
  return checkGraph(decodeModel(bytes));
}
