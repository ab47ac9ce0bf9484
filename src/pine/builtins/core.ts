/** Built-ins without drawing: math.*, nz/na, conversions, str.*, color.*, array.*. */
import { num, str, type Builtin, type Ctx } from '../runtime/ctx.ts';
import { isArray, isNa, type PineArray, type Value } from '../runtime/values.ts';

/** TradingView's v5 palette. */
export const COLORS: Record<string, string> = {
  aqua: '#00bcd4',
  black: '#363a45',
  blue: '#2962ff',
  fuchsia: '#e040fb',
  gray: '#787b86',
  green: '#4caf50',
  lime: '#00e676',
  maroon: '#880e4f',
  navy: '#311b92',
  olive: '#808000',
  orange: '#ff9800',
  purple: '#9c27b0',
  red: '#ff5252',
  silver: '#b2b5be',
  teal: '#00897b',
  white: '#ffffff',
  yellow: '#ffeb3b',
};

const hex2 = (x: number) =>
  Math.max(0, Math.min(255, Math.round(x)))
    .toString(16)
    .padStart(2, '0');
/** Transparency 0–100 (Pine) → alpha byte. */
const alpha = (transp: number) => hex2(((100 - transp) * 255) / 100);

const math1 = (f: (x: number) => number): Builtin => ({ params: ['number'], fn: (_c, a) => f(num(a[0])) });

export function arrayArg(ctx: Ctx, v: Value | undefined): PineArray {
  if (v === undefined || !isArray(v)) return ctx.fail('expected an array (na array or another value given)');
  return v;
}
function index(ctx: Ctx, arr: PineArray, v: Value | undefined): number {
  let i = num(v);
  if (i < 0) i += arr.items.length; // Pine v6 negative indices count from the end
  if (!Number.isInteger(i) || i < 0 || i >= arr.items.length) ctx.fail(`array index ${num(v)} is out of bounds (size ${arr.items.length})`);
  return i;
}
function newArray(ctx: Ctx, size: Value | undefined, init: Value | undefined): PineArray {
  const n = size === undefined ? 0 : num(size);
  if (!Number.isInteger(n) || n < 0) ctx.fail(`array size must be a non-negative integer, got ${n}`);
  if (n > ctx.limits.maxArraySize) ctx.fail(`array of ${n} elements is over the limit of ${ctx.limits.maxArraySize}`);
  ctx.grow(n);
  return { kind: 'array', items: new Array<Value>(n).fill(init === undefined ? NaN : init) };
}
function push(ctx: Ctx, arr: PineArray, v: Value): void {
  if (arr.items.length >= ctx.limits.maxArraySize) ctx.fail(`array grows past the limit of ${ctx.limits.maxArraySize} elements`);
  ctx.grow(1);
  arr.items.push(v);
}
const nums = (arr: PineArray): number[] => arr.items.map((v) => num(v));
const arr1 = (f: (xs: number[]) => number): Builtin => ({ params: ['id'], fn: (ctx, a) => f(nums(arrayArg(ctx, a[0]))) });
const mean = (xs: number[]) => (xs.length === 0 ? NaN : xs.reduce((s, x) => s + x, 0) / xs.length);

const ARRAY_NEW = ['float', 'int', 'bool', 'string', 'color'].flatMap((t) => [`array.new_${t}`, `array.new<${t}>`]);

export const CORE: Record<string, Builtin> = {
  // Sets how far back TradingView keeps a series; every history here reaches back 5000 bars.
  max_bars_back: { params: ['var', 'num'], fn: () => null },
  nz: { params: ['source', 'replacement'], fn: (_c, a) => (isNa(a[0]) ? (a[1] ?? 0) : a[0]!) },
  na: { params: ['x'], fn: (_c, a) => isNa(a[0]) },
  int: { params: ['x'], fn: (_c, a) => Math.trunc(num(a[0])) },
  float: { params: ['x'], fn: (_c, a) => num(a[0]) },
  bool: { params: ['x'], fn: (_c, a) => num(a[0]) !== 0 && !isNa(a[0]) },
  'math.abs': math1(Math.abs),
  'math.floor': math1(Math.floor),
  'math.ceil': math1(Math.ceil),
  'math.sqrt': math1(Math.sqrt),
  'math.log': math1(Math.log),
  'math.log10': math1(Math.log10),
  'math.exp': math1(Math.exp),
  'math.sign': math1(Math.sign),
  'math.sin': math1(Math.sin),
  'math.cos': math1(Math.cos),
  'math.tan': math1(Math.tan),
  'math.asin': math1(Math.asin),
  'math.acos': math1(Math.acos),
  'math.atan': math1(Math.atan),
  'math.todegrees': math1((x) => (x * 180) / Math.PI),
  'math.toradians': math1((x) => (x * Math.PI) / 180),
  'math.pow': { params: ['base', 'exponent'], fn: (_c, a) => num(a[0]) ** num(a[1]) },
  'math.round': {
    params: ['number', 'precision'],
    fn: (_c, a) => {
      const p = a[1] === undefined ? 0 : num(a[1]);
      const f = 10 ** p;
      // Pine rounds halves away from zero.
      const x = num(a[0]) * f;
      return (Math.sign(x) * Math.round(Math.abs(x))) / f;
    },
  },
  // Variadic: every positional argument counts (bound as p0, p1, …).
  'math.max': {
    params: ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9'],
    fn: (_c, a) => Math.max(...a.filter((v) => v !== undefined).map(num)),
  },
  'math.min': {
    params: ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9'],
    fn: (_c, a) => Math.min(...a.filter((v) => v !== undefined).map(num)),
  },
  'math.avg': {
    params: ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9'],
    fn: (_c, a) => mean(a.filter((v) => v !== undefined).map(num)),
  },
  'str.tostring': { params: ['value', 'format'], fn: (ctx, a) => pineToString(a[0], a[1], ctx.mintick) },
  'str.length': { params: ['string'], fn: (_c, a) => str(a[0]).length },
  'math.round_to_mintick': {
    // To the symbol's tick, halves up, as TradingView rounds (k ticks divided by the price scale).
    params: ['number'],
    fn: (ctx, a) => {
      const tick = ctx.mintick;
      return Math.trunc(num(a[0]) / tick + 0.5) / Math.round(1 / tick);
    },
  },
  'str.upper': { params: ['source'], fn: (_c, a) => str(a[0]).toUpperCase() },
  'str.lower': { params: ['source'], fn: (_c, a) => str(a[0]).toLowerCase() },
  'str.contains': { params: ['source', 'str'], fn: (_c, a) => str(a[0]).includes(str(a[1])) },
  'color.new': { params: ['color', 'transp'], fn: (_c, a) => (typeof a[0] === 'string' ? a[0].slice(0, 7) + alpha(num(a[1])) : null) },
  'color.rgb': {
    params: ['red', 'green', 'blue', 'transp'],
    fn: (_c, a) => `#${hex2(num(a[0]))}${hex2(num(a[1]))}${hex2(num(a[2]))}${alpha(a[3] === undefined ? 0 : num(a[3]))}`,
  },
  'array.new': { params: ['size', 'initial_value'], fn: (ctx, a) => newArray(ctx, a[0], a[1]) },
  ...Object.fromEntries(
    ARRAY_NEW.map((n) => [n, { params: ['size', 'initial_value'], fn: (ctx: Ctx, a: Value[]) => newArray(ctx, a[0], a[1]) }]),
  ),
  'array.from': {
    params: ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9'],
    fn: (ctx, a) => {
      const items = a.filter((v) => v !== undefined);
      ctx.grow(items.length);
      return { kind: 'array', items };
    },
  },
  'array.size': { params: ['id'], fn: (ctx, a) => arrayArg(ctx, a[0]).items.length },
  'array.get': {
    params: ['id', 'index'],
    fn: (ctx, a) => {
      const arr = arrayArg(ctx, a[0]);
      return arr.items[index(ctx, arr, a[1])]!;
    },
  },
  'array.set': {
    params: ['id', 'index', 'value'],
    fn: (ctx, a) => {
      const arr = arrayArg(ctx, a[0]);
      arr.items[index(ctx, arr, a[1])] = a[2]!;
      return null;
    },
  },
  'array.push': {
    params: ['id', 'value'],
    fn: (ctx, a) => {
      push(ctx, arrayArg(ctx, a[0]), a[1]!);
      return null;
    },
  },
  'array.unshift': {
    params: ['id', 'value'],
    fn: (ctx, a) => {
      const arr = arrayArg(ctx, a[0]);
      push(ctx, arr, a[1]!);
      arr.items.pop();
      arr.items.unshift(a[1]!);
      return null;
    },
  },
  'array.pop': {
    params: ['id'],
    fn: (ctx, a) => {
      const arr = arrayArg(ctx, a[0]);
      if (arr.items.length === 0) ctx.fail('array.pop on an empty array');
      return arr.items.pop()!;
    },
  },
  'array.shift': {
    params: ['id'],
    fn: (ctx, a) => {
      const arr = arrayArg(ctx, a[0]);
      if (arr.items.length === 0) ctx.fail('array.shift on an empty array');
      return arr.items.shift()!;
    },
  },
  'array.clear': {
    params: ['id'],
    fn: (ctx, a) => {
      arrayArg(ctx, a[0]).items.length = 0;
      return null;
    },
  },
  'array.first': {
    params: ['id'],
    fn: (ctx, a) => {
      const arr = arrayArg(ctx, a[0]);
      return arr.items[index(ctx, arr, 0)]!;
    },
  },
  'array.last': {
    params: ['id'],
    fn: (ctx, a) => {
      const arr = arrayArg(ctx, a[0]);
      return arr.items[index(ctx, arr, -1)]!;
    },
  },
  'array.includes': { params: ['id', 'value'], fn: (ctx, a) => arrayArg(ctx, a[0]).items.includes(a[1]!) },
  'array.indexof': { params: ['id', 'value'], fn: (ctx, a) => arrayArg(ctx, a[0]).items.indexOf(a[1]!) },
  'array.sum': arr1((xs) => xs.reduce((s, x) => s + x, 0)),
  'array.avg': arr1(mean),
  'array.max': arr1((xs) => (xs.length ? Math.max(...xs) : NaN)),
  'array.min': arr1((xs) => (xs.length ? Math.min(...xs) : NaN)),
  'array.stdev': { params: ['id', 'biased'], fn: (ctx, a) => Math.sqrt(variance(nums(arrayArg(ctx, a[0])), a[1] !== false)) },
  'array.copy': {
    params: ['id'],
    fn: (ctx, a) => {
      const arr = arrayArg(ctx, a[0]);
      ctx.grow(arr.items.length);
      return { kind: 'array', items: arr.items.slice() };
    },
  },
  'array.sort': {
    params: ['id', 'order'],
    fn: (ctx, a) => {
      const arr = arrayArg(ctx, a[0]);
      const desc = a[1] === 'descending';
      arr.items.sort((x, y) => (desc ? num(y) - num(x) : num(x) - num(y)));
      return null;
    },
  },
  'array.remove': {
    params: ['id', 'index'],
    fn: (ctx, a) => {
      const arr = arrayArg(ctx, a[0]);
      return arr.items.splice(index(ctx, arr, a[1]), 1)[0]!;
    },
  },
  'array.reverse': {
    params: ['id'],
    fn: (ctx, a) => {
      arrayArg(ctx, a[0]).items.reverse();
      return null;
    },
  },
  'array.join': {
    params: ['id', 'separator'],
    fn: (ctx, a) =>
      arrayArg(ctx, a[0])
        .items.map((v) => str(v))
        .join(str(a[1])),
  },
  'array.lastindexof': { params: ['id', 'value'], fn: (ctx, a) => arrayArg(ctx, a[0]).items.lastIndexOf(a[1]!) },
  'array.fill': {
    params: ['id', 'value', 'index_from', 'index_to'],
    fn: (ctx, a) => {
      const arr = arrayArg(ctx, a[0]);
      arr.items.fill(a[1]!, a[2] === undefined ? 0 : num(a[2]), a[3] === undefined ? arr.items.length : num(a[3]));
      return null;
    },
  },
  'array.concat': {
    // Appends id2's elements to id1, which it returns.
    params: ['id1', 'id2'],
    fn: (ctx, a) => {
      const [to, from] = [arrayArg(ctx, a[0]), arrayArg(ctx, a[1])];
      for (const v of from.items.slice()) push(ctx, to, v);
      return to;
    },
  },
  'array.median': arr1((xs) => {
    const w = xs.slice().sort((x, y) => x - y);
    const mid = w.length >> 1;
    return w.length === 0 ? NaN : w.length % 2 ? w[mid]! : (w[mid - 1]! + w[mid]!) / 2;
  }),
  'array.range': arr1((xs) => (xs.length ? Math.max(...xs) - Math.min(...xs) : NaN)),
  'array.variance': { params: ['id', 'biased'], fn: (ctx, a) => variance(nums(arrayArg(ctx, a[0])), a[1] !== false) },
  'array.insert': {
    params: ['id', 'index', 'value'],
    fn: (ctx, a) => {
      const arr = arrayArg(ctx, a[0]);
      const i = num(a[1]);
      if (!Number.isInteger(i) || i < 0 || i > arr.items.length) ctx.fail(`array index ${i} is out of bounds (size ${arr.items.length})`);
      push(ctx, arr, a[2]!);
      arr.items.pop();
      arr.items.splice(i, 0, a[2]!);
      return null;
    },
  },
};

const STRATEGY_CONSTANTS = new Set([
  'long',
  'short',
  'fixed',
  'cash',
  'percent_of_equity',
  'commission.percent',
  'commission.cash_per_contract',
  'commission.cash_per_order',
  'oca.cancel',
  'oca.reduce',
  'oca.none',
  'direction.all',
  'direction.long',
  'direction.short',
]);

/**
 * str.tostring: a number with a pattern ("#.##" up to 2 decimals, "0.00" exactly 2, format.mintick
 * the tick's decimals), else as JavaScript prints it; na is "NaN".
 */
export function pineToString(v: Value | undefined, format: Value | undefined, mintick: number): string {
  if (typeof v !== 'number') return str(v);
  if (v !== v) return 'NaN';
  const f = format === 'mintick' ? (mintick < 1 ? `0.${'0'.repeat(Math.round(-Math.log10(mintick)))}` : '0') : str(format);
  const m = /^[#0,]*(?:\.(0*)(#*))?$/.exec(f);
  if (!m || !f.includes('.')) return String(v);
  const fixed = v.toFixed(m[1]!.length + m[2]!.length);
  // Optional decimals (#) drop their trailing zeros, down to the required ones (0).
  const required = fixed.length - m[2]!.length;
  let end = fixed.length;
  while (end > required && fixed[end - 1] === '0') end--;
  return fixed.slice(0, fixed[end - 1] === '.' ? end - 1 : end);
}

const variance = (xs: number[], biased: boolean): number => {
  const m = mean(xs);
  return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (biased ? xs.length : xs.length - 1);
};

/** Constants read as names: colors, shapes, locations, styles, math constants. */
export function constant(name: string): Value | undefined {
  const dot = name.indexOf('.');
  if (dot < 0) return undefined;
  const ns = name.slice(0, dot);
  const key = name.slice(dot + 1);
  switch (ns) {
    case 'color':
      return COLORS[key];
    case 'math':
      return key === 'pi' ? Math.PI : key === 'e' ? Math.E : key === 'phi' ? (1 + Math.sqrt(5)) / 2 : undefined;
    case 'shape':
    case 'location':
    case 'size':
    case 'plot':
    case 'hline':
    case 'display':
    case 'position':
    case 'extend':
    case 'xloc':
    case 'yloc':
    case 'text':
    case 'font':
    case 'order':
    case 'alert':
    case 'format':
    case 'scale':
    case 'currency':
      return key;
    case 'strategy':
      // Order settings name themselves (they only size orders, which are recorded, not filled).
      return STRATEGY_CONSTANTS.has(key) ? key : undefined;
  }
  return undefined;
}
