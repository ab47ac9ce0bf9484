/**
 * Decodes a model's protobuf wire format against onnx-subset.proto with protobufjs's Reader, and
 * refuses on the way whatever the schema does not declare: unknown field numbers at any level,
 * wrong wire types, groups, a non-repeated field given twice, truncation, trailing bytes,
 * non-canonical varints, and counts or sizes past the bounds. Decoding and refusing are one walk,
 * so nothing undeclared is ever skipped over silently (protobufjs's own decode would skip it).
 * The schema has no recursive message, so the walk's depth is fixed by it (5 levels).
 */
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import {
  MAX_ATTRIBUTE_ELEMENTS,
  MAX_ATTRIBUTES_PER_NODE,
  MAX_INITIALIZERS,
  MAX_NAME_BYTES,
  MAX_NODE_IO,
  MAX_NODES,
  MAX_RANK,
  MAX_TENSOR_ELEMENTS,
  MAX_TOTAL_ELEMENTS,
} from './bounds.ts';

import { refuse } from './rejected.ts';

/**
 * Strings past the first 8 of each length (names, attribute names, node modes; the same few
 * recur): an honest model has a few dozen such, a hostile one could hold millions.
 */
const MAX_FRESH_STRINGS = 4096;

type Scalar = 'int' | 'float' | 'double' | 'string';

interface FieldPlan {
  readonly name: string;
  /** "Message.field", for reasons. */
  readonly where: string;
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

/**
 * How many elements each repeated field may hold (the whys are in bounds.ts); a repeated field
 * missing here is a bug. Opset imports (2 written), graph inputs and outputs (1 each) are checked
 * exactly later: 4 only bounds what is decoded before that.
 */
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
      fields.set(Number(id), { name: field.name, where: key, kind: scalar.kind, repeated: field.repeated, max, wireType: scalar.wireType });
    } else if (field.resolvedType instanceof protobuf.Type) {
      fields.set(Number(id), {
        name: field.name,
        where: key,
        kind: 'message',
        repeated: field.repeated,
        max,
        wireType: 2,
        child: plan(field.resolvedType, plans),
      });
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
  /** List values decoded so far, and how many the file may hold. */
  elements: number;
  readonly maxElements: number;
  /** Strings decoded that were not interned, against MAX_FRESH_STRINGS. */
  fresh: number;
  /** Strings repeat by the million (tree node modes): up to 8 decoded copies per length, by length. */
  interned: string[][];
}

// The decoded messages, as decodeMessage builds them from onnx-subset.proto: every field optional,
// repeated numbers as typed arrays (ints as Int32Array: every integer is below 2^31).
export interface ModelMsg {
  ir_version?: number;
  producer_name?: string;
  graph?: GraphMsg;
  opset_import?: OpsetMsg[];
}
export interface OpsetMsg {
  domain?: string;
  version?: number;
}
export interface GraphMsg {
  node?: NodeMsg[];
  name?: string;
  initializer?: TensorMsg[];
  input?: ValueInfoMsg[];
  output?: ValueInfoMsg[];
}
export interface NodeMsg {
  input?: string[];
  output?: string[];
  name?: string;
  op_type?: string;
  attribute?: AttributeMsg[];
  domain?: string;
}
export interface AttributeMsg {
  name?: string;
  f?: number;
  i?: number;
  s?: string;
  floats?: Float32Array;
  ints?: Int32Array;
  strings?: string[];
  type?: number;
}
export interface TensorMsg {
  dims?: Int32Array;
  data_type?: number;
  float_data?: Float32Array;
  int64_data?: Int32Array;
  name?: string;
  double_data?: Float64Array;
}
export interface DimensionMsg {
  dim_value?: number;
  dim_param?: string;
}
export interface ValueInfoMsg {
  name?: string;
  type?: { tensor_type?: { elem_type?: number; shape?: { dim?: DimensionMsg[] } } };
}

/** A decoded message: field name → number | string | message, or for repeated fields an array. */
export type Decoded = Record<string, unknown>;

/** Where decoded repeated numbers go: typed arrays, so a large tree attribute costs 4 bytes a value. */
type NumberArray = Int32Array | Float32Array | Float64Array;

function grow<T extends NumberArray>(a: T): T {
  const bigger = new (a.constructor as new (n: number) => T)(a.length * 2);
  bigger.set(a);
  return bigger;
}

/**
 * Decodes one ModelProto. Integers: every one the exporter writes is a small non-negative number
 * (ids, dims, enums, opset versions), so any varint over 5 bytes or 2^31 - 1, and any varint not
 * in its shortest form, is refused: no 64-bit arithmetic, and no encoding that another parser
 * (onnxruntime's) could read differently. Strings: printable ASCII only, as the exporter writes.
 */
export function decodeModel(bytes: Uint8Array): ModelMsg {
  const reader = protobuf.Reader.create(bytes);
  // The exporter writes list attributes unpacked: 2 bytes or more a value. Holding the decoder to
  // that keeps its memory within a few times the file, however a hostile file packs its values.
  const maxElements = Math.min(MAX_TOTAL_ELEMENTS, Math.floor(bytes.length / 2) + MAX_INITIALIZERS * MAX_TENSOR_ELEMENTS);
  const model = decodeMessage(reader, bytes, MODEL, bytes.length, { elements: 0, maxElements, interned: [], fresh: 0 });
  if (reader.pos !== bytes.length) refuse('trailing bytes after the model');
  return model as ModelMsg;
}

function decodeMessage(reader: protobuf.Reader, buf: Uint8Array, p: MessagePlan, end: number, state: State): Decoded {
  const out: Decoded = {};
  const counts = new Map<string, number>();
  const numbers = new Map<string, NumberArray>();
  while (reader.pos < end) {
    const tagAt = reader.pos;
    const tag = varint(reader, buf, end, p.name);
    const id = tag >>> 3;
    const wireType = tag & 7;
    const f = p.fields.get(id);
    if (!f) refuse(`${p.name}: field ${id} is not in the allowed ONNX subset`);
    const where = f.where;
    const count = counts.get(f.name) ?? 0;
    if (!f.repeated && count) refuse(`${where} given twice`);
    const packed = f.repeated && f.kind !== 'message' && f.kind !== 'string' && wireType === 2;
    if (wireType !== f.wireType && !packed) refuse(`${where}: wire type ${wireType}, expected ${f.wireType}`);
    if (f.kind === 'message') {
      if (count + 1 > f.max) refuse(`${where}: more than ${f.max} elements`);
      const len = varint(reader, buf, end, where);
      const stop = reader.pos + len;
      if (stop > end) refuse(`${where}: truncated`);
      const child = decodeMessage(reader, buf, f.child!, stop, state);
      counts.set(f.name, count + 1);
      if (f.repeated) ((out[f.name] ??= []) as Decoded[]).push(child);
      else out[f.name] = child;
    } else if (!f.repeated) {
      counts.set(f.name, 1);
      out[f.name] = f.kind === 'string' ? asciiString(reader, buf, end, where, state) : scalar(reader, buf, end, f.kind, where);
    } else if (f.kind === 'string') {
      // A run of the same field, as an unpacked list is written, read in one loop.
      const list = (out[f.name] ??= []) as string[];
      const tagLen = reader.pos - tagAt;
      let n = count;
      do {
        if (++n > f.max) refuse(`${where}: more than ${f.max} elements`);
        budget(state, 1);
        list.push(asciiString(reader, buf, end, where, state));
      } while (sameTag(reader, buf, tagAt, tagLen, end));
      counts.set(f.name, n);
    } else {
      const n = readNumbers(reader, buf, f, end, packed, tagAt, count, numbers, state);
      counts.set(f.name, n);
    }
  }
  if (reader.pos !== end) refuse(`${p.name}: a field runs past its message`);
  for (const [name, a] of numbers) out[name] = a.subarray(0, counts.get(name));
  if (p.exclusive && p.exclusive.filter((name) => name in out).length > 1) refuse(`${p.name}: more than one of ${p.exclusive.join(', ')}`);
  return out;
}

function budget(state: State, added: number): void {
  state.elements += added;
  if (state.elements > state.maxElements) refuse(`more than ${state.maxElements} list values in a model of this size`);
}

/** Whether the next field has the same tag as the one at tagAt; if so, steps past it. */
function sameTag(reader: protobuf.Reader, buf: Uint8Array, tagAt: number, tagLen: number, end: number): boolean {
  const at = reader.pos;
  if (at + tagLen > end) return false;
  for (let i = 0; i < tagLen; i++) if (buf[at + i] !== buf[tagAt + i]) return false;
  reader.pos = at + tagLen;
  return true;
}

/**
 * A repeated number field's values: one packed run, or a run of unpacked values with the same tag,
 * appended to what earlier runs of the field gave. Returns the field's count so far. One loop per
 * element type, each over one typed-array type: this is the hot path of a large tree model.
 */
function readNumbers(
  reader: protobuf.Reader,
  buf: Uint8Array,
  f: FieldPlan,
  end: number,
  packed: boolean,
  tagAt: number,
  count: number,
  numbers: Map<string, NumberArray>,
  state: State,
): number {
  const stop = packed ? packedEnd(reader, buf, end, f.kind as Scalar, f.where) : end;
  const run: Run = { reader, buf, f, end, stop, packed, tagAt, tagLen: reader.pos - tagAt, n: count };
  // Counted and sized once, before anything is stored (a malformed run is refused as it is read).
  const length = runLength(run);
  budget(state, length);
  const size = Math.min(count + length, f.max + 1);
  const known = numbers.get(f.name);
  numbers.set(
    f.name,
    f.kind === 'int'
      ? readInts(run, sized(known as Int32Array | undefined, Int32Array, size))
      : f.kind === 'float'
        ? readFloats(run, sized(known as Float32Array | undefined, Float32Array, size))
        : readDoubles(run, sized(known as Float64Array | undefined, Float64Array, size)),
  );
  return run.n;
}

function sized<T extends NumberArray>(known: T | undefined, make: new (n: number) => T, size: number): T {
  if (known && known.length >= size) return known;
  const a = new make(size);
  if (known) a.set(known);
  return a;
}

/** How many values the run at the reader holds, by a scan of its bytes (malformed ends are refused later). */
function runLength(r: Run): number {
  const { buf, f } = r;
  const width = f.kind === 'float' ? 4 : f.kind === 'double' ? 8 : 0;
  let p = r.reader.pos;
  if (r.packed) {
    if (width) return (r.stop - p) / width;
    let c = 0;
    for (; p < r.stop; p++) if (buf[p]! < 0x80) c++;
    return c;
  }
  let c = 0;
  for (;;) {
    c++;
    if (width) p += width;
    else {
      while (p < r.end && buf[p]! & 0x80) p++;
      p++;
    }
    if (p + r.tagLen > r.end) return c;
    for (let i = 0; i < r.tagLen; i++) if (buf[p + i] !== buf[r.tagAt + i]) return c;
    p += r.tagLen;
  }
}

interface Run {
  readonly reader: protobuf.Reader;
  readonly buf: Uint8Array;
  readonly f: FieldPlan;
  readonly end: number;
  /** The end of a packed run, else of the message. */
  readonly stop: number;
  readonly packed: boolean;
  readonly tagAt: number;
  readonly tagLen: number;
  n: number;
}

const more = (r: Run) => (r.packed ? r.reader.pos < r.stop : sameTag(r.reader, r.buf, r.tagAt, r.tagLen, r.end));

function readInts(r: Run, a: Int32Array): Int32Array {
  const { reader, buf, f, stop, end, packed, tagAt, tagLen } = r;
  let n = r.n;
  // Node ids, feature ids and flags are 1–3 byte varints: read here without a call each; anything
  // longer, or malformed, goes through varint() and its checks.
  const tag0 = buf[tagAt]!;
  let pos = reader.pos;
  for (;;) {
    if (n === f.max) refuse(`${f.where}: more than ${f.max} elements`);
    if (n === a.length) a = grow(a);
    const b0 = pos < stop ? buf[pos]! : 0x80;
    if (b0 < 0x80) {
      a[n++] = b0;
      pos++;
    } else {
      const b1 = pos + 1 < stop ? buf[pos + 1]! : 0x80;
      if (b1 < 0x80 && b1 !== 0) {
        a[n++] = (b0 & 0x7f) | (b1 << 7);
        pos += 2;
      } else {
        reader.pos = pos;
        a[n++] = varint(reader, buf, stop, f.where);
        pos = reader.pos;
      }
    }
    if (packed) {
      if (pos < stop) continue;
      break;
    }
    if (tagLen === 1) {
      if (pos < end && buf[pos] === tag0) {
        pos++;
        continue;
      }
      break;
    }
    reader.pos = pos;
    if (!sameTag(reader, buf, tagAt, tagLen, end)) break;
    pos = reader.pos;
  }
  reader.pos = pos;
  r.n = n;
  return a;
}

function readFloats(r: Run, a: Float32Array): Float32Array {
  const { reader, buf, f, stop, end, packed, tagAt, tagLen } = r;
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let n = r.n;
  let pos = reader.pos;
  for (;;) {
    if (n === f.max) refuse(`${f.where}: more than ${f.max} elements`);
    if (n === a.length) a = grow(a);
    if (pos + 4 > stop) refuse(`${f.where}: truncated`);
    a[n++] = view.getFloat32(pos, true);
    pos += 4;
    if (packed) {
      if (pos < stop) continue;
      break;
    }
    reader.pos = pos;
    if (!sameTag(reader, buf, tagAt, tagLen, end)) break;
    pos = reader.pos;
  }
  reader.pos = pos;
  r.n = n;
  return a;
}

function readDoubles(r: Run, a: Float64Array): Float64Array {
  const { reader, f, stop } = r;
  let n = r.n;
  do {
    if (n === f.max) refuse(`${f.where}: more than ${f.max} elements`);
    if (n === a.length) a = grow(a);
    if (reader.pos + 8 > stop) refuse(`${f.where}: truncated`);
    a[n++] = reader.double();
  } while (more(r));
  r.n = n;
  return a;
}

/** Where a packed run ends; its length must hold whole values. */
function packedEnd(reader: protobuf.Reader, buf: Uint8Array, end: number, kind: Scalar, where: string): number {
  const len = varint(reader, buf, end, where);
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
  // One byte: the common case (tags, small ids), with nothing to check but the end.
  if (start < end && buf[start]! < 0x80) {
    reader.pos = start + 1;
    return buf[start]!;
  }
  let i = start;
  while (i < end && i - start < 5 && buf[i]! & 0x80) i++;
  if (i >= end) refuse(`${where}: truncated`);
  if (i - start >= 5) refuse(`${where}: integer too large`);
  if (buf[i] === 0) refuse(`${where}: integer not in its shortest encoding`);
  if (i - start === 4 && buf[i]! > 7) refuse(`${where}: integer too large`);
  return reader.uint32();
}

function asciiString(reader: protobuf.Reader, buf: Uint8Array, end: number, where: string, state: State): string {
  const len = varint(reader, buf, end, where);
  if (len > MAX_NAME_BYTES) refuse(`${where}: string of ${len} bytes`);
  const start = reader.pos;
  if (start + len > end) refuse(`${where}: truncated`);
  reader.pos = start + len;
  // A string seen before was checked then: compare bytes, and hand back that copy.
  const bucket = (state.interned[len] ??= []);
  search: for (const s of bucket) {
    for (let i = 0; i < len; i++) if (s.charCodeAt(i) !== buf[start + i]) continue search;
    return s;
  }
  for (let i = start; i < start + len; i++) {
    const c = buf[i]!;
    if (c < 0x20 || c > 0x7e) refuse(`${where}: not printable ASCII`);
  }
  const s = String.fromCharCode(...buf.subarray(start, start + len));
  if (bucket.length < 8) bucket.push(s);
  else if (++state.fresh > MAX_FRESH_STRINGS) refuse('too many different strings');
  return s;
}
