/**
 * Runs a parsed Pine program bar by bar over our bars, walking the AST (user text is never turned
 * into JavaScript). Every variable is a series: its value per bar is kept, so `x[n]` reads n bars
 * back; `var` keeps its value from bar to bar; each call site of a user function has its own
 * variables and built-in state, as in Pine. Steps, loop iterations, array sizes and the wall clock
 * are budgeted; going over is a PineError naming the line:column.
 */
import type { Expr, ForInStmt, ForStmt, FuncDef, IfStmt, Program, Stmt, SwitchStmt, WhileStmt } from '../pine/ast.ts';
import { pineError, unsupported, type PineError, type Pos } from '../pine/errors.ts';
import { BAR_FIELDS, barField, OTHER_VARIABLES } from './bar-values.ts';
import { BUILTINS } from './builtins.ts';
import { checkProgram } from './check.ts';
import { constant } from './core.ts';
import { num, type Builtin, type CallExpr, type Ctx } from './ctx.ts';
import type { PlotOut, RunResult } from './outputs.ts';
import { Frame, Scope, Slot } from './slots.ts';
import { taVariable } from './ta.ts';
import { isArray, isNa, NA, truthy, type Bars, type RunLimits, type Value } from './values.ts';

export { BUILTINS };

/** What a name node reads, resolved on its first read (by node id). */
const UNRESOLVED = 0;
const DECLARED = 1;
const FIELD = 2;
const CONSTANT = 3;
const OTHER = 4;

interface CallPlan {
  user: FuncDef | null;
  builtin: Builtin | null;
  /** Where each named argument goes among the built-in's parameters (−1: accepted and ignored). */
  named: (readonly [number, Expr])[];
  args: Value[];
  /** A `once` built-in already called: its value, for every later call. */
  done: boolean;
  value: Value;
}

/** Slot key of the k-th name (k < 64) a statement declares besides its own (tuples, loop variables). */
const localKey = (id: number, k: number): number => -1000 - id * 64 - k;

/** An expression node turned into a closure over its resolved parts (still interpretation: no JS text). */
type Compiled = (scope: Scope) => Value;
type CompiledStmt = (scope: Scope) => Flow;

const BREAK = 1;
const CONTINUE = 2;
type Flow = 0 | typeof BREAK | typeof CONTINUE;

export interface RunOptions {
  limits: RunLimits;
  /** Timeframe label and minimum tick for timeframe.period and syminfo.mintick. */
  timeframe: string;
  symbol: string;
  mintick: number;
}

export function runProgram(program: Program, bars: Bars, options: RunOptions): RunResult {
  return new Interpreter(program, bars, options).run();
}

class Interpreter {
  private readonly n: number;
  private bar = 0;
  private steps = 0;
  private arrayElements = 0;
  private readonly funcs = new Map<string, FuncDef>();
  private readonly root = new Frame();
  private frame = this.root;
  private readonly globals = new Scope(null);
  /** The built-in call being made: its node id keys its state, its position locates its errors. */
  private siteId = 0;
  private sitePos: Pos = { line: 1, col: 1 };
  private target: string | null = null;
  /** The value of the last statement run (what an `if`/`switch`/function body gives back). */
  private last: Value = NA;
  private depth = 0;
  /** Each expression node as a closure (by node id), made on its first evaluation: see compile(). */
  private readonly code: (Compiled | undefined)[] = [];
  private readonly stmtCode: (CompiledStmt | undefined)[] = [];
  /** Every name the script declares anywhere: any other name is a built-in, resolved once per node. */
  private readonly declared = new Set<string>();
  /** Every distinct name's number (scopes index by it), and the number of each naming node's name (by id, +1). */
  private readonly nameNumbers = new Map<string, number>();
  private readonly nodeNames: Int32Array;
  /** Per name node (by id): what it reads; its bar-field column or its constant beside. */
  private readonly nameKinds: Uint8Array;
  private readonly nameColumns: (Float64Array | undefined)[] = [];
  private readonly nameConstants: Value[] = [];
  /** Bar fields as whole columns, computed once on first use (hl2, hour… included). */
  private readonly columns = new Map<string, Float64Array>();
  private readonly maxSteps: number;
  private readonly deadline: number;
  private readonly declaring = new WeakMap<Stmt[], boolean>();
  private readonly out: Ctx['out'] = {
    header: { title: '', kind: 'none', overlay: false },
    plots: new Map(),
    hlines: new Map(),
    signals: [],
    inputs: new Map(),
    position: { now: 0, pending: 0 },
  };
  private readonly ctx: Ctx;

  constructor(
    private readonly program: Program,
    private readonly bars: Bars,
    private readonly options: RunOptions,
  ) {
    this.n = bars.close.length;
    this.nameKinds = new Uint8Array(program.nodes + 1);
    this.nodeNames = new Int32Array(program.nodes + 1);
    this.maxSteps = options.limits.maxSteps;
    this.deadline = options.limits.deadlineMs;
    const self = this;
    this.ctx = {
      get bar() {
        return self.bar;
      },
      n: this.n,
      bars,
      limits: options.limits,
      state<T>(init: () => T): T {
        const states = self.frame.states;
        let s = states[self.siteId] as T | undefined;
        if (s === undefined) states[self.siteId] = s = init();
        return s;
      },
      fail(message: string, construct?: string): never {
        throw pineError(self.sitePos, message, construct);
      },
      grow(elements: number) {
        self.arrayElements += elements;
        if (self.arrayElements > options.limits.maxArraySize * 10) throw pineError(self.sitePos, `arrays hold more than ${options.limits.maxArraySize * 10} elements in all`);
      },
      out: this.out,
      get target() {
        return self.target;
      },
    };
  }

  run(): RunResult {
    for (const s of this.program.body) {
      if (s.kind === 'func') {
        if (BUILTINS[s.name]) throw pineError(s, `'${s.name}' is a built-in and cannot be redefined`);
        this.funcs.set(s.name, s);
      }
    }
    for (const name of checkProgram(this.program.body, this.funcs)) this.declared.add(name);
    for (this.bar = 0; this.bar < this.n; this.bar++) {
      this.out.position.now = this.out.position.pending;
      this.globals.renew();
      this.frame = this.root;
      this.block(this.program.body, this.globals);
    }
    const plots: PlotOut[] = [...this.out.plots.values()].map(({ offset, ...p }) => (offset === 0 ? p : { ...p, values: shift(p.values, offset) }));
    return {
      title: this.out.header.title,
      kind: this.out.header.kind,
      overlay: this.out.header.overlay,
      plots,
      hlines: [...this.out.hlines.values()],
      signals: this.out.signals,
      inputs: [...this.out.inputs.values()],
      steps: this.steps,
    };
  }

  private nameNumber(name: string): number {
    let k = this.nameNumbers.get(name);
    if (k === undefined) this.nameNumbers.set(name, (k = this.nameNumbers.size));
    return k;
  }

  /** The number of the name a node declares, assigns or reads, found once per node. */
  private nodeName(node: { id: number }, name: string): number {
    const k = this.nodeNames[node.id]!;
    if (k > 0) return k - 1;
    const n = this.nameNumber(name);
    this.nodeNames[node.id] = n + 1;
    return n;
  }

  private tick(pos: Pos): void {
    if (++this.steps > this.maxSteps) {
      throw pineError(pos, `the script ran more than ${this.maxSteps} steps (an endless or very long loop?); simplify it or shorten loops`);
    }
    if ((this.steps & 0xfff) === 0 && Date.now() > this.deadline) {
      throw pineError(pos, 'the script ran past its time limit (an endless or very long loop?); simplify it or shorten loops');
    }
  }

  private block(stmts: Stmt[], scope: Scope): Flow {
    this.last = NA;
    for (const s of stmts) {
      const flow = (this.stmtCode[s.id] ?? this.compileStmt(s))(scope);
      if (flow) return flow;
    }
    return 0;
  }

  /**
   * The closure of a statement: the commonest kinds (a plain declaration, an assignment, an
   * expression) with their name resolved once; any other runs through stmt(). Same steps, same errors.
   */
  private compileStmt(s: Stmt): CompiledStmt {
    let f: CompiledStmt;
    if (s.kind === 'decl' && s.mode === null) {
      const name = this.nodeName(s, s.name);
      f = (scope) => {
        this.tick(s);
        if (scope.has(name)) throw pineError(s, `'${s.name}' is already declared in this block; reassign it with ':='`);
        const slot = this.slot(s.id, false);
        slot.put(this.bar, this.evalAssigned(s.init, scope, s.name));
        scope.set(name, slot);
        this.last = slot.get(this.bar);
        return 0;
      };
    } else if (s.kind === 'assign') {
      const name = this.nodeName(s, s.name);
      const op = s.op;
      f = (scope) => {
        this.tick(s);
        const slot = scope.lookup(name);
        if (!slot) throw pineError(s, `'${s.name}' is assigned before it is declared; declare it with '=' first`);
        if (this.frame !== this.root && this.globals.get(name) === slot) {
          throw pineError(s, `a function cannot assign the global variable '${s.name}' (as in Pine); return the value instead`);
        }
        let v = this.eval(s.value, scope);
        if (op !== ':=') v = arith(op[0]!, slot.get(this.bar), v, s);
        slot.put(this.bar, v);
        this.last = v;
        return 0;
      };
    } else if (s.kind === 'expr') {
      f = (scope) => {
        this.tick(s);
        this.last = this.eval(s.expr, scope);
        return 0;
      };
    } else f = (scope) => this.stmt(s, scope);
    this.stmtCode[s.id] = f;
    return f;
  }

  private slot(key: number, isVar: boolean): Slot {
    if (key > 0) {
      const byId = this.frame.declSlots;
      return (byId[key] ??= new Slot(this.n, isVar));
    }
    let s = this.frame.slots.get(key);
    if (!s) this.frame.slots.set(key, (s = new Slot(this.n, isVar)));
    return s;
  }

  private stmt(s: Stmt, scope: Scope): Flow {
    this.tick(s);
    switch (s.kind) {
      case 'decl': {
        if (scope.has(this.nodeName(s, s.name))) throw pineError(s, `'${s.name}' is already declared in this block; reassign it with ':='`);
        const slot = this.slot(s.id, s.mode !== null);
        if (s.mode) {
          if (!slot.inited) {
            slot.put(this.bar, this.evalAssigned(s.init, scope, s.name));
            slot.inited = true;
          } else if (!slot.has(this.bar)) slot.put(this.bar, slot.get(this.bar - 1));
        } else slot.put(this.bar, this.evalAssigned(s.init, scope, s.name));
        scope.set(this.nodeName(s, s.name), slot);
        this.last = slot.get(this.bar);
        return 0;
      }
      case 'tupledecl': {
        const v = this.eval(s.init, scope);
        if (!Array.isArray(v) || v.length !== s.names.length) throw pineError(s, `the right-hand side gives ${Array.isArray(v) ? v.length : 1} value(s), ${s.names.length} names are declared`);
        s.names.forEach((name, i) => {
          const slot = this.slot(localKey(s.id, i), false);
          slot.put(this.bar, v[i]!);
          scope.set(this.nameNumber(name), slot);
        });
        this.last = v;
        return 0;
      }
      case 'assign': {
        const slot = scope.lookup(this.nodeName(s, s.name));
        if (!slot) throw pineError(s, `'${s.name}' is assigned before it is declared; declare it with '=' first`);
        if (this.frame !== this.root && this.globals.get(this.nodeName(s, s.name)) === slot) {
          throw pineError(s, `a function cannot assign the global variable '${s.name}' (as in Pine); return the value instead`);
        }
        let v = this.eval(s.value, scope);
        if (s.op !== ':=') {
          const cur = slot.get(this.bar);
          v = arith(s.op[0]!, cur, v, s);
        }
        slot.put(this.bar, v);
        this.last = v;
        return 0;
      }
      case 'expr':
        this.last = this.eval(s.expr, scope);
        return 0;
      case 'break':
        return BREAK;
      case 'continue':
        return CONTINUE;
      case 'if':
        return this.ifStmt(s, scope);
      case 'switch':
        return this.switchStmt(s, scope);
      case 'for':
      case 'forin':
      case 'while':
        this.loop(s, scope);
        return 0;
      case 'func':
        return 0;
    }
  }

  private evalAssigned(e: Expr, scope: Scope, name: string): Value {
    const before = this.target;
    this.target = name;
    try {
      return this.eval(e, scope);
    } finally {
      this.target = before;
    }
  }

  /** A scope for a block: a new one only when the block declares names (most bodies only assign). */
  private inner(stmts: Stmt[], scope: Scope): Scope {
    let declares = this.declaring.get(stmts);
    if (declares === undefined) this.declaring.set(stmts, (declares = stmts.some((s) => s.kind === 'decl' || s.kind === 'tupledecl')));
    return declares ? new Scope(scope) : scope;
  }

  private ifStmt(s: IfStmt, scope: Scope): Flow {
    for (const b of s.branches) {
      if (truthy(this.eval(b.cond, scope))) return this.block(b.body, this.inner(b.body, scope));
    }
    if (s.otherwise) return this.block(s.otherwise, this.inner(s.otherwise, scope));
    this.last = NA;
    return 0;
  }

  private switchStmt(s: SwitchStmt, scope: Scope): Flow {
    const subject = s.subject ? this.eval(s.subject, scope) : undefined;
    for (const c of s.cases) {
      const hit = c.match === null || (s.subject ? equal(this.eval(c.match, scope), subject!) : truthy(this.eval(c.match, scope)));
      if (hit) return this.block(c.body, this.inner(c.body, scope));
    }
    this.last = NA;
    return 0;
  }

  /** Runs a loop; its value (for `x = for …`) is the last statement's of the last iteration. */
  private loop(s: ForStmt | ForInStmt | WhileStmt, scope: Scope): Value {
    const cap = this.options.limits.maxLoopIterations;
    let iterations = 0;
    let value: Value = NA;
    if (s.kind === 'for') {
      const from = num(this.eval(s.from, scope));
      const to = num(this.eval(s.to, scope));
      if (from !== from || to !== to) throw pineError(s, 'the bounds of a for loop are na');
      let step = s.step ? Math.abs(num(this.eval(s.step, scope))) : 1;
      if (!(step > 0)) throw pineError(s, 'the step of a for loop must be positive');
      if (to < from) step = -step;
      const counter = this.slot(localKey(s.id, 63), false);
      // A body that declares nothing shares one scope across iterations (only the counter lives in it).
      const shared = this.inner(s.body, scope) === scope ? new Scope(scope) : null;
      shared?.set(this.nameNumber(s.counter), counter);
      for (let i = from; step > 0 ? i <= to : i >= to; i += step) {
        if (++iterations > cap) throw this.overCap(s, cap);
        counter.put(this.bar, i);
        let inner = shared;
        if (!inner) {
          inner = new Scope(scope);
          inner.set(this.nameNumber(s.counter), counter);
        }
        const flow = this.block(s.body, inner);
        value = this.last;
        if (flow === BREAK) break;
      }
    } else if (s.kind === 'forin') {
      const it = this.eval(s.iterable, scope);
      if (!isArray(it)) throw pineError(s.iterable, 'for … in needs an array');
      const slots = s.names.map((_, k) => this.slot(localKey(s.id, k), false));
      for (let i = 0; i < it.items.length; i++) {
        if (++iterations > cap) throw this.overCap(s, cap);
        const inner = new Scope(scope);
        if (s.names.length === 2) {
          slots[0]!.put(this.bar, i);
          slots[1]!.put(this.bar, it.items[i]!);
        } else slots[0]!.put(this.bar, it.items[i]!);
        for (let k = 0; k < s.names.length; k++) inner.set(this.nameNumber(s.names[k]!), slots[k]!);
        const flow = this.block(s.body, inner);
        value = this.last;
        if (flow === BREAK) break;
      }
    } else {
      while (truthy(this.eval(s.cond, scope))) {
        if (++iterations > cap) throw this.overCap(s, cap);
        const flow = this.block(s.body, this.inner(s.body, scope));
        value = this.last;
        if (flow === BREAK) break;
      }
    }
    this.last = value;
    return value;
  }

  private overCap(s: Pos, cap: number): PineError {
    return pineError(s, `a loop ran more than ${cap} iterations on one bar; shorten it`);
  }

  private eval(e: Expr, scope: Scope): Value {
    return (this.code[e.id] ?? this.compile(e))(scope);
  }

  /**
   * The closure of an expression node: what the tree walk would do, with what is known before the
   * run resolved once (a name's kind, a call's target and argument places, an operator). Every
   * closure counts its step first, as the walk does, so budgets and errors are unchanged.
   */
  private compile(e: Expr): Compiled {
    const f = this.closureOf(e);
    this.code[e.id] = f;
    return f;
  }

  private closureOf(e: Expr): Compiled {
    switch (e.kind) {
      case 'num':
      case 'str':
      case 'bool':
      case 'color': {
        const v = e.value;
        return () => {
          this.tick(e);
          return v;
        };
      }
      case 'name':
        return this.nameClosure(e);
      case 'call':
        return this.callClosure(e);
      case 'binary':
        return this.binaryClosure(e);
      case 'ternary': {
        const { cond, then, else: otherwise } = e;
        return (scope) => {
          this.tick(e);
          return truthy(this.eval(cond, scope)) ? this.eval(then, scope) : this.eval(otherwise, scope);
        };
      }
      case 'index': {
        const { target, offset } = e;
        if (target.kind !== 'name') break;
        // x[n] of a name: read n bars back (the name itself is not a step of its own, as in the walk).
        return (scope) => {
          this.tick(e);
          const back = num(this.eval(offset, scope));
          if (!Number.isInteger(back) || back < 0 || back > 5000) throw pineError(offset, `a history reference is a whole number of bars from 0 to 5000, got ${back}`);
          return this.name(target, scope, back);
        };
      }
    }
    return (scope) => this.walk(e, scope);
  }

  private nameClosure(e: Expr & { kind: 'name' }): Compiled {
    const kind = this.nameKinds[e.id] || this.resolveName(e);
    if (kind === FIELD) {
      const col = this.nameColumns[e.id]!;
      return () => {
        this.tick(e);
        return col[this.bar]!;
      };
    }
    if (kind === CONSTANT) {
      const v = this.nameConstants[e.id]!;
      return () => {
        this.tick(e);
        return v;
      };
    }
    if (kind === DECLARED) {
      const name = this.nodeName(e, e.name);
      return (scope) => {
        this.tick(e);
        const slot = scope.lookup(name);
        return slot ? slot.get(this.bar) : this.name(e, scope, 0);
      };
    }
    return (scope) => {
      this.tick(e);
      return this.name(e, scope, 0);
    };
  }

  private callClosure(e: CallExpr): Compiled {
    const plan = this.planCall(e);
    const user = plan.user;
    if (user) {
      return (scope) => {
        this.tick(e);
        return this.callUser(user, e, scope);
      };
    }
    const b = plan.builtin!;
    // One argument array per call node, reused: a node never runs inside its own arguments, and
    // every call binds the same positions (built-ins copy what they keep).
    const a = plan.args;
    const args = e.args;
    const named = plan.named;
    return (scope) => {
      this.tick(e);
      if (plan.done) return plan.value;
      for (let i = 0; i < args.length; i++) a[i] = this.eval(args[i]!, scope);
      for (let i = 0; i < named.length; i++) {
        const [at, expr] = named[i]!;
        const v = this.eval(expr, scope);
        if (at >= 0) a[at] = v;
      }
      const id = this.siteId;
      const pos = this.sitePos;
      this.siteId = e.id;
      this.sitePos = e.calleePos;
      const v = b.fn(this.ctx, a, e);
      this.siteId = id;
      this.sitePos = pos;
      if (b.once) {
        plan.done = true;
        plan.value = v;
      }
      return v;
    };
  }

  private binaryClosure(e: Expr & { kind: 'binary' }): Compiled {
    const { left, right, op } = e;
    const both = (f: (l: Value, r: Value) => Value): Compiled => (scope) => {
      this.tick(e);
      const l = this.eval(left, scope);
      return f(l, this.eval(right, scope));
    };
    switch (op) {
      case 'and':
        return (scope) => {
          this.tick(e);
          return truthy(this.eval(left, scope)) && truthy(this.eval(right, scope));
        };
      case 'or':
        return (scope) => {
          this.tick(e);
          return truthy(this.eval(left, scope)) || truthy(this.eval(right, scope));
        };
      case '==':
        return both(equal);
      case '!=':
        return both((l, r) => !isNa(l) && !isNa(r) && !equal(l, r));
      case '<':
        return both((l, r) => num(l) < num(r));
      case '>':
        return both((l, r) => num(l) > num(r));
      case '<=':
        return both((l, r) => num(l) <= num(r));
      case '>=':
        return both((l, r) => num(l) >= num(r));
      // Two numbers take the short way; anything else goes through arith() as before.
      case '+':
        return both((l, r) => (typeof l === 'number' && typeof r === 'number' ? l + r : arith(op, l, r, e)));
      case '-':
        return both((l, r) => (typeof l === 'number' && typeof r === 'number' ? l - r : arith(op, l, r, e)));
      case '*':
        return both((l, r) => (typeof l === 'number' && typeof r === 'number' ? l * r : arith(op, l, r, e)));
      default:
        return both((l, r) => arith(op, l, r, e));
    }
  }

  /** The tree walk, for the node kinds compile() leaves as they are. */
  private walk(e: Expr, scope: Scope): Value {
    this.tick(e);
    switch (e.kind) {
      case 'index': {
        const offset = num(this.eval(e.offset, scope));
        if (!Number.isInteger(offset) || offset < 0 || offset > 5000) throw pineError(e.offset, `a history reference is a whole number of bars from 0 to 5000, got ${offset}`);
        if (e.target.kind === 'name') return this.name(e.target, scope, offset);
        // Any other expression: evaluate it on this bar and keep its values by bar.
        const v = this.eval(e.target, scope);
        const states = this.frame.states;
        let hist = states[e.id] as Slot | undefined;
        if (!hist) states[e.id] = hist = new Slot(this.n, false);
        hist.put(this.bar, v);
        return hist.get(this.bar - offset);
      }
      case 'ternary':
        return truthy(this.eval(e.cond, scope)) ? this.eval(e.then, scope) : this.eval(e.else, scope);
      case 'unary': {
        const v = this.eval(e.operand, scope);
        if (e.op === 'not') return !truthy(v);
        return e.op === '-' ? -num(v) : num(v);
      }
      case 'na':
        return NA;
      case 'tuple':
        return e.items.map((x) => this.eval(x, scope));
      case 'if':
        this.ifStmt(e.stmt, scope);
        return this.last;
      case 'switch':
        this.switchStmt(e.stmt, scope);
        return this.last;
      case 'loop':
        return this.loop(e.stmt, scope);
      default:
        // Names, constants, calls and operators have their own closures (closureOf).
        throw new Error(`a ${e.kind} node is compiled, never walked`);
    }
  }

  /** A name's value `offset` bars back: a variable, a bar field, or a built-in variable/constant. */
  private name(e: Expr & { kind: 'name' }, scope: Scope, offset: number): Value {
    const j = this.bar - offset;
    let kind = this.nameKinds[e.id]!;
    if (kind === UNRESOLVED) kind = this.resolveName(e);
    if (kind === FIELD) return j < 0 ? NA : this.nameColumns[e.id]![j]!;
    if (kind === DECLARED) {
      const slot = scope.lookup(this.nodeName(e, e.name));
      if (slot) return slot.get(j);
    } else if (kind === CONSTANT) return this.nameConstants[e.id]!;
    if (BAR_FIELDS.has(e.name)) return j < 0 ? NA : this.column(e.name)[j]!;
    const c = constant(e.name);
    if (c !== undefined) return c;
    if (OTHER_VARIABLES.has(e.name)) {
      if (offset > 0 && (e.name === 'ta.tr' || e.name === 'ta.obv')) throw unsupported(e, `history of ${e.name}`, 'is not supported; assign it to a variable first');
      return this.variable(e, offset);
    }
    if (this.funcs.has(e.name) || BUILTINS[e.name]) throw pineError(e, `'${e.name}' is a function: call it with parentheses`);
    throw pineError(e, `unknown name '${e.name}': declare it before use or check the spelling`);
  }

  /** Once per name node: a declared name, else a bar field or a constant (known once), else anything else. */
  private resolveName(e: Expr & { kind: 'name' }): number {
    let kind = OTHER;
    if (this.declared.has(e.name)) kind = DECLARED;
    else if (BAR_FIELDS.has(e.name)) {
      kind = FIELD;
      this.nameColumns[e.id] = this.column(e.name);
    } else {
      const c = constant(e.name);
      if (c !== undefined) {
        kind = CONSTANT;
        this.nameConstants[e.id] = c;
      }
    }
    this.nameKinds[e.id] = kind;
    return kind;
  }

  /** A bar field's values on every bar (the same numbers barField gives bar by bar). */
  private column(name: string): Float64Array {
    let col = this.columns.get(name);
    if (!col) {
      col = new Float64Array(this.n);
      for (let j = 0; j < this.n; j++) col[j] = barField(this.bars, name, j) as number;
      this.columns.set(name, col);
    }
    return col;
  }

  private variable(e: Expr & { kind: 'name' }, offset: number): Value {
    const j = this.bar - offset;
    const tf = this.options.timeframe;
    switch (e.name) {
      case 'barstate.isfirst':
        return j === 0;
      case 'barstate.islast':
      case 'barstate.islastconfirmedhistory':
        return j === this.n - 1;
      case 'barstate.isconfirmed':
      case 'barstate.isnew':
      case 'barstate.ishistory':
        return true;
      case 'barstate.isrealtime':
        return false;
      case 'syminfo.mintick':
        return this.options.mintick;
      case 'syminfo.ticker':
      case 'syminfo.tickerid':
        return this.options.symbol;
      case 'timeframe.period':
        return tf === '1h' ? '60' : tf.replace('min', '');
      case 'timeframe.multiplier':
        return tf === '1h' ? 60 : Number(tf.replace('min', ''));
      case 'timeframe.isintraday':
      case 'timeframe.isminutes':
        return true;
      case 'timeframe.isseconds':
      case 'timeframe.isdaily':
      case 'timeframe.isweekly':
      case 'timeframe.ismonthly':
        return false;
      case 'strategy.position_size':
        return this.out.position.now;
      case 'ta.tr':
      case 'ta.obv': {
        this.siteId = e.id;
        this.sitePos = e;
        return taVariable(this.ctx, e.name)!;
      }
    }
    return ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'].indexOf(e.name.slice(10)) + 1;
  }

  /** What a call node calls, resolved once: a user function, or a built-in with its named arguments placed. */
  private planCall(e: CallExpr): CallPlan {
    const user = this.funcs.get(e.callee);
    if (user) return { user, builtin: null, named: [], args: [], done: false, value: null };
    const builtin = BUILTINS[e.callee]!;
    return {
      user: null,
      builtin,
      named: Object.entries(e.named).map(([k, expr]) => [builtin.params.indexOf(k), expr] as const),
      args: new Array<Value>(builtin.params.length),
      done: false,
      value: null,
    };
  }

  private callUser(fn: FuncDef, e: CallExpr, scope: Scope): Value {
    if (++this.depth > 100) throw pineError(e.calleePos, `calls nest deeper than 100 levels (recursion is not allowed in Pine)`);
    const params = fn.params;
    if (e.args.length > params.length) throw pineError(e.calleePos, `${fn.name}() takes ${params.length} arguments`);
    for (const k in e.named) if (!params.some((p) => p.name === k)) throw pineError(e.named[k]!, `${fn.name}() has no parameter '${k}'`);
    const args = new Array<Value>(params.length);
    for (let i = 0; i < params.length; i++) {
      const p = params[i]!;
      const given = e.args[i] ?? e.named[p.name];
      if (given) args[i] = this.eval(given, scope);
      else if (p.default) args[i] = this.eval(p.default, scope);
      else throw pineError(e.calleePos, `${fn.name}() needs its argument '${p.name}'`);
    }
    const parent = this.frame;
    let child = parent.children.get(e.id);
    if (!child) parent.children.set(e.id, (child = new Frame()));
    this.frame = child;
    try {
      const inner = (child.scope ??= new Scope(this.globals)).renew();
      for (let i = 0; i < params.length; i++) {
        const slot = this.slot(-1 - i, false);
        slot.put(this.bar, args[i]!);
        inner.set(this.nameNumber(params[i]!.name), slot);
      }
      this.block(fn.body, inner);
      return this.last;
    } finally {
      this.frame = parent;
      this.depth--;
    }
  }
}

function equal(a: Value, b: Value): boolean {
  if (isNa(a) || isNa(b)) return false;
  if (typeof a === 'number' || typeof b === 'number') return num(a) === num(b);
  return a === b;
}

function arith(op: string, l: Value, r: Value, pos: Pos): Value {
  if (op === '+' && (typeof l === 'string' || typeof r === 'string')) {
    if (l === null || r === null) return null;
    return `${typeof l === 'number' && l !== l ? 'NaN' : String(l)}${typeof r === 'number' && r !== r ? 'NaN' : String(r)}`;
  }
  if (typeof l === 'object' && l !== null) throw pineError(pos, `'${op}' needs numbers, got an array or tuple`);
  if (typeof r === 'object' && r !== null) throw pineError(pos, `'${op}' needs numbers, got an array or tuple`);
  const x = num(l);
  const y = num(r);
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      // Pine: division by zero is na.
      return y === 0 ? NA : x / y;
    case '%':
      return y === 0 ? NA : x % y;
  }
  throw pineError(pos, `unknown operator '${op}'`);
}

function shift(values: Float64Array, offset: number): Float64Array {
  const out = new Float64Array(values.length).fill(NaN);
  for (let i = 0; i < values.length; i++) {
    const j = i + offset;
    if (j >= 0 && j < values.length) out[j] = values[i]!;
  }
  return out;
}

export type { PineError };
