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
 * own), and the statement or part runs bar by bar as before: giving up is always safe. Which
 * statements are tried is the plan's (plan.ts); the operators on columns are elementwise.ts's.
 */
import { BUILTINS } from '../builtins/builtins.ts';
import type { Binding } from '../runtime/bindings.ts';
import { num, type CallExpr } from '../runtime/ctx.ts';
import { intLiteral, isIntLiteral, literalOffset } from '../runtime/operators.ts';
import { Frame } from '../runtime/slots.ts';
import type { Value } from '../runtime/values.ts';
import type { Expr, ForStmt, FuncDef, Stmt } from '../syntax/ast.ts';
import { at, giveUp, isCol, isTrue, sum, valueAt, type Argument, type Col, type Column, type Steps, type Tuple } from './col.ts';
import { arithmetic, binaryValues, choose, lazySteps, shifted, unaryValues } from './elementwise.ts';
import { keyOf, type ColumnHost, type NameExpr } from './host.ts';
import { builtinColumn } from './per-bar.ts';
import { constantBranch, constantExpr, PURE_BUILTINS, readsHistory, readsOnly, SERIES_BUILTINS, type ColumnPlan } from './plan.ts';

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
        if (++iterations > host.maxLoops || performance.now() > host.deadline) giveUp();
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
    const { v, bool } = unaryValues(e.op, x.v, this.host.n);
    return { v, bool, steps: sum(1, x.steps) };
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
    const v = new Float64Array(n);
    const bool = binaryValues(op, l.v, r.v, v);
    if (!lazy) return { v, bool, steps: sum(1, l.steps, r.steps) };
    return { v, bool, steps: lazySteps(op, l, r.steps, n) };
  }

  private ternary(e: Expr & { kind: 'ternary' }, sc: Scope, always: boolean): Col {
    const cond = this.col(this.expr(e.cond, sc, always));
    // Each branch runs on some bars only: nothing with state may be in it.
    const then = this.col(this.expr(e.then, sc, false));
    const otherwise = this.col(this.expr(e.else, sc, false));
    return choose(cond, then, otherwise, this.host.n);
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
    return { v: shifted(target.v, n, literal, offset ? offset.v : null), bool: target.bool, steps };
  }

  private call(e: CallExpr, sc: Scope, always: boolean): Column {
    const fn = this.host.funcs.get(e.callee);
    if (fn) return always ? this.userCall(fn, e, sc) : giveUp();
    const b = BUILTINS[e.callee];
    if (!b || !(PURE_BUILTINS.has(e.callee) || (always && SERIES_BUILTINS.has(e.callee)))) return giveUp();
    const args = e.args.map((x) => this.col(this.expr(x, sc, always)));
    const named = Object.entries(e.named).map(([k, x]) => [b.params.indexOf(k), this.col(this.expr(x, sc, always))] as const);
    const steps = sum(1, ...args.map((c) => c.steps), ...named.map(([, c]) => c.steps));
    return builtinColumn(this.host, b, e, sc.frame, args, named, steps);
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
    if (performance.now() > this.host.deadline) giveUp();
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
          const taken = constantBranch(s, this.host, this.plan.constants);
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
}
