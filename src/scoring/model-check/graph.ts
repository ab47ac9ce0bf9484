/**
 * What a decoded model must be to be one of onnx_export.py's: its opsets, IR version, graph input
 * and output, initializers, and a short chain of its operators whose types and shapes are worked
 * out here node by node, so every value is defined before use and stays [N, ≤ 256] or smaller.
 */
import { MAX_CLASSES, MAX_FEATURES, MAX_TENSOR_ELEMENTS } from './bounds.ts';
import { refuse } from './rejected.ts';
import { checkTreeEnsemble } from './trees.ts';
import type { AttributeMsg, GraphMsg, ModelMsg, NodeMsg, TensorMsg, ValueInfoMsg } from './wire.ts';

export interface CheckedModel {
  readonly nFeatures: number;
  readonly nClasses: number;
}

/** onnx 1.12 (Debian's, the sandbox's) writes IR 8; releases up to 1.17 write up to 10, which onnxruntime reads too. */
const IR_VERSIONS = [8, 9, 10];
/** export_model's opset_imports, exactly. */
const OPSETS: ReadonlyMap<string, number> = new Map([
  ['', 17],
  ['ai.onnx.ml', 3],
]);
const ML = 'ai.onnx.ml';

/** TensorProto.DataType values the exporter uses. */
export const FLOAT = 1;
export const INT64 = 7;
export const DOUBLE = 11;

/** AttributeProto.AttributeType values the exporter uses. */
export const ATTR = { INT: 2, STRING: 3, FLOATS: 6, INTS: 7, STRINGS: 8 } as const;

/** A value's element type and shape; 'N' is the batch dimension of X. */
type Dim = number | 'N';
export interface Value {
  readonly dtype: number;
  readonly shape: readonly Dim[];
}

type AttrSpec = Record<string, { type: number; required: boolean }>;
interface OpSpec {
  domain: '' | typeof ML;
  inputs: readonly [number, number];
  outputs: number;
  attributes: AttrSpec;
  infer(inputs: Value[], attrs: ReadonlyMap<string, AttributeMsg>, ctx: Context): Value[];
}
interface Context {
  nFeatures: number;
  initializers: ReadonlyMap<string, TensorMsg>;
  inputNames: readonly string[];
}

const req = (type: number) => ({ type, required: true });
const real = (v: Value, op: string) => {
  if (v.dtype !== FLOAT && v.dtype !== DOUBLE) refuse(`${op}: input of element type ${v.dtype}`);
};
const sameType = (vs: Value[], op: string) => {
  for (const v of vs) real(v, op);
  if (vs.some((v) => v.dtype !== vs[0]!.dtype)) refuse(`${op}: inputs of different element types`);
};
const matrix = (v: Value, op: string) => {
  if (v.shape.length !== 2) refuse(`${op}: input of rank ${v.shape.length}, expected 2`);
};
const intAttr = (attrs: ReadonlyMap<string, AttributeMsg>, name: string) => attrs.get(name)?.i ?? 0;

const elementwise = (v: Value[]) => [v[0]!];
const binary = (op: string) => (v: Value[]) => {
  sameType(v, op);
  return [{ dtype: v[0]!.dtype, shape: broadcast(v[0]!.shape, v[1]!.shape, op) }];
};

const OPS: Record<string, OpSpec> = {
  Cast: {
    domain: '',
    inputs: [1, 1],
    outputs: 1,
    attributes: { to: req(ATTR.INT) },
    infer(v, a) {
      real(v[0]!, 'Cast');
      const to = intAttr(a, 'to');
      if (to !== FLOAT && to !== DOUBLE) refuse(`Cast to element type ${to}`);
      return [{ dtype: to, shape: v[0]!.shape }];
    },
  },
  MatMul: {
    domain: '',
    inputs: [2, 2],
    outputs: 1,
    attributes: {},
    infer(v) {
      sameType(v, 'MatMul');
      matrix(v[0]!, 'MatMul');
      matrix(v[1]!, 'MatMul');
      const [rows, inner] = v[0]!.shape;
      const [inner2, cols] = v[1]!.shape;
      if (inner === 'N' || inner !== inner2 || cols === 'N') refuse('MatMul: shapes do not chain');
      return [{ dtype: v[0]!.dtype, shape: [rows!, cols!] }];
    },
  },
  Add: { domain: '', inputs: [2, 2], outputs: 1, attributes: {}, infer: binary('Add') },
  Sub: { domain: '', inputs: [2, 2], outputs: 1, attributes: {}, infer: binary('Sub') },
  Div: { domain: '', inputs: [2, 2], outputs: 1, attributes: {}, infer: binary('Div') },
  Sigmoid: {
    domain: '',
    inputs: [1, 1],
    outputs: 1,
    attributes: {},
    infer(v) {
      real(v[0]!, 'Sigmoid');
      return elementwise(v);
    },
  },
  Softmax: {
    domain: '',
    inputs: [1, 1],
    outputs: 1,
    attributes: { axis: req(ATTR.INT) },
    infer(v, a) {
      real(v[0]!, 'Softmax');
      matrix(v[0]!, 'Softmax');
      if (intAttr(a, 'axis') !== 1) refuse('Softmax: axis other than 1');
      return elementwise(v);
    },
  },
  ReduceSum: {
    domain: '',
    inputs: [2, 2],
    outputs: 1,
    attributes: { keepdims: req(ATTR.INT) },
    infer(v, a, ctx) {
      real(v[0]!, 'ReduceSum');
      matrix(v[0]!, 'ReduceSum');
      if (intAttr(a, 'keepdims') !== 1) refuse('ReduceSum: keepdims other than 1');
      // axes must be the constant [1]: an initializer, not a computed value.
      const axes = ctx.initializers.get(ctx.inputNames[1]!);
      if (!axes || axes.data_type !== INT64 || axes.int64_data?.length !== 1 || axes.int64_data[0] !== 1)
        refuse('ReduceSum: axes other than the constant [1]');
      return [{ dtype: v[0]!.dtype, shape: [v[0]!.shape[0]!, 1] }];
    },
  },
  Concat: {
    domain: '',
    inputs: [2, 2],
    outputs: 1,
    attributes: { axis: req(ATTR.INT) },
    infer(v, a) {
      sameType(v, 'Concat');
      for (const x of v) matrix(x, 'Concat');
      if (intAttr(a, 'axis') !== 1) refuse('Concat: axis other than 1');
      const [r0, c0] = v[0]!.shape;
      const [r1, c1] = v[1]!.shape;
      if (r0 !== r1 || c0 === 'N' || c1 === 'N') refuse('Concat: shapes do not line up');
      return [{ dtype: v[0]!.dtype, shape: [r0!, c0! + c1!] }];
    },
  },
  TreeEnsembleRegressor: {
    domain: ML,
    inputs: [1, 1],
    outputs: 1,
    attributes: {
      ...treeAttributes('target'),
      n_targets: req(ATTR.INT),
      aggregate_function: req(ATTR.STRING),
      post_transform: req(ATTR.STRING),
      base_values: req(ATTR.FLOATS),
    },
    infer(v, a, ctx) {
      treeInput(v[0]!, ctx);
      const { nTargets } = checkTreeEnsemble('TreeEnsembleRegressor', a, ctx.nFeatures);
      return [{ dtype: FLOAT, shape: ['N', nTargets] }];
    },
  },
  TreeEnsembleClassifier: {
    domain: ML,
    inputs: [1, 1],
    outputs: 2,
    attributes: { ...treeAttributes('class'), classlabels_int64s: req(ATTR.INTS), post_transform: req(ATTR.STRING) },
    infer(v, a, ctx) {
      treeInput(v[0]!, ctx);
      const { nTargets } = checkTreeEnsemble('TreeEnsembleClassifier', a, ctx.nFeatures);
      return [
        { dtype: INT64, shape: ['N'] },
        { dtype: FLOAT, shape: ['N', nTargets] },
      ];
    },
  },
};

function treeAttributes(leaf: 'target' | 'class'): AttrSpec {
  const ints = req(ATTR.INTS);
  const floats = req(ATTR.FLOATS);
  return {
    nodes_treeids: ints,
    nodes_nodeids: ints,
    nodes_featureids: ints,
    nodes_values: floats,
    nodes_modes: req(ATTR.STRINGS),
    nodes_truenodeids: ints,
    nodes_falsenodeids: ints,
    nodes_missing_value_tracks_true: ints,
    [`${leaf}_treeids`]: ints,
    [`${leaf}_nodeids`]: ints,
    [`${leaf}_ids`]: ints,
    [`${leaf}_weights`]: floats,
  };
}

/** The exporter feeds the trees X itself, float32 [N, nFeatures]. */
function treeInput(v: Value, ctx: Context): void {
  if (ctx.inputNames[0] !== 'X') refuse('tree ensemble not fed by X');
  if (v.dtype !== FLOAT || v.shape.length !== 2) refuse('tree ensemble input is not float32 [N, features]');
}

/** numpy broadcasting of two known shapes; 'N' only meets 'N' or 1. */
function broadcast(a: readonly Dim[], b: readonly Dim[], op: string): Dim[] {
  const out: Dim[] = [];
  for (let i = 1; i <= Math.max(a.length, b.length); i++) {
    const x = a[a.length - i] ?? 1;
    const y = b[b.length - i] ?? 1;
    if (x === y || y === 1) out.unshift(x);
    else if (x === 1) out.unshift(y);
    else refuse(`${op}: shapes do not broadcast`);
  }
  return out;
}

export function checkGraph(model: ModelMsg): CheckedModel {
  if (!IR_VERSIONS.includes(model.ir_version ?? 0)) refuse(`IR version ${model.ir_version}`);
  if (model.producer_name !== 'signalforge') refuse(`producer ${model.producer_name}`);
  checkOpsets(model);
  const graph = model.graph ?? refuse('no graph');
  const nFeatures = graphEnd(graph.input, 'X', 1, MAX_FEATURES, 'input');
  const nClasses = graphEnd(graph.output, 'probabilities', 2, MAX_CLASSES, 'output');

  const values = new Map<string, Value>([['X', { dtype: FLOAT, shape: ['N', nFeatures] }]]);
  const initializers = new Map<string, TensorMsg>();
  for (const t of graph.initializer ?? []) {
    const name = valueName(t.name, 'initializer');
    if (values.has(name)) refuse(`initializer ${name} defined twice`);
    values.set(name, initializer(t, name));
    initializers.set(name, t);
  }
  for (const node of graph.node ?? []) {
    for (const [name, value] of checkNode(node, values, { nFeatures, initializers, inputNames: node.input ?? [] })) {
      if (values.has(name)) refuse(`value ${name} defined twice`);
      values.set(name, value);
    }
  }
  const p = values.get('probabilities');
  if (!p || initializers.has('probabilities')) refuse('no node computes probabilities');
  if (p.dtype !== FLOAT || p.shape.length !== 2 || p.shape[0] !== 'N' || p.shape[1] !== nClasses) {
    refuse('probabilities as computed do not match the declared output');
  }
  return { nFeatures, nClasses };
}

function checkOpsets(model: ModelMsg): void {
  const seen = new Set<string>();
  for (const o of model.opset_import ?? []) {
    const domain = o.domain ?? '';
    if (seen.has(domain)) refuse(`opset domain "${domain}" imported twice`);
    seen.add(domain);
    if (OPSETS.get(domain) !== o.version) refuse(`opset ${domain || 'ai.onnx'} ${o.version}`);
  }
  if (seen.size !== OPSETS.size) refuse('opset imports missing');
}

/** The graph's single input X / output probabilities: float [N, k] with a fixed k in [min, max]. */
function graphEnd(list: ValueInfoMsg[] | undefined, name: string, min: number, max: number, what: string): number {
  if (list?.length !== 1 || list[0]!.name !== name) refuse(`graph ${what}s are not exactly "${name}"`);
  const t = list[0]!.type?.tensor_type;
  if (t?.elem_type !== FLOAT) refuse(`graph ${what} ${name} is not float32`);
  const dims = t.shape?.dim ?? [];
  if (dims.length !== 2 || dims[0]!.dim_param !== 'N') refuse(`graph ${what} ${name} is not [N, k]`);
  const k = dims[1]!.dim_value;
  if (k === undefined || k < min || k > max) refuse(`graph ${what} ${name} has ${k} columns`);
  return k;
}

function valueName(name: string | undefined, what: string): string {
  if (!name) refuse(`${what} without a name`);
  return name;
}

/** An initializer: float, double or int64 data inline in its typed field, as many values as its dims say. */
function initializer(t: TensorMsg, name: string): Value {
  const data =
    t.data_type === FLOAT
      ? t.float_data
      : t.data_type === DOUBLE
        ? t.double_data
        : t.data_type === INT64
          ? t.int64_data
          : refuse(`initializer ${name} of element type ${t.data_type}`);
  const present = [t.float_data, t.double_data, t.int64_data].filter((d) => d !== undefined).length;
  if (present > (data ? 1 : 0)) refuse(`initializer ${name} has data in another type's field`);
  const dims = Array.from(t.dims ?? []);
  const count = dims.reduce((a, b) => a * b, 1);
  if (count > MAX_TENSOR_ELEMENTS) refuse(`initializer ${name} of ${count} elements`);
  if ((data?.length ?? 0) !== count) refuse(`initializer ${name}: ${data?.length ?? 0} values for dims [${dims.join(', ')}]`);
  return { dtype: t.data_type!, shape: dims };
}

function checkNode(node: NodeMsg, values: ReadonlyMap<string, Value>, ctx: Context): [string, Value][] {
  const opType = node.op_type ?? refuse('node without an operator');
  const spec = Object.hasOwn(OPS, opType) ? OPS[opType]! : refuse(`operator ${opType}`);
  if ((node.domain ?? '') !== spec.domain) refuse(`operator ${opType} in domain "${node.domain}"`);
  const inputs = node.input ?? [];
  const outputs = node.output ?? [];
  if (inputs.length < spec.inputs[0] || inputs.length > spec.inputs[1]) refuse(`${opType} with ${inputs.length} inputs`);
  if (outputs.length !== spec.outputs) refuse(`${opType} with ${outputs.length} outputs`);
  const ins = inputs.map(
    (name) => values.get(valueName(name, `${opType} input`)) ?? refuse(`${opType} reads ${name} before it is defined`),
  );
  const attrs = new Map<string, AttributeMsg>();
  for (const a of node.attribute ?? []) {
    const name = a.name ?? refuse(`${opType}: attribute without a name`);
    const want = Object.hasOwn(spec.attributes, name) ? spec.attributes[name]! : refuse(`${opType}: attribute ${name}`);
    if (attrs.has(name)) refuse(`${opType}: attribute ${name} twice`);
    checkAttributeType(a, want.type, `${opType}.${name}`);
    attrs.set(name, a);
  }
  for (const [name, want] of Object.entries(spec.attributes)) {
    if (want.required && !attrs.has(name)) refuse(`${opType}: attribute ${name} missing`);
  }
  const outs = spec.infer(ins, attrs, ctx);
  for (const v of outs) {
    if (v.shape.length > 2 || v.shape.some((d) => d !== 'N' && d > MAX_FEATURES))
      refuse(`${opType}: result of shape [${v.shape.join(', ')}]`);
  }
  return outputs.map((name, i) => [valueName(name, `${opType} output`), outs[i]!]);
}

/** The declared type and the one value field it names; no other value field. */
function checkAttributeType(a: AttributeMsg, type: number, where: string): void {
  if (a.type !== type) refuse(`${where}: attribute type ${a.type}, expected ${type}`);
  const field = { [ATTR.INT]: 'i', [ATTR.STRING]: 's', [ATTR.FLOATS]: 'floats', [ATTR.INTS]: 'ints', [ATTR.STRINGS]: 'strings' }[type];
  for (const f of ['f', 'i', 's', 'floats', 'ints', 'strings'] as const) {
    if (f !== field && a[f] !== undefined) refuse(`${where}: value in field ${f}`);
  }
  if ((type === ATTR.INT || type === ATTR.STRING) && a[field as 'i' | 's'] === undefined) refuse(`${where}: no value`);
}
