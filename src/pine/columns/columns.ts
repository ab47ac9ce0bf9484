/**
 * Column evaluation. Most of a real indicator is series that depend on nothing a bar's run
 * changes: bar fields, inputs, ta.* over them, arithmetic, user functions of those. Such a
 * top-level declaration is computed for every bar at once when the first bar reaches it, and so is
 * such a part of any other top-level statement (a plot's argument, an if's condition) when it is
 * first evaluated, and a top-level plot() of such series: the tree is walked once per run instead
 * of once per bar, and each bar then only reads the value (or nothing). The built-ins are the same
 * functions, called once per bar in bar order with their own per-call-site state, so the values
 * are the same numbers; every node's steps are counted as its closure counts them, so step counts
 * are the same too.
 *
 * Anything outside that subset, or any doubt (a value of another type, an error, a budget) gives
 * up before anything the bar-by-bar run sees was touched (built-in state lives in frames of its
 * own), and the statement or part runs bar by bar as before: giving up is always safe.
 */
import type { Expr, ForStmt, FuncDef, Program, Stmt } from '../syntax/ast.ts';
import type { Binding } from '../runtime/bindings.ts';
import { BUILTINS } from '../builtins/builtins.ts';
import { CORE } from '../builtins/core.ts';
import type { Builtin, CallExpr, Ctx } from '../runtime/ctx.ts';
import { divide, equal, historyOffset, intLiteral, isIntLiteral, literalOffset, remainder } from '../runtime/operators.ts';
import { PERCENTILES } from '../builtins/percentiles.ts';
import { Frame } from '../runtime/slots.ts';
import { TA } from '../builtins/ta.ts';
import { TA_OSCILLATORS } from '../builtins/ta-oscillators.ts';
import { TA_VOLUME } from '../builtins/ta-volume.ts';
import { TA_WINDOWS } from '../builtins/ta-windows.ts';
import { num } from '../runtime/ctx.ts';
import { truthy, type Value } from '../runtime/values.ts';

type NameExpr = Expr & { kind: 'name' };

/** Steps a node and its children count on each bar: one number when every bar counts the same. */
type Steps = number | Int32Array;

/** A series on every bar: numbers, or a bool series as 1/0 (NaN where it is na). */
export interface Col {
  v: Float64Array;
  bool: boolean;
  steps: Steps;
}
/** A tuple of series (`[a, b] = f()`). */
export interface Tuple {
  items: Col[];
  steps: Steps;
}
type Column = Col | Tuple;
/** An output call's argument: a column, a constant, or a value per bar (see ColumnRun.argument). */
type Argument = Col | { value: Value; steps: number } | { values: Value[]; steps: Int32Array };

/** A top-level statement made as columns: the steps each bar counts, and what a bar stores (null: its variables hold every bar already). */
export interface ColumnStatement {
  steps: Steps;
  store: ((bar: number) => void) | null;
}

/** Built-ins whose value depends on their arguments, the bars and their call site's state only. */
const SERIES_BUILTINS = new Set(
  [TA, TA_WINDOWS, TA_OSCILLATORS, TA_VOLUME, PERCENTILES].flatMap((t) => Object.keys(t)).filter((k) => k.startsWith('ta.') || k === 'math.sum'),
);
/** Built-ins with no state at all: they may run on bars where their branch is not taken. */
const PURE_BUILTINS = new Set(['nz', 'na', 'int', 'float', 'bool', 'color.new', 'color.rgb', ...Object.keys(CORE).filter((k) => k.startsWith('math.'))]);

/** What column evaluation reads of the interpreter. */
export interface ColumnHost {
  readonly n: number;
  readonly v6: boolean;
  readonly ctx: Ctx & { bar: number };
  readonly deadline: number;
  readonly maxSteps: number;
  readonly maxLoops: number;
  readonly funcs: ReadonlyMap<string, FuncDef>;
  binding(id: number): Binding | undefined;
  /** A name node that reads no variable: its bar field's column, its constant, or undefined for anything else. */
  leaf(e: NameExpr): Float64Array | { constant: Value } | undefined;
  /** Whether a name node that reads no variable names a constant (color.red, math.pi…). */
  isConstantName(e: NameExpr): boolean;
  localsOf(id: number, count: number): number[];
  /** A constant expression's value on the first bar, by its own closure, and the steps it counted. */
  constant(e: Expr): { value: Value; steps: number };
  /** The first bar's value of a top-level declaration, when it has run. */
  firstValue(declId: number): { value: Value } | undefined;
  /** Makes `e` the built-in call being made, its state kept in `frame`. */
  site(e: CallExpr, frame: Frame): void;
}

/** A variable's key in the columns made so far. */
const keyOf = (b: Binding): string => (b.kind === 'decl' ? 'd' : 'l') + b.index;
/** Whether `node` reads the history (`x[k]`) of one of these variables. */
function readsHistory(node: unknown, keys: ReadonlySet<string>, host: Pick<ColumnHost, 'binding'>): boolean {
  if (!node || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some((x) => readsHistory(x, keys, host));
  const e = node as Expr;
  if (e.kind === 'index' && e.target.kind === 'name') {
    const b = host.binding(e.target.id);
    if (b && keys.has(keyOf(b))) return true;
  }
  return Object.values(node).some((x) => readsHistory(x, keys, host));
}

type StaticHost = Pick<ColumnHost, 'binding' | 'isConstantName' | 'funcs' | 'localsOf'>;

const GIVE_UP = new Error('column evaluation gives up');
const giveUp = (): never => {
  throw GIVE_UP;
};

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
      if (isConstant(init) || (b?.once && call!.args.every(isConstant) && Object.values(call!.named).every(isConstant))) this.constants.add(s.id);
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
function readsOnly(node: unknown, host: Pick<ColumnHost, 'binding' | 'funcs'>, ok: (b: Binding) => boolean, seen = new Set<string>(), inFunction = false): boolean {
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
function constantExpr(e: Expr, host: StaticHost, constants: ReadonlySet<number>): boolean {
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

/** A function body's or the script's variables while columns are made: by binding, in a frame of column evaluation's own. */
interface Scope {
  cols: Map<string, Column>;
  frame: Frame;
  depth: number;
}

/** Makes the columns of one run's candidates; a new one per run. */
export class ColumnRun {
  private readonly top: Scope = { cols: new Map(), frame: new Frame(), depth: 0 };
  private readonly filled = new Map<number | string, Float64Array>();
  /**
   * Values made so far in this run (a node over every bar counts the bars). Each is at least a step
   * of the bar-by-bar run: past the step budget it gives up, and the bar-by-bar run tells the
   * budget where it runs out (a function calling itself twice, nested, would otherwise make columns
   * without end).
   */
  private made = 0;

  constructor(
    private readonly host: ColumnHost,
    private readonly plan: ColumnPlan,
  ) {}

  /** A top-level declaration's columns (one per name: a tuple's several), or null to run it bar by bar. */
  declaration(s: Stmt & { kind: 'decl' | 'tupledecl' }): Column | null {
    const c = this.attempt(s.init, true);
    if (!c) return null;
    if (s.kind === 'decl') {
      if (!isCol(c)) return null;
      this.top.cols.set('d' + s.id, c);
    } else {
      if (isCol(c) || c.items.length !== s.names.length) return null;
      this.host.localsOf(s.id, s.names.length).forEach((k, i) => this.top.cols.set('l' + k, c.items[i]!));
    }
    return c;
  }

  /**
   * A top-level expression's column (an argument of a plot, an if's condition, part of a value
   * that also reads what changes on a bar), or null. `always`: it runs on every bar; else it runs
   * on some and may hold nothing with state.
   */
  expression(e: Expr, always: boolean): Col | null {
    const c = this.attempt(e, always);
    return c && isCol(c) ? c : null;
  }

  /**
   * A top-level output call (plot) made for every bar at once: its arguments as columns or
   * constants, the built-in called per bar in bar order. Its steps, or null.
   */
  output(e: CallExpr): Steps | null {
    const b = BUILTINS[e.callee];
    const all = [...e.args, ...Object.values(e.named)];
    if (!b || b.once || !all.every((x) => readsOnly(x, this.host, this.known))) return null;
    // Nothing was drawn unless it ran on every bar: a plot's value per bar is set, not added.
    return this.making(() => {
      const ctx = this.host.ctx;
      const args = e.args.map((x) => this.argument(x));
      const named = Object.entries(e.named).map(([k, x]) => [b.params.indexOf(k), this.argument(x)] as const);
      const a = new Array<Value>(b.params.length);
      const valueOn = (c: Argument, i: number): Value => ('v' in c ? valueAt(c, i) : 'values' in c ? c.values[i]! : c.value);
      this.host.site(e, this.top.frame);
      for (let i = 0; i < this.host.n; i++) {
        for (let k = 0; k < args.length; k++) a[k] = valueOn(args[k]!, i);
        for (const [place, c] of named) if (place >= 0) a[place] = valueOn(c, i);
        ctx.bar = i;
        b.fn(ctx, a, e);
      }
      return sum(1, ...args.map((c) => c.steps), ...named.map(([, c]) => c.steps));
    });
  }

  /**
   * A declaration and the for loop right after it that alone changes it (`s = 0.0` then `for i = 0
   * to n` adding to s): the loop's bounds constants, its body declarations and assignments of the
   * variable, each iteration evaluated in turn on every bar at once. The variable's final column
   * and each statement's steps after its own, or null.
   */
  unit(d: Stmt & { kind: 'decl' }, loop: ForStmt): { value: Col; declSteps: Steps; loopSteps: Steps } | null {
    const { host } = this;
    const [counter] = host.localsOf(loop.id, 1) as [number];
    const own = new Set(['d' + d.id, 'l' + counter, ...loop.body.map((t) => 'd' + t.id)]);
    // The loop's own variables are read as they are on the bar (their history would be the bar's last value: not followed).
    if (readsHistory(loop.body, own, host) || !readsOnly([d.init, loop], host, (b) => own.has(keyOf(b)) || this.known(b))) return null;
    const cols = this.top.cols;
    const made = this.making(() => {
      const init = this.col(this.expr(d.init, this.top, true));
      const bound = (e: Expr | null) => (e === null ? null : constantExpr(e, host, this.plan.constants) ? host.constant(e) : giveUp());
      const [from, to, by] = [bound(loop.from)!, bound(loop.to)!, bound(loop.step)];
      // The loop's own rules (loopRunner): na bounds and a step that is not positive fail there.
      const first = num(from.value);
      const last = num(to.value);
      let step = by ? Math.abs(num(by.value)) : 1;
      if (first !== first || last !== last || !(step > 0)) giveUp();
      if (last < first) step = -step;
      let value = init;
      const parts: Steps[] = [from.steps, to.steps, by ? by.steps : 0];
      let iterations = 0;
      // The body runs several times a bar: nothing with state may be in it (its call sites' state
      // would be stepped by every iteration in turn, not bar by bar).
      for (let i = first; step > 0 ? i <= last : i >= last; i += step) {
        if (++iterations > host.maxLoops || Date.now() > host.deadline) giveUp();
        cols.set('l' + counter, this.fill(i, false, 0));
        cols.set('d' + d.id, value);
        for (const t of loop.body) {
          if (t.kind === 'decl') {
            const c = this.col(this.expr(t.init, this.top, false));
            cols.set('d' + t.id, c);
            parts.push(1, c.steps);
          } else if (t.kind === 'assign') {
            const c = this.col(this.expr(t.value, this.top, false));
            value = t.op === ':=' ? c : this.compound(t.op, value, c);
            cols.set('d' + d.id, value);
            parts.push(1, c.steps);
          } else giveUp();
        }
      }
      cols.set('d' + d.id, value);
      return { value, declSteps: init.steps, loopSteps: sum(...parts) };
    });
    if (!made) for (const key of own) cols.delete(key);
    return made;
  }

  /** `x += y` and the like on columns: the assignment's own arithmetic (numbers; a bool counts 1 or 0). */
  private compound(op: string, x: Col, y: Col): Col {
    const v = new Float64Array(this.host.n);
    if (op.length !== 2 || !arithmetic(op[0]!, x.v, y.v, v)) giveUp();
    return { v, bool: false, steps: 0 };
  }

  /**
   * An output call's argument on every bar: a column, a constant (a title, a style), or a choice
   * between two constants by a column (`color = x > 0 ? color.green : color.red`).
   */
  private argument(x: Expr): Argument {
    const { host } = this;
    const constant = (e: Expr) => constantExpr(e, host, this.plan.constants);
    if (constant(x)) return host.constant(x);
    if (x.kind !== 'ternary' || !constant(x.then) || !constant(x.else)) return this.col(this.expr(x, this.top, true));
    const cond = this.col(this.expr(x.cond, this.top, true));
    const [then, otherwise] = [host.constant(x.then), host.constant(x.else)];
    const values = new Array<Value>(host.n);
    const steps = new Int32Array(host.n);
    for (let i = 0; i < host.n; i++) {
      const taken = isTrue(cond.v[i]!) ? then : otherwise;
      values[i] = taken.value;
      steps[i] = 1 + at(cond.steps, i) + taken.steps;
    }
    return { values, steps };
  }

  /** Whether a variable is a column by now (or a constant or an input's). */
  private readonly known = (b: Binding): boolean =>
    this.top.cols.has(keyOf(b)) || (b.kind === 'decl' && (this.plan.constants.has(b.index) || this.plan.aliases.has(b.index)));

  private attempt(e: Expr, always: boolean): Column | null {
    // A cheap test before any built-in runs: the variables it reads are columns by now.
    return readsOnly(e, this.host, this.known) ? this.making(() => this.expr(e, this.top, always)) : null;
  }

  /**
   * Makes columns, or null if that gives up. Built-in state lives in a frame of the attempt's own,
   * dropped after: a failed attempt leaves nothing behind, and the bar-by-bar run starts clean.
   */
  private making<T>(make: () => T): T | null {
    const ctx = this.host.ctx;
    const bar = ctx.bar;
    this.top.frame = new Frame();
    try {
      return make();
    } catch {
      // Given up, or a built-in's error: the bar-by-bar run meets it on the bar it belongs to.
      return null;
    } finally {
      ctx.bar = bar;
    }
  }

  private col(c: Column): Col {
    return isCol(c) ? c : giveUp();
  }

  /** The same number on every bar (shared: columns are never written after they are made). */
  private fill(x: number, bool: boolean, steps: number): Col {
    const key = Object.is(x, -0) ? '-0' : x;
    let v = this.filled.get(key);
    if (!v) this.filled.set(key, (v = new Float64Array(this.host.n).fill(x)));
    return { v, bool, steps };
  }

  private constantCol(value: Value, steps: number): Col {
    if (typeof value === 'number') return this.fill(value, false, steps);
    if (typeof value === 'boolean') return this.fill(value ? 1 : 0, true, steps);
    return giveUp();
  }

  private expr(e: Expr, sc: Scope, always: boolean): Column {
    if ((this.made += this.host.n) > this.host.maxSteps) giveUp();
    switch (e.kind) {
      case 'num':
        return this.fill(e.value, false, 1);
      case 'bool':
        return this.fill(e.value ? 1 : 0, true, 1);
      case 'na':
        return this.fill(NaN, false, 1);
      case 'name': {
        const c = this.name(e, sc);
        return { v: c.v, bool: c.bool, steps: 1 };
      }
      case 'unary':
        return this.unary(e, sc, always);
      case 'binary':
        return this.binary(e, sc, always);
      case 'ternary':
        return this.ternary(e, sc, always);
      case 'index':
        return this.index(e, sc, always);
      case 'tuple': {
        const items = e.items.map((x) => this.col(this.expr(x, sc, always)));
        return { items, steps: sum(1, ...items.map((c) => c.steps)) };
      }
      case 'call':
        return this.call(e, sc, always);
      default:
        return giveUp();
    }
  }

  /** A variable's, bar field's or constant's column (its read's step is counted by the caller). */
  private name(e: NameExpr, sc: Scope): Col {
    const b = this.host.binding(e.id);
    if (!b) {
      const leaf = this.host.leaf(e);
      if (leaf instanceof Float64Array) return { v: leaf, bool: false, steps: 0 };
      return leaf ? this.constantCol(leaf.constant, 0) : giveUp();
    }
    // A function body reads the script's own variables (global), the script reads its own.
    const scope = b.global ? this.top : sc;
    const key = keyOf(b);
    const known = scope.cols.get(key);
    if (known) return this.col(known);
    if (scope !== this.top || b.kind !== 'decl') return giveUp();
    let c: Col;
    if (this.plan.constants.has(b.index)) {
      const first = this.host.firstValue(b.index);
      c = first ? this.constantCol(first.value, 0) : giveUp();
    } else {
      const alias = this.plan.aliases.get(b.index);
      // The input itself is recorded bar by bar; its value is its default's on every bar.
      c = alias && this.host.firstValue(b.index) ? this.col(this.expr(alias, this.top, true)) : giveUp();
    }
    this.top.cols.set(key, c);
    return c;
  }

  private unary(e: Expr & { kind: 'unary' }, sc: Scope, always: boolean): Col {
    if (e.operand.kind === 'num' && e.op !== 'not') return this.fill(e.op === '-' ? -e.operand.value : e.operand.value, false, 2);
    const x = this.col(this.expr(e.operand, sc, always));
    const n = this.host.n;
    const v = new Float64Array(n);
    if (e.op === 'not') {
      for (let i = 0; i < n; i++) v[i] = isTrue(x.v[i]!) ? 0 : 1;
      return { v, bool: true, steps: sum(1, x.steps) };
    }
    const sign = e.op === '-' ? -1 : 1;
    for (let i = 0; i < n; i++) v[i] = sign * x.v[i]!;
    return { v, bool: false, steps: sum(1, x.steps) };
  }

  private binary(e: Expr & { kind: 'binary' }, sc: Scope, always: boolean): Col {
    const { op } = e;
    if (op === '/' && !this.host.v6 && isIntLiteral(e.left) && isIntLiteral(e.right)) {
      const d = intLiteral(e.right);
      return this.fill(d === 0 ? NaN : Math.trunc(intLiteral(e.left) / d), false, 3);
    }
    const l = this.col(this.expr(e.left, sc, always));
    // Pine v6 evaluates `and`/`or` lazily: the right side runs on some bars only.
    const lazy = this.host.v6 && (op === 'and' || op === 'or');
    const r = this.col(this.expr(e.right, sc, always && !lazy));
    const n = this.host.n;
    const x = l.v;
    const y = r.v;
    const v = new Float64Array(n);
    let bool = true;
    switch (op) {
      case 'and':
        for (let i = 0; i < n; i++) v[i] = isTrue(x[i]!) && isTrue(y[i]!) ? 1 : 0;
        break;
      case 'or':
        for (let i = 0; i < n; i++) v[i] = isTrue(x[i]!) || isTrue(y[i]!) ? 1 : 0;
        break;
      // NaN equals nothing and na is NaN here, so `==` on numbers is the comparison itself.
      case '==':
        for (let i = 0; i < n; i++) v[i] = x[i] === y[i] ? 1 : 0;
        break;
      case '!=':
        for (let i = 0; i < n; i++) v[i] = x[i] === x[i] && y[i] === y[i] && x[i] !== y[i] ? 1 : 0;
        break;
      case '<':
        for (let i = 0; i < n; i++) v[i] = x[i]! < y[i]! ? 1 : 0;
        break;
      case '>':
        for (let i = 0; i < n; i++) v[i] = x[i]! > y[i]! ? 1 : 0;
        break;
      case '<=':
        for (let i = 0; i < n; i++) v[i] = x[i]! <= y[i]! ? 1 : 0;
        break;
      case '>=':
        for (let i = 0; i < n; i++) v[i] = x[i]! >= y[i]! ? 1 : 0;
        break;
      default:
        bool = false;
        if (!arithmetic(op, x, y, v)) giveUp();
    }
    if (!lazy) return { v, bool, steps: sum(1, l.steps, r.steps) };
    // The right side's steps count on the bars it runs: where the left does not decide.
    const steps = new Int32Array(n);
    for (let i = 0; i < n; i++) steps[i] = 1 + at(l.steps, i) + (isTrue(x[i]!) === (op === 'and') ? at(r.steps, i) : 0);
    return { v, bool, steps };
  }

  private ternary(e: Expr & { kind: 'ternary' }, sc: Scope, always: boolean): Col {
    const cond = this.col(this.expr(e.cond, sc, always));
    // Each branch runs on some bars only: nothing with state may be in it.
    const then = this.col(this.expr(e.then, sc, false));
    const otherwise = this.col(this.expr(e.else, sc, false));
    const n = this.host.n;
    const v = new Float64Array(n);
    const steps = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const taken = isTrue(cond.v[i]!) ? then : otherwise;
      v[i] = taken.v[i]!;
      steps[i] = 1 + at(cond.steps, i) + at(taken.steps, i);
    }
    // A bool branch and an na one make a bool series with na; a bool and a number do not mix.
    let bool = then.bool;
    if (then.bool !== otherwise.bool) {
      const numbers = then.bool ? otherwise : then;
      if (numbers.v.some((x) => x === x)) return giveUp();
      bool = true;
    }
    return { v, bool, steps };
  }

  /** `x[k]`: the column shifted k bars (na before the first bar). */
  private index(e: Expr & { kind: 'index' }, sc: Scope, always: boolean): Col {
    const n = this.host.n;
    const literal = literalOffset(e.offset);
    const offset = literal === null ? this.col(this.expr(e.offset, sc, always)) : null;
    let target: Col;
    let steps: Steps;
    if (e.target.kind === 'name') {
      // A name is read directly: its read is no step of its own.
      target = this.name(e.target, sc);
      steps = sum(1, offset ? offset.steps : 1);
    } else {
      // History kept per bar at the node: it must run on every bar to be the same.
      if (!always) giveUp();
      target = this.col(this.expr(e.target, sc, always));
      steps = sum(1, offset ? offset.steps : 1, target.steps);
    }
    const v = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const back = literal ?? historyOffset(offset!.v[i]!);
      if (back !== back) giveUp();
      const j = i - back;
      v[i] = j < 0 ? NaN : target.v[j]!;
    }
    return { v, bool: target.bool, steps };
  }

  private call(e: CallExpr, sc: Scope, always: boolean): Column {
    const fn = this.host.funcs.get(e.callee);
    if (fn) return always ? this.userCall(fn, e, sc) : giveUp();
    const b = BUILTINS[e.callee];
    if (!b || !(PURE_BUILTINS.has(e.callee) || (always && SERIES_BUILTINS.has(e.callee)))) return giveUp();
    const args = e.args.map((x) => this.col(this.expr(x, sc, always)));
    const named = Object.entries(e.named).map(([k, x]) => [b.params.indexOf(k), this.col(this.expr(x, sc, always))] as const);
    const steps = sum(1, ...args.map((c) => c.steps), ...named.map(([, c]) => c.steps));
    return this.builtin(b, e, sc.frame, args, named, steps);
  }

  /** A built-in run on every bar in order, as the bar-by-bar run calls it, with its state in `frame`. */
  private builtin(b: Builtin, e: CallExpr, frame: Frame, args: Col[], named: (readonly [number, Col])[], steps: Steps): Column {
    const { host } = this;
    const n = host.n;
    const ctx = host.ctx;
    const a = new Array<Value>(b.params.length);
    const v = new Float64Array(n);
    let items: Float64Array[] | null = null;
    let bools = false;
    let numbers = false;
    host.site(e, frame);
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < args.length; k++) a[k] = valueAt(args[k]!, i);
      for (let k = 0; k < named.length; k++) {
        const [place, c] = named[k]!;
        if (place >= 0) a[place] = valueAt(c, i);
      }
      ctx.bar = i;
      const r = b.fn(ctx, a, e);
      if (typeof r === 'number') {
        if (items) giveUp();
        v[i] = r;
        numbers ||= r === r;
      } else if (typeof r === 'boolean') {
        if (items) giveUp();
        v[i] = r ? 1 : 0;
        bools = true;
      } else if (Array.isArray(r) && (items !== null || i === 0)) {
        items ??= r.map(() => new Float64Array(n));
        if (r.length !== items.length) giveUp();
        for (let k = 0; k < r.length; k++) {
          const x = r[k];
          items[k]![i] = typeof x === 'number' ? x : giveUp();
        }
      } else giveUp();
    }
    if (Date.now() > host.deadline) giveUp();
    if (items) return { items: items.map((x) => ({ v: x, bool: false, steps: 0 })), steps };
    if (bools && numbers) giveUp();
    return { v, bool: bools, steps };
  }

  /** A user function's call inlined: its body's columns in a scope and frame of its own, its value the last statement's. */
  private userCall(fn: FuncDef, e: CallExpr, sc: Scope): Column {
    const params = fn.params;
    // Too deep (recursion) or a wrong call: the bar-by-bar run tells it where it happens.
    if (sc.depth >= 100 || e.args.length > params.length || Object.keys(e.named).some((k) => !params.some((p) => p.name === k))) giveUp();
    const args = params.map((p, i) => {
      const given = e.args[i] ?? e.named[p.name] ?? p.default ?? giveUp();
      // A default's nodes are shared by every call made from one frame: with state it would be run twice a bar.
      return this.col(this.expr(given, sc, given !== p.default));
    });
    if (Date.now() > this.host.deadline) giveUp();
    const frame = (sc.frame.children[e.id] ??= new Frame());
    const inner: Scope = { cols: new Map(), frame, depth: sc.depth + 1 };
    this.host.localsOf(fn.id, params.length).forEach((k, i) => inner.cols.set('l' + k, args[i]!));
    // The parameters are names of the body's own block: declaring one again there is an error.
    const body = this.block(fn.body, inner, new Set(params.map((p) => p.name)));
    const steps = sum(1, ...args.map((c) => c.steps), body.steps);
    return isCol(body.last) ? { v: body.last.v, bool: body.last.bool, steps } : { items: body.last.items, steps };
  }

  /** A function body's block: declarations, expressions, and if/switch on constants. */
  private block(stmts: Stmt[], sc: Scope, declared = new Set<string>()): { last: Column; steps: Steps } {
    let last: Column = this.fill(NaN, false, 0);
    const parts: Steps[] = [];
    for (const s of stmts) {
      switch (s.kind) {
        case 'decl': {
          if (s.mode !== null || declared.has(s.name)) giveUp();
          declared.add(s.name);
          const c = this.col(this.expr(s.init, sc, true));
          sc.cols.set('d' + s.id, c);
          parts.push(1, c.steps);
          last = c;
          break;
        }
        case 'tupledecl': {
          const c = this.expr(s.init, sc, true);
          if (isCol(c) || c.items.length !== s.names.length) giveUp();
          const t = c as Tuple;
          s.names.forEach((name) => declared.add(name));
          this.host.localsOf(s.id, s.names.length).forEach((k, i) => sc.cols.set('l' + k, t.items[i]!));
          parts.push(1, t.steps);
          last = t;
          break;
        }
        case 'expr': {
          const c = this.expr(s.expr, sc, true);
          parts.push(1, c.steps);
          last = c;
          break;
        }
        case 'if':
        case 'switch': {
          const taken = this.branch(s);
          parts.push(1, taken.steps);
          if (taken.body) {
            const inner = this.block(taken.body, sc);
            parts.push(inner.steps);
            last = inner.last;
          } else last = this.fill(NaN, false, 0);
          break;
        }
        default:
          giveUp();
      }
    }
    return { last, steps: sum(...parts) };
  }

  /** The branch an if/switch on constants takes on every bar, and the steps its tests count. */
  private branch(s: Stmt & { kind: 'if' | 'switch' }): { body: Stmt[] | null; steps: number } {
    const constant = (e: Expr) => (constantExpr(e, this.host, this.plan.constants) ? this.host.constant(e) : giveUp());
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
}

const isCol = (c: Column): c is Col => 'v' in c;

/** `x op y` on every bar into `v`, by Pine's rules (division by zero is na); false for an operator it does not know. */
function arithmetic(op: string, x: Float64Array, y: Float64Array, v: Float64Array): boolean {
  const n = v.length;
  if (op === '+') for (let i = 0; i < n; i++) v[i] = x[i]! + y[i]!;
  else if (op === '-') for (let i = 0; i < n; i++) v[i] = x[i]! - y[i]!;
  else if (op === '*') for (let i = 0; i < n; i++) v[i] = x[i]! * y[i]!;
  else if (op === '/') for (let i = 0; i < n; i++) v[i] = divide(x[i]!, y[i]!);
  else if (op === '%') for (let i = 0; i < n; i++) v[i] = remainder(x[i]!, y[i]!);
  else return false;
  return true;
}

/** Pine's truth of a number or a bool as 1/0: na (NaN) and 0 are false. */
const isTrue = (x: number): boolean => x === x && x !== 0;

/** The value a bar-by-bar closure would give on bar i: a bool series gives booleans (and NaN for na). */
export const valueAt = (c: Col, i: number): Value => {
  const x = c.v[i]!;
  return c.bool && x === x ? x === 1 : x;
};

export const at = (steps: Steps, i: number): number => (typeof steps === 'number' ? steps : steps[i]!);

function sum(...parts: Steps[]): Steps {
  let total = 0;
  let perBar: Int32Array | null = null;
  for (const p of parts) {
    if (typeof p === 'number') total += p;
    else if (!perBar) perBar = Int32Array.from(p);
    else for (let i = 0; i < p.length; i++) perBar[i]! += p[i]!;
  }
  if (!perBar) return total;
  if (total) for (let i = 0; i < perBar.length; i++) perBar[i]! += total;
  return perBar;
}
