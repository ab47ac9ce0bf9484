/**
 * The column plan, made once per program as its top-level statements are made into closures:
 * which declarations are the same on every bar (constants, typed inputs), which are series inputs,
 * which are tried as columns on each run's first bar, and which expressions of the others may be
 * columns. Static: it reads bindings and the AST, never a bar.
 */
import { BUILTINS } from '../builtins/builtins.ts';
import { CORE } from '../builtins/core.ts';
import { PERCENTILES } from '../builtins/percentiles.ts';
import { TA } from '../builtins/ta.ts';
import { TA_OSCILLATORS } from '../builtins/ta-oscillators.ts';
import { TA_VOLUME } from '../builtins/ta-volume.ts';
import { TA_WINDOWS } from '../builtins/ta-windows.ts';
import type { Binding } from '../runtime/bindings.ts';
import { equal } from '../runtime/operators.ts';
import { truthy } from '../runtime/values.ts';
import type { Expr, ForStmt, FuncDef, Program, Stmt } from '../syntax/ast.ts';
import { giveUp } from './col.ts';
import { keyOf, type ColumnHost, type StaticHost } from './host.ts';

/** Built-ins whose value depends on their arguments, the bars and their call site's state only. */
export const SERIES_BUILTINS = new Set(
  [TA, TA_WINDOWS, TA_OSCILLATORS, TA_VOLUME, PERCENTILES]
    .flatMap((t) => Object.keys(t))
    .filter((k) => k.startsWith('ta.') || k === 'math.sum'),
);
/** Built-ins with no state at all: they may run on bars where their branch is not taken. */
export const PURE_BUILTINS = new Set([
  'nz',
  'na',
  'int',
  'float',
  'bool',
  'color.new',
  'color.rgb',
  ...Object.keys(CORE).filter((k) => k.startsWith('math.')),
]);

/** Whether `node` reads the history (`x[k]`) of one of these variables. */
export function readsHistory(node: unknown, keys: ReadonlySet<string>, host: Pick<ColumnHost, 'binding'>): boolean {
  if (!node || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some((x) => readsHistory(x, keys, host));
  const e = node as Expr;
  if (e.kind === 'index' && e.target.kind === 'name') {
    const b = host.binding(e.target.id);
    if (b && keys.has(keyOf(b))) return true;
  }
  return Object.values(node).some((x) => readsHistory(x, keys, host));
}

/**
 * Which top-level statements take part, decided as they are made into closures (their names
 * bound): declarations whose value is the same on every bar, series inputs, and the candidates
 * tried as columns on each run's first bar; and which expressions of the others may be columns.
 */
export class ColumnPlan {
  /** Declarations whose value is the same on every bar (literals, typed inputs, arithmetic of those). */
  readonly constants = new Set<number>();
  /** `src = input.source(close, …)`: a series input's value is its default's. */
  readonly aliases = new Map<number, Expr>();
  /** Declarations tried as columns on the first bar of each run. */
  readonly candidates = new Set<number>();
  /** A declaration changed only by the for loop right after it (a sum over a lookback), by its id: that loop. */
  readonly units = new Map<number, ForStmt>();
  /** The variables (by binding key) of all three: what a column may read. */
  private readonly names = new Set<string>();
  private readonly assigned: Set<string>;
  private readonly seen = new Set<string>();

  constructor(
    private readonly program: Program,
    private readonly host: StaticHost,
  ) {
    this.assigned = assignedNames(program.body);
  }

  /** The for loop right after a declaration that alone assigns it, of a shape a column can follow (declarations and assignments of it). */
  private unitLoop(s: Stmt & { kind: 'decl' }): ForStmt | null {
    const body = this.program.body;
    const at = body.indexOf(s);
    const loop = body[at + 1];
    if (s.mode !== null || this.seen.has(s.name) || !loop || loop.kind !== 'for') return null;
    if (body.some((t, i) => i !== at + 1 && assignedNames(t).has(s.name))) return null;
    const names = loop.body.flatMap((t) => (t.kind === 'decl' ? [t.name] : []));
    const plain = loop.body.every((t) => (t.kind === 'decl' && t.mode === null) || (t.kind === 'assign' && t.name === s.name));
    // A name declared twice in the body, or the variable or counter declared there, fails or shadows: left bar by bar.
    return plain && new Set([...names, s.name, loop.counter]).size === names.length + 2 ? loop : null;
  }

  /** A declaration declared once and never assigned again: a constant, an input or a candidate. */
  mayBeCandidate(s: Stmt & { kind: 'decl' | 'tupledecl' }): boolean {
    const names = s.kind === 'decl' ? (s.mode === null ? [s.name] : []) : s.names;
    return names.length > 0 && names.every((name) => !this.assigned.has(name) && !this.seen.has(name));
  }

  /** Takes the next top-level statement, once its closure (and so its names' bindings) is made. */
  classify(s: Stmt): void {
    if (s.kind === 'decl') {
      const fresh = this.mayBeCandidate(s);
      const loop = fresh ? null : this.unitLoop(s);
      this.seen.add(s.name);
      if (loop && this.mayBeColumn(s.init)) {
        this.units.set(s.id, loop);
        this.names.add('d' + s.id);
      }
      if (!fresh) return;
      const isConstant = (e: Expr): boolean => constantExpr(e, this.host, this.constants);
      const init = s.init;
      const call = init.kind === 'call' && !this.host.funcs.has(init.callee) ? init : null;
      const b = call ? BUILTINS[call.callee] : undefined;
      const defval = call && (call.args[0] ?? call.named.defval);
      if (isConstant(init) || (b?.once && call!.args.every(isConstant) && Object.values(call!.named).every(isConstant)))
        this.constants.add(s.id);
      else if (b && defval && (call!.callee === 'input' || call!.callee === 'input.source')) this.aliases.set(s.id, defval);
      else if (this.mayBeColumn(init)) this.candidates.add(s.id);
      else return;
      this.names.add('d' + s.id);
    } else if (s.kind === 'tupledecl') {
      if (this.mayBeCandidate(s) && this.mayBeColumn(s.init)) {
        this.candidates.add(s.id);
        for (const k of this.host.localsOf(s.id, s.names.length)) this.names.add('l' + k);
      }
      s.names.forEach((name) => this.seen.add(name));
    }
  }

  /** Whether an expression of a top-level statement may be a column: worth a closure that tries. */
  mayBeColumn(e: Expr): boolean {
    if (e.kind === 'call' && !this.host.funcs.has(e.callee) && !PURE_BUILTINS.has(e.callee) && !SERIES_BUILTINS.has(e.callee)) return false;
    return readsOnly(e, this.host, (b) => this.names.has(keyOf(b)));
  }
}

/** The script's variables (by key) that its functions' bodies and defaults read. */
export function globalReads(funcs: ReadonlyMap<string, FuncDef>, binding: ColumnHost['binding']): Set<string> {
  const keys = new Set<string>();
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(walk);
    const e = node as Expr;
    if (e.kind === 'name') {
      const b = binding(e.id);
      if (b?.global) keys.add(keyOf(b));
    }
    Object.values(node).forEach(walk);
  };
  for (const fn of funcs.values()) walk([fn.body, fn.params]);
  return keys;
}

/**
 * Whether every variable of the script that `node` reads (through the functions it calls too)
 * passes `ok`. A function's own locals are made as it is called: only its reads of the script's
 * variables count.
 */
export function readsOnly(
  node: unknown,
  host: Pick<ColumnHost, 'binding' | 'funcs'>,
  ok: (b: Binding) => boolean,
  seen = new Set<string>(),
  inFunction = false,
): boolean {
  if (!node || typeof node !== 'object') return true;
  if (Array.isArray(node)) return node.every((x) => readsOnly(x, host, ok, seen, inFunction));
  const e = node as Expr;
  if (e.kind === 'name') {
    const b = host.binding(e.id);
    return !b || (inFunction && !b.global) || ok(b);
  }
  if (e.kind === 'call') {
    const fn = host.funcs.get(e.callee);
    if (fn && !seen.has(fn.name)) {
      seen.add(fn.name);
      if (!readsOnly(fn.body, host, ok, seen, true) || !readsOnly(fn.params, host, ok, seen, true)) return false;
    }
  }
  return Object.values(node).every((x) => readsOnly(x, host, ok, seen, inFunction));
}

/** Every name assigned with := (or +=…) anywhere in the script. */
function assignedNames(node: unknown, into = new Set<string>()): Set<string> {
  if (!node || typeof node !== 'object') return into;
  if (Array.isArray(node)) {
    for (const x of node) assignedNames(x, into);
    return into;
  }
  const s = node as { kind?: unknown; name?: unknown };
  if (s.kind === 'assign' && typeof s.name === 'string') into.add(s.name);
  for (const x of Object.values(node)) assignedNames(x, into);
  return into;
}

/** The same value on every bar, with nothing run that keeps state or has effects. */
export function constantExpr(e: Expr, host: StaticHost, constants: ReadonlySet<number>): boolean {
  const is = (x: Expr): boolean => constantExpr(x, host, constants);
  switch (e.kind) {
    case 'num':
    case 'str':
    case 'bool':
    case 'color':
    case 'na':
      return true;
    case 'name': {
      const b = host.binding(e.id);
      return b ? b.kind === 'decl' && constants.has(b.index) : host.isConstantName(e);
    }
    case 'unary':
      return is(e.operand);
    case 'binary':
      return is(e.left) && is(e.right);
    case 'ternary':
      return is(e.cond) && is(e.then) && is(e.else);
    case 'tuple':
      return e.items.every(is);
    case 'call':
      return !host.funcs.has(e.callee) && PURE_BUILTINS.has(e.callee) && e.args.every(is) && Object.values(e.named).every(is);
    default:
      return false;
  }
}

/** The branch an if/switch on constants takes on every bar, and the steps its tests count (gives up on a test that is no constant). */
export function constantBranch(
  s: Stmt & { kind: 'if' | 'switch' },
  host: StaticHost & Pick<ColumnHost, 'constant'>,
  constants: ReadonlySet<number>,
): { body: Stmt[] | null; steps: number } {
  const constant = (e: Expr) => (constantExpr(e, host, constants) ? host.constant(e) : giveUp());
  let steps = 0;
  if (s.kind === 'if') {
    for (const b of s.branches) {
      const c = constant(b.cond);
      steps += c.steps;
      if (truthy(c.value)) return { body: b.body, steps };
    }
    return { body: s.otherwise, steps };
  }
  const subject = s.subject ? constant(s.subject) : null;
  if (subject) steps += subject.steps;
  for (const c of s.cases) {
    if (c.match === null) return { body: c.body, steps };
    const m = constant(c.match);
    steps += m.steps;
    if (subject ? equal(m.value, subject.value) : truthy(m.value)) return { body: c.body, steps };
  }
  return { body: null, steps };
}
