/**
 * Decodes a model's protobuf wire format against onnx-subset.proto with protobufjs's Reader, and
 * refuses on the way whatever the schema does not declare: unknown field numbers at any level,
 * wrong wire types, groups, a non-repeated field given twice, truncation, trailing bytes,
 * non-canonical varints, and counts or sizes past the bounds. Decoding and refusing are one walk,
 * so nothing undeclared is ever skipped over silently (protobufjs's own decode would skip it).
 */
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import {
  MAX_ATTRIBUTE_ELEMENTS, MAX_ATTRIBUTES_PER_NODE, MAX_INITIALIZERS, MAX_NAME_BYTES, MAX_NODE_IO, MAX_NODES,
  MAX_RANK, MAX_TENSOR_ELEMENTS, MAX_TOTAL_ELEMENTS,
} from './bounds.ts';
import { refuse } from './rejected.ts';

type Scalar = 'int' | 'float' | 'double' | 'string';

interface FieldPlan {
  readonly name: string;
  readonly kind: Scalar | 'message';
  readonly repeated: boolean;
  /** Most elements a repeated field may hold (1 for the others). */
  readonly max: number;
  readonly child?: MessagePlan;
  /** The one wire type a single value of this field has. */
  readonly wireType: number;
}

interface MessagePlan {
  readonly name: string;
  readonly fields: ReadonlyMap<number, FieldPlan>;
  /** Fields of which at most one may be present (the schema's only oneof, Dimension's value). */
  readonly exclusive?: readonly string[];
}

/** How many elements each repeated field may hold; a repeated field missing here is a bug. */
const REPEATED_MAX: Record<string, number> = {
  'ModelProto.opset_import': 4,
  'GraphProto.node': MAX_NODES,
  'GraphProto.initializer': MAX_INITIALIZERS,
  'GraphProto.input': 4,
  'GraphProto.output': 4,
  'NodeProto.input': MAX_NODE_IO,
  'NodeProto.output': MAX_NODE_IO,
  'NodeProto.attribute': MAX_ATTRIBUTES_PER_NODE,
  'AttributeProto.floats': MAX_ATTRIBUTE_ELEMENTS,
  'AttributeProto.ints': MAX_ATTRIBUTE_ELEMENTS,
  'AttributeProto.strings': MAX_ATTRIBUTE_ELEMENTS,
  'TensorProto.dims': MAX_RANK,
  'TensorProto.float_data': MAX_TENSOR_ELEMENTS,
  'TensorProto.int64_data': MAX_TENSOR_ELEMENTS,
  'TensorProto.double_data': MAX_TENSOR_ELEMENTS,
  'TensorShapeProto.dim': MAX_RANK,
};

const SCALARS: Record<string, { kind: Scalar; wireType: number }> = {
  int64: { kind: 'int', wireType: 0 },
  int32: { kind: 'int', wireType: 0 },
  float: { kind: 'float', wireType: 5 },
  double: { kind: 'double', wireType: 1 },
  string: { kind: 'string', wireType: 2 },
  bytes: { kind: 'string', wireType: 2 },
};

function plan(type: protobuf.Type, plans: Map<protobuf.Type, MessagePlan>): MessagePlan {
  const known = plans.get(type);
  if (known) return known;
  const fields = new Map<number, FieldPlan>();
  const self: MessagePlan = {
    name: type.name,
    fields,
    exclusive: type.name === 'Dimension' ? ['dim_value', 'dim_param'] : undefined,
  };
  plans.set(type, self);
  for (const [id, field] of Object.entries(type.fieldsById)) {
    const key = `${type.name}.${field.name}`;
    const max = field.repeated ? REPEATED_MAX[key] : 1;
    if (max === undefined) throw new Error(`model-check: no bound for the repeated field ${key}`);
    const scalar = SCALARS[field.type];
    if (scalar) {
      fields.set(Number(id), { name: field.name, kind: scalar.kind, repeated: field.repeated, max, wireType: scalar.wireType });
    } else if (field.resolvedType instanceof protobuf.Type) {
      fields.set(Number(id), { name: field.name, kind: 'message', repeated: field.repeated, max, wireType: 2, child: plan(field.resolvedType, plans) });
    } else {
      throw new Error(`model-check: field ${key} has a type the decoder does not handle (${field.type})`);
    }
  }
  return self;
}

const root = protobuf.parse(readFileSync(new URL('./onnx-subset.proto', import.meta.url), 'utf8'), { keepCase: true }).root;
root.resolveAll();
const MODEL = plan(root.lookupType('signalforge.onnx.ModelProto'), new Map());

interface State {
  /** Repeated values decoded so far, against MAX_TOTAL_ELEMENTS. */
  elements: number;
  /** Short strings repeat by the million (tree node modes): one decoded copy of each, by length. */
  interned: Map<number, string[]>;
}

// The decoded messages, as decodeMessage builds them from onnx-subset.proto: every field optional,
// repeated numbers as typed arrays (ints as Int32Array: every integer is below 2^31).
export interface ModelMsg { ir_version?: number; producer_name?: string; graph?: GraphMsg; opset_import?: OpsetMsg[] }
export interface OpsetMsg { domain?: string; version?: number }
export interface GraphMsg { node?: NodeMsg[]; name?: string; initializer?: TensorMsg[]; input?: ValueInfoMsg[]; output?: ValueInfoMsg[] }
export interface NodeMsg { input?: string[]; output?: string[]; name?: string; op_type?: string; attribute?: AttributeMsg[]; domain?: string }
export interface AttributeMsg { name?: string; f?: number; i?: number; s?: string; floats?: Float32Array; ints?: Int32Array; strings?: string[]; type?: number }
export interface TensorMsg { dims?: Int32Array; data_type?: number; float_data?: Float32Array; int64_data?: Int32Array; name?: string; double_data?: Float64Array }
export interface DimensionMsg { dim_value?: number; dim_param?: string }
export interface ValueInfoMsg { name?: string; type?: { tensor_type?: { elem_type?: number; shape?: { dim?: DimensionMsg[] } } } }

/** A decoded message: field name → number | string | message, or for repeated fields an array. */
export type Decoded = Record<string, unknown>;

/** Growable typed storage for repeated numbers, so a large tree attribute costs 4 bytes a value. */
class Numbers<T extends Int32Array | Float32Array | Float64Array> {
  n = 0;
  constructor(public data: T) {}
  push(v: number): void {
    if (this.n === this.data.length) {
      const bigger = new (this.data.constructor as new (n: number) => T)(Math.max(16, this.data.length * 2));
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.n++] = v;
  }
  finish(): T {
    return this.data.subarray(0, this.n) as T;
  }
}

const storage = (kind: Scalar) =>
  kind === 'int' ? new Numbers(new Int32Array(16)) : kind === 'float' ? new Numbers(new Float32Array(16)) : new Numbers(new Float64Array(16));

/**
 * Decodes one ModelProto. Integers: every one the exporter writes is a small non-negative number
 * (ids, dims, enums, opset versions), so any varint over 5 bytes or 2^31 - 1, and any varint not
 * in its shortest form, is refused: no 64-bit arithmetic, and no encoding that another parser
 * (onnxruntime's) could read differently. Strings: printable ASCII only, as the exporter writes.
 */
export function decodeModel(bytes: Uint8Array): ModelMsg {
  const reader = protobuf.Reader.create(bytes);
  const model = decodeMessage(reader, bytes, MODEL, bytes.length, { elements: 0, interned: new Map() });
  if (reader.pos !== bytes.length) refuse('trailing bytes after the model');
  return model as ModelMsg;
}

function decodeMessage(reader: protobuf.Reader, buf: Uint8Array, p: MessagePlan, end: number, state: State): Decoded {
  const out: Decoded = {};
  const counts = new Map<string, number>();
  const numbers = new Map<string, Numbers<Int32Array | Float32Array | Float64Array>>();
  while (reader.pos < end) {
    const tag = varint(reader, buf, end, `${p.name} field tag`);
    const id = tag >>> 3;
    const wireType = tag & 7;
    const f = p.fields.get(id);
    if (!f) refuse(`${p.name}: field ${id} is not in the allowed ONNX subset`);
    const where = `${p.name}.${f.name}`;
    if (!f.repeated && counts.has(f.name)) refuse(`${where} given twice`);
    const packed = f.repeated && f.kind !== 'message' && f.kind !== 'string' && wireType === 2;
    if (wireType !== f.wireType && !packed) refuse(`${where}: wire type ${wireType}, expected ${f.wireType}`);
    if (f.kind === 'message') {
      const len = varint(reader, buf, end, `${where} length`);
      const stop = reader.pos + len;
      if (stop > end) refuse(`${where}: truncated`);
      const child = decodeMessage(reader, buf, f.child!, stop, state);
      if (f.repeated) {
        const n = bump(counts, f, where);
        if (n === 1) out[f.name] = [];
        (out[f.name] as Decoded[]).push(child);
      } else {
        counts.set(f.name, 1);
        out[f.name] = child;
      }
    } else if (f.kind === 'string') {
      const s = asciiString(reader, buf, end, where, state);
      if (f.repeated) {
        bump(counts, f, where);
        if (++state.elements > MAX_TOTAL_ELEMENTS) refuse('too many values in the model');
        ((out[f.name] ??= []) as string[]).push(s);
      } else {
        counts.set(f.name, 1);
        out[f.name] = s;
      }
    } else if (!f.repeated) {
      counts.set(f.name, 1);
      out[f.name] = scalar(reader, buf, end, f.kind, where);
    } else {
      let store = numbers.get(f.name);
      if (!store) numbers.set(f.name, (store = storage(f.kind)));
      const stop = packed ? packedEnd(reader, buf, end, f.kind, where) : reader.pos;
      do {
        bump(counts, f, where);
        if (++state.elements > MAX_TOTAL_ELEMENTS) refuse('too many values in the model');
        store.push(scalar(reader, buf, packed ? stop : end, f.kind, where));
      } while (packed && reader.pos < stop);
    }
  }
  if (reader.pos !== end) refuse(`${p.name}: a field runs past its message`);
  for (const [name, store] of numbers) out[name] = store.finish();
  if (p.exclusive && p.exclusive.filter((name) => name in out).length > 1) refuse(`${p.name}: more than one of ${p.exclusive.join(', ')}`);
  return out;
}

function bump(counts: Map<string, number>, f: FieldPlan, where: string): number {
  const n = (counts.get(f.name) ?? 0) + 1;
  if (n > f.max) refuse(`${where}: more than ${f.max} elements`);
  counts.set(f.name, n);
  return n;
}

/** Where a packed run ends; its length must hold whole values. */
function packedEnd(reader: protobuf.Reader, buf: Uint8Array, end: number, kind: Scalar, where: string): number {
  const len = varint(reader, buf, end, `${where} length`);
  const stop = reader.pos + len;
  if (stop > end) refuse(`${where}: truncated`);
  if (len === 0) refuse(`${where}: empty packed run`);
  if ((kind === 'float' && len % 4) || (kind === 'double' && len % 8)) refuse(`${where}: packed run of ${len} bytes`);
  return stop;
}

function scalar(reader: protobuf.Reader, buf: Uint8Array, end: number, kind: Scalar, where: string): number {
  if (kind === 'int') return varint(reader, buf, end, where);
  const size = kind === 'float' ? 4 : 8;
  if (reader.pos + size > end) refuse(`${where}: truncated`);
  return kind === 'float' ? reader.float() : reader.double();
}

/** A varint of at most 5 bytes, in its shortest form, below 2^31, within the message. */
function varint(reader: protobuf.Reader, buf: Uint8Array, end: number, where: string): number {
  const start = reader.pos;
  let i = start;
  while (i < end && i - start < 5 && buf[i]! & 0x80) i++;
  if (i >= end) refuse(`${where}: truncated`);
  if (i - start >= 5) refuse(`${where}: integer too large`);
  if (i > start && buf[i] === 0) refuse(`${where}: integer not in its shortest encoding`);
  if (i - start === 4 && buf[i]! > 7) refuse(`${where}: integer too large`);
  const v = reader.uint32();
  if (v > 0x7fffffff) refuse(`${where}: integer too large`);
  return v;
}

function asciiString(reader: protobuf.Reader, buf: Uint8Array, end: number, where: string, state: State): string {
  const len = varint(reader, buf, end, `${where} length`);
  if (len > MAX_NAME_BYTES) refuse(`${where}: string of ${len} bytes`);
  const start = reader.pos;
  if (start + len > end) refuse(`${where}: truncated`);
  for (let i = start; i < start + len; i++) {
    const c = buf[i]!;
    if (c < 0x20 || c > 0x7e) refuse(`${where}: not printable ASCII`);
  }
  reader.skip(len);
  const bucket = state.interned.get(len);
  if (bucket) {
    search: for (const s of bucket) {
      for (let i = 0; i < len; i++) if (s.charCodeAt(i) !== buf[start + i]) continue search;
      return s;
    }
  }
  const s = String.fromCharCode(...buf.subarray(start, start + len));
  if (len <= 16) {
    const list = bucket ?? [];
    if (list.length < 8) list.push(s);
    if (!bucket) state.interned.set(len, list);
  }
  return s;
}
