/**
 * A tree ensemble's flat attribute arrays as onnx_export.py's _Trees writes them: trees one after
 * another, numbered from 0; each tree's nodes numbered 0.. in order; every branch's children after
 * it in the same tree and every non-root node the child of exactly one branch (so each tree is a
 * real tree: no cycle, no shared node, nothing unreachable); depth within the trainer's cap;
 * features within X; leaf votes only on leaves and on existing targets.
 */
import { MAX_CLASSES, MAX_TREE_DEPTH, MAX_TREE_NODES, MAX_TREES } from './bounds.ts';
import { refuse } from './rejected.ts';
import type { AttributeMsg } from './wire.ts';

const BRANCH_MODES = new Set(['BRANCH_LEQ', 'BRANCH_LT']);
const EMPTY_INTS = new Int32Array(0);
const EMPTY_FLOATS = new Float32Array(0);

export function checkTreeEnsemble(
  op: 'TreeEnsembleRegressor' | 'TreeEnsembleClassifier',
  attrs: ReadonlyMap<string, AttributeMsg>,
  nFeatures: number,
): { nTargets: number } {
  const ints = (name: string) => attrs.get(name)?.ints ?? EMPTY_INTS;
  const floats = (name: string) => attrs.get(name)?.floats ?? EMPTY_FLOATS;
  const str = (name: string) => attrs.get(name)?.s;
  if (str('post_transform') !== 'NONE') refuse(`${op}: post_transform ${str('post_transform')}`);

  let nTargets: number;
  let leaf: 'target' | 'class';
  if (op === 'TreeEnsembleRegressor') {
    leaf = 'target';
    nTargets = attrs.get('n_targets')?.i ?? 0;
    if (nTargets < 1 || nTargets > MAX_CLASSES) refuse(`${op}: n_targets ${nTargets}`);
    if (str('aggregate_function') !== 'SUM') refuse(`${op}: aggregate_function ${str('aggregate_function')}`);
    if (floats('base_values').length !== nTargets) refuse(`${op}: base_values do not match n_targets`);
  } else {
    leaf = 'class';
    const labels = ints('classlabels_int64s');
    nTargets = labels.length;
    if (nTargets < 2 || nTargets > MAX_CLASSES || labels.some((l, i) => l !== i)) refuse(`${op}: class labels other than 0..k-1`);
  }

  const treeIds = ints('nodes_treeids');
  const nodeIds = ints('nodes_nodeids');
  const featureIds = ints('nodes_featureids');
  const trueIds = ints('nodes_truenodeids');
  const falseIds = ints('nodes_falsenodeids');
  const missing = ints('nodes_missing_value_tracks_true');
  const modes = attrs.get('nodes_modes')?.strings ?? [];
  const n = nodeIds.length;
  if (n < 1 || n > MAX_TREE_NODES) refuse(`${op}: ${n} tree nodes`);
  for (const a of [treeIds, featureIds, trueIds, falseIds, missing, floats('nodes_values'), modes]) {
    if (a.length !== n) refuse(`${op}: node arrays of different lengths`);
  }

  // Tree t's nodes are start[t] .. start[t + 1] - 1, local ids 0.. in order.
  const starts: number[] = [];
  const isLeaf = new Uint8Array(n);
  const depth = new Uint8Array(n);
  const parents = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const t = treeIds[i]!;
    if (nodeIds[i] === 0) {
      if (t !== starts.length) refuse(`${op}: trees out of order`);
      if (starts.length === MAX_TREES) refuse(`${op}: more than ${MAX_TREES} trees`);
      starts.push(i);
    } else if (t !== starts.length - 1 || nodeIds[i] !== i - starts[t]!) {
      refuse(`${op}: tree nodes out of order`);
    }
  }
  starts.push(n);
  for (let t = 0; t + 1 < starts.length; t++) {
    const from = starts[t]!;
    const size = starts[t + 1]! - from;
    for (let j = 0; j < size; j++) {
      const i = from + j;
      const mode = modes[i]!;
      if (mode === 'LEAF') {
        isLeaf[i] = 1;
        if (trueIds[i] !== 0 || falseIds[i] !== 0) refuse(`${op}: a leaf with children`);
        continue;
      }
      if (!BRANCH_MODES.has(mode)) refuse(`${op}: node mode ${mode}`);
      if (featureIds[i]! >= nFeatures) refuse(`${op}: feature ${featureIds[i]} of ${nFeatures}`);
      if (missing[i]! > 1) refuse(`${op}: missing_value_tracks_true ${missing[i]}`);
      for (const child of [trueIds[i]!, falseIds[i]!]) {
        if (child <= j || child >= size) refuse(`${op}: a branch's child is not after it in its tree`);
        const c = from + child;
        if (parents[c]) refuse(`${op}: a node with two parents`);
        parents[c] = 1;
        depth[c] = depth[i]! + 1;
        if (depth[c]! > MAX_TREE_DEPTH) refuse(`${op}: a tree deeper than ${MAX_TREE_DEPTH}`);
      }
    }
    for (let j = 1; j < size; j++) if (!parents[from + j]) refuse(`${op}: a node no branch leads to`);
  }

  const lTree = ints(`${leaf}_treeids`);
  const lNode = ints(`${leaf}_nodeids`);
  const lIds = ints(`${leaf}_ids`);
  const m = lTree.length;
  if (m < 1 || lNode.length !== m || lIds.length !== m || floats(`${leaf}_weights`).length !== m)
    refuse(`${op}: leaf arrays of different lengths`);
  const nTrees = starts.length - 1;
  for (let k = 0; k < m; k++) {
    const t = lTree[k]!;
    if (t >= nTrees) refuse(`${op}: a vote for tree ${t} of ${nTrees}`);
    const local = lNode[k]!;
    if (local >= starts[t + 1]! - starts[t]! || !isLeaf[starts[t]! + local]) refuse(`${op}: a vote on a node that is not a leaf`);
    if (lIds[k]! >= nTargets) refuse(`${op}: a vote for target ${lIds[k]} of ${nTargets}`);
  }
  return { nTargets };
}
