/**
 * Runs a parsed Pine program bar by bar over our bars. Each AST node becomes, once, a closure of
 * ours holding its children's closures (user text is never turned into JavaScript source: the
 * closures are fixed code, the script only picks which run). Every variable is a series: its value per bar is kept, so `x[n]` reads n bars
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
import { methodBuiltin } from './methods.ts';
import { taVariable } from './ta.ts';
import { volumeVariable } from './ta-volume.ts';
import { isArray, isNa, NA, truthy, type Bars, type RunLimits, type Value } from './values.ts';

export { BUILTINS };

/** What a name node reads, resolved on its first read (by node id). */
const UNRESOLVED = 0;
const DECLARED = 1;
const FIELD = 2;
const CONSTANT = 3;
const OTHER = 4;

/** An expression node turned into a closure over its resolved parts (still interpretation: no JS text). */
type Compiled = (scope: Scope) => Value;
type CompiledStmt = (scope: Scope) => Flow;
/** A block's statements as closures, and whether it declares names (then it runs in a scope of its own). */
interface Block {
  run: CompiledStmt[];
  declares: boolean;
}

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
  return new Interpreter(program).run(bars, options);
}

const NO_BARS: Bars = { ts: new Float64Array(0), open: new Float64Array(0), high: new Float64Array(0), low: new Float64Array(0), close: new Float64Array(0), volume: new Float64Array(0) };
const emptyOut = (): Ctx['out'] => ({
  header: { title: '', kind: 'none', overlay: false },
  plots: new Map(),
  hlines: new Map(),
  signals: [],
  inputs: new Map(),
  position: { now: 0, pending: 0 },
});

/**
 * A program made ready to run (checked, its closures made as they are first needed) and run any
 * number of times, one run at a time, over any bars. The closures hold nothing of a run: what a
 * run reads and writes (bars, frames, outputs, budgets) lives on this object for that run only and
 * is dropped when it ends. Running the same script again therefore reuses closures V8 has already
 * optimised instead of compiling fresh ones (a new set per request kept its JIT busy on every run).
 */
export class Interpreter {
  private n = 0;
  private bar = 0;
  private steps = 0;
  private arrayElements = 0;
  /** Numbers each run: a `once` call site remembers the run its value belongs to. */
  private runNo = 0;
  private readonly funcs = new Map<string, FuncDef>();
  private root = new Frame();
  private frame = this.root;
  private globals = new Scope(null);
  /** The built-in call being made: its node id keys its state, its position locates its errors. */
  private siteId = 0;
  private sitePos: Pos = { line: 1, col: 1 };
  private target: string | null = null;
  /** The value of the last statement run (what an `if`/`switch`/function body gives back). */
  private last: Value = NA;
  private depth = 0;
  /** Local numbers given so far (parameters, tuple names, loop variables: see localSlot). */
  private locals = 0;
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
  /** This run's bar-field column per name node that reads one (by id), filled on first read. */
  private nameColumns: (Float64Array | undefined)[] = [];
  private readonly nameConstants: Value[] = [];
  /** This run's bar fields as whole columns, computed once on first use (hl2, hour… included). */
  private readonly columns = new Map<string, Float64Array>();
  private maxSteps = 0;
  private deadline = 0;
  private maxLoops = 0;
  private bars: Bars = NO_BARS;
  private options: RunOptions = { limits: { maxSteps: 0, deadlineMs: 0, maxLoopIterations: 0, maxArraySize: 0 }, timeframe: '', symbol: '', mintick: 0 };
  private readonly blocks = new WeakMap<Stmt[], Block>();
  private out: Ctx['out'] = emptyOut();
  private readonly body: Block;
  /** One object for every run (its getters read the run's values), so the built-ins see one shape. */
  private readonly ctx: Ctx;

  constructor(private readonly program: Program) {
    this.nameKinds = new Uint8Array(program.nodes + 1);
    this.nodeNames = new Int32Array(program.nodes + 1);
    const self = this;
    this.ctx = {
      get bar() {
        return self.bar;
      },
      get n() {
        return self.n;
      },
      get bars() {
        return self.bars;
      },
      get limits() {
        return self.options.limits;
      },
      get timeframe() {
        return self.options.timeframe;
      },
      get mintick() {
        return self.options.mintick;
      },
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
        const max = self.options.limits.maxArraySize * 10;
        if (self.arrayElements > max) throw pineError(self.sitePos, `arrays hold more than ${max} elements in all`);
      },
      get out() {
        return self.out;
      },
      get target() {
        return self.target;
      },
    };
    for (const s of program.body) {
      if (s.kind === 'func') {
        if (BUILTINS[s.name]) throw pineError(s, `'${s.name}' is a built-in and cannot be redefined`);
        this.funcs.set(s.name, s);
      }
    }
    for (const name of checkProgram(program, this.funcs)) this.declared.add(name);
    this.body = this.codeOf(program.body);
  }

  /** Runs the program over `bars`; nothing of an earlier run is seen, nothing of this one kept. */
  run(bars: Bars, options: RunOptions): RunResult {
    this.start(bars, options);
    try {
      const body = this.body;
      for (this.bar = 0; this.bar < this.n; this.bar++) {
        this.out.position.now = this.out.position.pending;
        this.globals.renew();
        this.frame = this.root;
        this.exec(body, this.globals);
      }
      const out = this.out;
      const plots: PlotOut[] = [...out.plots.values()].map(({ offset, ...p }) => (offset === 0 ? p : { ...p, values: shift(p.values, offset) }));
      return {
        title: out.header.title,
        kind: out.header.kind,
        overlay: out.header.overlay,
        plots,
        hlines: [...out.hlines.values()],
        signals: out.signals,
        inputs: [...out.inputs.values()],
        steps: this.steps,
      };
    } finally {
      this.start(NO_BARS, this.options);
    }
  }

  /** Everything a run reads or writes, fresh: the bars, budgets, frames, scopes, outputs. */
  private start(bars: Bars, options: RunOptions): void {
    this.runNo++;
    this.bars = bars;
    this.options = options;
    this.n = bars.close.length;
    this.maxSteps = options.limits.maxSteps;
    this.deadline = options.limits.deadlineMs;
    this.maxLoops = options.limits.maxLoopIterations;
    this.bar = 0;
    this.steps = 0;
    this.arrayElements = 0;
    this.root = this.frame = new Frame();
    this.globals = new Scope(null);
    this.siteId = 0;
    this.sitePos = { line: 1, col: 1 };
    this.target = null;
    this.last = NA;
    this.depth = 0;
    this.nameColumns = [];
    this.columns.clear();
    this.out = emptyOut();
  }

  /** Pine v6 semantics (a script without //@version runs as v5). */
  private get v6(): boolean {
    return this.program.version !== null && this.program.version >= 6;
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

  /** A block's statements as closures (made once per block), and whether it declares names. */
  private codeOf(stmts: Stmt[]): Block {
    let code = this.blocks.get(stmts);
    if (!code) {
      code = { run: [], declares: stmts.some((s) => s.kind === 'decl' || s.kind === 'tupledecl') };
      // Registered before its statements compile: a block never contains itself, but keep it cheap to ask.
      this.blocks.set(stmts, code);
      for (const s of stmts) code.run.push(this.stmtCode[s.id] ?? this.compileStmt(s));
    }
    return code;
  }

  /** Runs a block in `scope`; its last statement's value is left in `last`. */
  private exec(code: Block, scope: Scope): Flow {
    this.last = NA;
    const run = code.run;
    for (let i = 0; i < run.length; i++) {
      const flow = run[i]!(scope);
      if (flow) return flow;
    }
    return 0;
  }

  /** A scope for a block: a new one only when the block declares names (most bodies only assign). */
  private scopeFor(code: Block, scope: Scope, key: number): Scope {
    return code.declares ? this.blockScope(key, scope) : scope;
  }

  /**
   * The scope of a block that runs again and again (a loop body, an if branch), kept in the frame
   * by its statement's id and renewed on each entry: a new Scope each time allocated its name
   * arrays afresh, most of a run's garbage. Reuse is safe: a statement's blocks never run nested in
   * one frame (only one branch runs; iterations run one after another; a call runs in a frame of its own).
   */
  private blockScope(key: number, parent: Scope): Scope {
    const states = this.frame.states;
    let scope = states[key] as Scope | undefined;
    if (scope === undefined) states[key] = scope = new Scope(parent);
    return scope.reuse(parent);
  }

  /**
   * The closure of a statement, its parts compiled once (names resolved, children's closures held
   * directly). Every statement counts its step first, as the tree walk did: budgets and errors are
   * unchanged.
   */
  private compileStmt(s: Stmt): CompiledStmt {
    const f = this.stmtClosure(s);
    this.stmtCode[s.id] = f;
    return f;
  }

  private stmtClosure(s: Stmt): CompiledStmt {
    switch (s.kind) {
      case 'decl': {
        const name = this.nodeName(s, s.name);
        const init = this.c(s.init);
        const label = s.name;
        const redeclared = () => pineError(s, `'${label}' is already declared in this block; reassign it with ':='`);
        if (s.mode === null && !this.mayName(s.init)) {
          // Nothing in the value can take the declared name (no input.* or user call): evaluated directly.
          return (scope) => {
            this.tick(s);
            if (scope.has(name)) throw redeclared();
            const slot = this.declSlot(s.id, false);
            const v = init(scope);
            slot.put(this.bar, v);
            scope.set(name, slot);
            // The value itself, not read back from the slot (a number read back is boxed anew).
            this.last = v;
            return 0;
          };
        }
        if (s.mode === null) {
          return (scope) => {
            this.tick(s);
            if (scope.has(name)) throw redeclared();
            const slot = this.declSlot(s.id, false);
            const v = this.assigned(init, scope, label);
            slot.put(this.bar, v);
            scope.set(name, slot);
            this.last = v;
            return 0;
          };
        }
        return (scope) => {
          this.tick(s);
          if (scope.has(name)) throw redeclared();
          const slot = this.declSlot(s.id, true);
          // `var`: initialised once, then carried from bar to bar.
          if (!slot.inited) {
            slot.put(this.bar, this.assigned(init, scope, label));
            slot.inited = true;
          } else if (!slot.has(this.bar)) slot.put(this.bar, slot.get(this.bar - 1));
          scope.set(name, slot);
          this.last = slot.get(this.bar);
          return 0;
        };
      }
      case 'tupledecl': {
        const init = this.c(s.init);
        const names = s.names.map((n) => this.nameNumber(n));
        const locals = s.names.map(() => this.locals++);
        return (scope) => {
          this.tick(s);
          const v = init(scope);
          if (!Array.isArray(v) || v.length !== names.length) throw pineError(s, `the right-hand side gives ${Array.isArray(v) ? v.length : 1} value(s), ${names.length} names are declared`);
          for (let i = 0; i < names.length; i++) {
            const slot = this.localSlot(locals[i]!);
            slot.put(this.bar, v[i]!);
            scope.set(names[i]!, slot);
          }
          this.last = v;
          return 0;
        };
      }
      case 'assign': {
        const name = this.nodeName(s, s.name);
        const value = this.c(s.value);
        const op = s.op;
        return (scope) => {
          this.tick(s);
          const slot = scope.lookup(name);
          if (!slot) throw pineError(s, `'${s.name}' is assigned before it is declared; declare it with '=' first`);
          if (this.frame !== this.root && this.globals.get(name) === slot) {
            throw pineError(s, `a function cannot assign the global variable '${s.name}' (as in Pine); return the value instead`);
          }
          let v = value(scope);
          if (op !== ':=') {
            const cur = slot.get(this.bar);
            v = typeof cur === 'number' && typeof v === 'number' && op !== '/=' && op !== '%=' ? (op === '+=' ? cur + v : op === '-=' ? cur - v : cur * v) : arith(op[0]!, cur, v, s);
          }
          slot.put(this.bar, v);
          this.last = v;
          return 0;
        };
      }
      case 'expr': {
        const expr = this.c(s.expr);
        return (scope) => {
          this.tick(s);
          this.last = expr(scope);
          return 0;
        };
      }
      case 'break':
        return () => {
          this.tick(s);
          return BREAK;
        };
      case 'continue':
        return () => {
          this.tick(s);
          return CONTINUE;
        };
      case 'if':
      case 'switch': {
        const run = s.kind === 'if' ? this.ifRunner(s) : this.switchRunner(s);
        return (scope) => {
          this.tick(s);
          return run(scope);
        };
      }
      case 'for':
      case 'forin':
      case 'while': {
        const run = this.loopRunner(s);
        return (scope) => {
          this.tick(s);
          run(scope);
          return 0;
        };
      }
      case 'func':
        return () => {
          this.tick(s);
          return 0;
        };
    }
  }

  /** A declaration's variable in the current frame, by its node id. */
  private declSlot(id: number, isVar: boolean): Slot {
    return (this.frame.declSlots[id] ??= new Slot(this.n, isVar));
  }

  /** A parameter's, tuple name's or loop variable's variable in the current frame, by its local number. */
  private localSlot(k: number): Slot {
    return (this.frame.locals[k] ??= new Slot(this.n, false));
  }

  /** Whether evaluating `node` may call an input.* (which takes the declared name) or a user function (which may). */
  private mayName(node: unknown): boolean {
    if (!node || typeof node !== 'object') return false;
    if (Array.isArray(node)) return node.some((x) => this.mayName(x));
    const call = node as { kind?: unknown; callee?: unknown };
    if (call.kind === 'call' && typeof call.callee === 'string' && (call.callee === 'input' || call.callee.startsWith('input.') || this.funcs.has(call.callee))) return true;
    return Object.values(node).some((x) => this.mayName(x));
  }

  /** Evaluates a declaration's value with its name known (input.* calls take it as their title). */
  private assigned(init: Compiled, scope: Scope, name: string): Value {
    const before = this.target;
    this.target = name;
    try {
      return init(scope);
    } finally {
      this.target = before;
    }
  }

  private ifRunner(s: IfStmt): CompiledStmt {
    const branches = s.branches.map((b) => ({ cond: this.c(b.cond), body: this.codeOf(b.body) }));
    const otherwise = s.otherwise ? this.codeOf(s.otherwise) : null;
    return (scope) => {
      for (let i = 0; i < branches.length; i++) {
        const b = branches[i]!;
        if (truthy(b.cond(scope))) return this.exec(b.body, this.scopeFor(b.body, scope, s.id));
      }
      if (otherwise) return this.exec(otherwise, this.scopeFor(otherwise, scope, s.id));
      this.last = NA;
      return 0;
    };
  }

  private switchRunner(s: SwitchStmt): CompiledStmt {
    const subject = s.subject ? this.c(s.subject) : null;
    const cases = s.cases.map((c) => ({ match: c.match ? this.c(c.match) : null, body: this.codeOf(c.body) }));
    return (scope) => {
      const value = subject ? subject(scope) : undefined;
      for (let i = 0; i < cases.length; i++) {
        const c = cases[i]!;
        const hit = c.match === null || (subject ? equal(c.match(scope), value!) : truthy(c.match(scope)));
        if (hit) return this.exec(c.body, this.scopeFor(c.body, scope, s.id));
      }
      this.last = NA;
      return 0;
    };
  }

  /** A loop's runner; its value (for `x = for …`) is the last statement's of the last iteration. */
  private loopRunner(s: ForStmt | ForInStmt | WhileStmt): (scope: Scope) => Value {
    const body = this.codeOf(s.body);
    if (s.kind === 'for') {
      const fromC = this.c(s.from);
      const toC = this.c(s.to);
      const stepC = s.step ? this.c(s.step) : null;
      const counterName = this.nameNumber(s.counter);
      const counterLocal = this.locals++;
      return (scope) => {
        let iterations = 0;
        let value: Value = NA;
        const from = num(fromC(scope));
        const to = num(toC(scope));
        if (from !== from || to !== to) throw pineError(s, 'the bounds of a for loop are na');
        let step = stepC ? Math.abs(num(stepC(scope))) : 1;
        if (!(step > 0)) throw pineError(s, 'the step of a for loop must be positive');
        if (to < from) step = -step;
        const counter = this.localSlot(counterLocal);
        // A body that declares nothing shares one scope across iterations (only the counter lives in it).
        const shared = body.declares ? null : this.blockScope(s.id, scope);
        shared?.set(counterName, counter);
        for (let i = from; step > 0 ? i <= to : i >= to; i += step) {
          if (++iterations > this.maxLoops) throw this.overCap(s, this.maxLoops);
          counter.put(this.bar, i);
          let inner = shared;
          if (!inner) {
            inner = this.blockScope(s.id, scope);
            inner.set(counterName, counter);
          }
          const flow = this.exec(body, inner);
          value = this.last;
          if (flow === BREAK) break;
        }
        this.last = value;
        return value;
      };
    }
    if (s.kind === 'forin') {
      const iterable = this.c(s.iterable);
      const names = s.names.map((n) => this.nameNumber(n));
      const locals = s.names.map(() => this.locals++);
      return (scope) => {
        let iterations = 0;
        let value: Value = NA;
        const it = iterable(scope);
        if (!isArray(it)) throw pineError(s.iterable, 'for … in needs an array');
        const slots = locals.map((k) => this.localSlot(k));
        for (let i = 0; i < it.items.length; i++) {
          if (++iterations > this.maxLoops) throw this.overCap(s, this.maxLoops);
          const inner = this.blockScope(s.id, scope);
          if (names.length === 2) {
            slots[0]!.put(this.bar, i);
            slots[1]!.put(this.bar, it.items[i]!);
          } else slots[0]!.put(this.bar, it.items[i]!);
          for (let k = 0; k < names.length; k++) inner.set(names[k]!, slots[k]!);
          const flow = this.exec(body, inner);
          value = this.last;
          if (flow === BREAK) break;
        }
        this.last = value;
        return value;
      };
    }
    const cond = this.c(s.cond);
    return (scope) => {
      let iterations = 0;
      let value: Value = NA;
      while (truthy(cond(scope))) {
        if (++iterations > this.maxLoops) throw this.overCap(s, this.maxLoops);
        const flow = this.exec(body, this.scopeFor(body, scope, s.id));
        value = this.last;
        if (flow === BREAK) break;
      }
      this.last = value;
      return value;
    };
  }

  private overCap(s: Pos, cap: number): PineError {
    return pineError(s, `a loop ran more than ${cap} iterations on one bar; shorten it`);
  }

  /** An expression node's closure, made on first need (by node id). */
  private c(e: Expr): Compiled {
    return this.code[e.id] ?? this.compile(e);
  }

  /**
   * The closure of an expression node: what a tree walk would do, with what is known before the
   * run resolved once (a name's kind, a call's target and argument places, an operator) and its
   * children's closures held directly. Every closure counts its step first, as the walk did, so
   * budgets and errors are unchanged.
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
      case 'na':
        return () => {
          this.tick(e);
          return NA;
        };
      case 'name':
        return this.nameClosure(e);
      case 'call':
        return this.callClosure(e);
      case 'binary':
        return this.binaryClosure(e);
      case 'unary': {
        if (e.operand.kind === 'num' && e.op !== 'not') {
          // `-1`: a constant, still two steps.
          const v = e.op === '-' ? -e.operand.value : e.operand.value;
          return () => {
            this.tick(e);
            this.steps++;
            return v;
          };
        }
        const operand = this.c(e.operand);
        if (e.op === 'not') {
          return (scope) => {
            this.tick(e);
            return !truthy(operand(scope));
          };
        }
        const sign = e.op === '-' ? -1 : 1;
        return (scope) => {
          this.tick(e);
          return sign * num(operand(scope));
        };
      }
      case 'ternary': {
        const cond = this.c(e.cond);
        const then = this.c(e.then);
        const otherwise = this.c(e.else);
        return (scope) => {
          this.tick(e);
          return truthy(cond(scope)) ? then(scope) : otherwise(scope);
        };
      }
      case 'index':
        return this.indexClosure(e);
      case 'tuple': {
        const items = e.items.map((x) => this.c(x));
        return (scope) => {
          this.tick(e);
          return items.map((item) => item(scope));
        };
      }
      case 'if':
      case 'switch': {
        const run = e.kind === 'if' ? this.ifRunner(e.stmt) : this.switchRunner(e.stmt);
        return (scope) => {
          this.tick(e);
          run(scope);
          return this.last;
        };
      }
      case 'loop': {
        const run = this.loopRunner(e.stmt);
        return (scope) => {
          this.tick(e);
          return run(scope);
        };
      }
    }
  }

  /** `x[n]`: a name's value n bars back, or any other expression's, kept by bar at its node. */
  private indexClosure(e: Expr & { kind: 'index' }): Compiled {
    const { target } = e;
    const offsetC = this.c(e.offset);
    // TradingView takes an int-typed offset with a fractional value (len / 2) by its whole part, and
    // an na offset as 0 (x[na] is x): HalfTrend's high[math.abs(ta.highestbars(2))] relies on it.
    const back = (scope: Scope): number => {
      const offset = num(offsetC(scope));
      if (offset !== offset) return 0;
      const whole = Math.trunc(offset);
      if (whole < 0 || whole > 5000) throw pineError(e.offset, `a history reference is a whole number of bars from 0 to 5000, got ${offset}`);
      return whole;
    };
    // A name is read directly (it is not a step of its own).
    if (target.kind === 'name') {
      return (scope) => {
        this.tick(e);
        return this.name(target, scope, back(scope));
      };
    }
    const targetC = this.c(target);
    return (scope) => {
      this.tick(e);
      const offset = back(scope);
      // The expression runs on every bar, whatever the offset: its history must be complete.
      const v = targetC(scope);
      const states = this.frame.states;
      let hist = states[e.id] as Slot | undefined;
      if (!hist) states[e.id] = hist = new Slot(this.n, false);
      hist.put(this.bar, v);
      return hist.get(this.bar - offset);
    };
  }

  private nameClosure(e: Expr & { kind: 'name' }): Compiled {
    const kind = this.nameKinds[e.id] || this.resolveName(e);
    if (kind === FIELD) {
      return () => {
        this.tick(e);
        return (this.nameColumns[e.id] ?? this.fieldColumn(e))[this.bar]!;
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
    const user = this.funcs.get(e.callee);
    if (user) return this.userCallClosure(user, e);
    const b = BUILTINS[e.callee];
    if (!b) return this.methodCallClosure(e);
    // One argument array per call node, reused: a node never runs inside its own arguments, and
    // every call binds the same positions (built-ins copy what they keep).
    const a = new Array<Value>(b.params.length);
    const args = e.args.map((x) => this.c(x));
    const named = Object.entries(e.named).map(([k, expr]) => [b.params.indexOf(k), this.c(expr)] as const);
    let doneIn = 0;
    let value: Value = null;
    return (scope) => {
      this.tick(e);
      if (doneIn === this.runNo) return value;
      for (let i = 0; i < args.length; i++) a[i] = args[i]!(scope);
      for (let i = 0; i < named.length; i++) {
        const [at, expr] = named[i]!;
        const v = expr(scope);
        // −1: a parameter accepted and ignored.
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
        // Its value never changes in a run (header, hline, typed inputs): later calls skip it.
        doneIn = this.runNo;
        value = v;
      }
      return v;
    };
  }

  /** `a.push(x)`: the built-in of the receiver's kind (see methods.ts), the receiver its first argument. */
  private methodCallClosure(e: CallExpr): Compiled {
    const dot = e.callee.indexOf('.');
    const head = e.callee.slice(0, dot);
    const receiverName = this.nameNumber(head);
    const method = e.callee.slice(dot + 1);
    const args = e.args.map((x) => this.c(x));
    const named = Object.entries(e.named).map(([k, x]) => [k, this.c(x)] as const);
    return (scope) => {
      this.tick(e);
      const slot = scope.lookup(receiverName);
      if (!slot) throw pineError(e.calleePos, `unknown name '${head}': declare it before calling its methods`);
      const receiver = slot.get(this.bar);
      const b = methodBuiltin(receiver, method);
      if (!b) throw unsupported(e.calleePos, `method ${method}() on this value`, 'is not supported: methods are called on arrays and strings');
      const a = new Array<Value>(b.params.length);
      a[0] = receiver;
      for (let i = 0; i < args.length; i++) a[i + 1] = args[i]!(scope);
      for (const [k, x] of named) {
        const at = b.params.indexOf(k);
        if (at < 0) throw unsupported(e.named[k]!, `argument '${k}' of ${e.callee}()`);
        a[at] = x(scope);
      }
      const id = this.siteId;
      const pos = this.sitePos;
      this.siteId = e.id;
      this.sitePos = e.calleePos;
      try {
        return b.fn(this.ctx, a, e);
      } finally {
        this.siteId = id;
        this.sitePos = pos;
      }
    };
  }

  private binaryClosure(e: Expr & { kind: 'binary' }): Compiled {
    const { op } = e;
    if (op === '/' && !this.v6 && isIntLiteral(e.left) && isIntLiteral(e.right)) {
      // Pine v5 divides two int constants as integers (5 / 2 is 2); v6 gives the fraction.
      const q = intLiteral(e.right) === 0 ? NA : Math.trunc(intLiteral(e.left) / intLiteral(e.right));
      return () => {
        this.tick(e);
        this.steps += 2;
        return q;
      };
    }
    const l = this.c(e.left);
    const r = this.c(e.right);
    // Each operator its own closure: one shared helper calling `f(l, r)` would be a call site V8 cannot inline.
    // Pine v6 evaluates `and`/`or` lazily; v5 evaluates both sides on every bar, so a ta.* call on
    // the right keeps its history even when the left side decides.
    const lazy = this.v6;
    switch (op) {
      case 'and':
        if (!lazy) {
          return (scope) => {
            this.tick(e);
            const x = truthy(l(scope));
            return truthy(r(scope)) && x;
          };
        }
        return (scope) => {
          this.tick(e);
          return truthy(l(scope)) && truthy(r(scope));
        };
      case 'or':
        if (!lazy) {
          return (scope) => {
            this.tick(e);
            const x = truthy(l(scope));
            return truthy(r(scope)) || x;
          };
        }
        return (scope) => {
          this.tick(e);
          return truthy(l(scope)) || truthy(r(scope));
        };
      case '==':
        return (scope) => {
          this.tick(e);
          const x = l(scope);
          return equal(x, r(scope));
        };
      case '!=':
        return (scope) => {
          this.tick(e);
          const x = l(scope);
          const y = r(scope);
          return !isNa(x) && !isNa(y) && !equal(x, y);
        };
      case '<':
        return (scope) => {
          this.tick(e);
          const x = num(l(scope));
          return x < num(r(scope));
        };
      case '>':
        return (scope) => {
          this.tick(e);
          const x = num(l(scope));
          return x > num(r(scope));
        };
      case '<=':
        return (scope) => {
          this.tick(e);
          const x = num(l(scope));
          return x <= num(r(scope));
        };
      case '>=':
        return (scope) => {
          this.tick(e);
          const x = num(l(scope));
          return x >= num(r(scope));
        };
      // Two numbers take the short way; anything else goes through arith().
      case '+':
        return (scope) => {
          this.tick(e);
          const x = l(scope);
          const y = r(scope);
          return typeof x === 'number' && typeof y === 'number' ? x + y : arith(op, x, y, e);
        };
      case '-':
        return (scope) => {
          this.tick(e);
          const x = l(scope);
          const y = r(scope);
          return typeof x === 'number' && typeof y === 'number' ? x - y : arith(op, x, y, e);
        };
      case '*':
        return (scope) => {
          this.tick(e);
          const x = l(scope);
          const y = r(scope);
          return typeof x === 'number' && typeof y === 'number' ? x * y : arith(op, x, y, e);
        };
      default:
        return (scope) => {
          this.tick(e);
          const x = l(scope);
          return arith(op, x, r(scope), e);
        };
    }
  }

  /** A name's value `offset` bars back: a variable, a bar field, or a built-in variable/constant. */
  private name(e: Expr & { kind: 'name' }, scope: Scope, offset: number): Value {
    const j = this.bar - offset;
    let kind = this.nameKinds[e.id]!;
    if (kind === UNRESOLVED) kind = this.resolveName(e);
    if (kind === FIELD) return j < 0 ? NA : (this.nameColumns[e.id] ?? this.fieldColumn(e))[j]!;
    if (kind === DECLARED) {
      const slot = scope.lookup(this.nodeName(e, e.name));
      if (slot) return slot.get(j);
    } else if (kind === CONSTANT) return this.nameConstants[e.id]!;
    if (BAR_FIELDS.has(e.name)) return j < 0 ? NA : this.column(e.name)[j]!;
    const c = constant(e.name);
    if (c !== undefined) return c;
    if (OTHER_VARIABLES.has(e.name)) {
      if (offset > 0 && e.name.startsWith('ta.')) throw unsupported(e, `history of ${e.name}`, 'is not supported; assign it to a variable first');
      return this.variable(e, offset);
    }
    if (this.funcs.has(e.name) || BUILTINS[e.name]) throw pineError(e, `'${e.name}' is a function: call it with parentheses`);
    if (e.name === 'timenow') throw unsupported(e, "'timenow'", 'is not supported: it changes with the time of the request; use time or timestamp()');
    throw pineError(e, `unknown name '${e.name}': declare it before use or check the spelling`);
  }

  /** Once per name node: a declared name, else a bar field or a constant (known once), else anything else. */
  private resolveName(e: Expr & { kind: 'name' }): number {
    let kind = OTHER;
    if (this.declared.has(e.name)) kind = DECLARED;
    else if (BAR_FIELDS.has(e.name)) kind = FIELD;
    else {
      const c = constant(e.name);
      if (c !== undefined) {
        kind = CONSTANT;
        this.nameConstants[e.id] = c;
      }
    }
    this.nameKinds[e.id] = kind;
    return kind;
  }

  /** The column a bar-field name node reads in this run. */
  private fieldColumn(e: Expr & { kind: 'name' }): Float64Array {
    return (this.nameColumns[e.id] = this.column(e.name));
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
      case 'syminfo.root':
        return this.options.symbol;
      // Our symbols are six-letter pairs: base then quote currency (BTCUSD the one crypto).
      case 'syminfo.basecurrency':
        return this.options.symbol.slice(0, 3);
      case 'syminfo.currency':
        return this.options.symbol.slice(3);
      case 'syminfo.type':
        return this.options.symbol.startsWith('BTC') ? 'crypto' : 'forex';
      case 'syminfo.timezone':
        return 'Etc/UTC';
      case 'syminfo.pointvalue':
      case 'syminfo.minmove':
        return 1;
      case 'syminfo.pricescale':
        return Math.round(1 / this.options.mintick);
      case 'timeframe.period':
        return tf === '1h' ? '60' : tf.replace('min', '');
      case 'timeframe.multiplier':
        return tf === '1h' ? 60 : Number(tf.replace('min', ''));
      case 'timeframe.isintraday':
      case 'timeframe.isminutes':
        return true;
      case 'timeframe.isdwm':
      case 'timeframe.isticks':
      case 'timeframe.isseconds':
      case 'timeframe.isdaily':
      case 'timeframe.isweekly':
      case 'timeframe.ismonthly':
        return false;
      case 'strategy.position_size':
        return this.out.position.now;
    }
    if (e.name.startsWith('ta.')) {
      this.siteId = e.id;
      this.sitePos = e;
      return (taVariable(this.ctx, e.name) ?? volumeVariable(this.ctx, e.name))!;
    }
    return ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'].indexOf(e.name.slice(10)) + 1;
  }

  /**
   * A call of a user function: its arguments' places and its body compiled once. A wrong call is
   * found here but told only when it runs, where the tree walk would have told it.
   */
  private userCallClosure(fn: FuncDef, e: CallExpr): Compiled {
    const params = fn.params;
    let problem: PineError | null = null;
    if (e.args.length > params.length) problem = pineError(e.calleePos, `${fn.name}() takes ${params.length} arguments`);
    for (const k in e.named) if (!problem && !params.some((p) => p.name === k)) problem = pineError(e.named[k]!, `${fn.name}() has no parameter '${k}'`);
    const args: Compiled[] = [];
    for (const p of params) {
      const given = e.args[args.length] ?? e.named[p.name] ?? p.default;
      if (!given) {
        problem ??= pineError(e.calleePos, `${fn.name}() needs its argument '${p.name}'`);
        break;
      }
      args.push(this.c(given));
    }
    const names = params.map((p) => this.nameNumber(p.name));
    const locals = params.map(() => this.locals++);
    const body = this.codeOf(fn.body);
    const values = new Array<Value>(params.length);
    return (scope) => {
      this.tick(e);
      if (++this.depth > 100) throw pineError(e.calleePos, `calls nest deeper than 100 levels (recursion is not allowed in Pine)`);
      if (problem) throw problem;
      // Arguments are evaluated in the caller's frame and scope, before the callee's frame is entered.
      const given = this.depth === 1 ? values : new Array<Value>(params.length);
      for (let i = 0; i < args.length; i++) given[i] = args[i]!(scope);
      const parent = this.frame;
      const child = (parent.children[e.id] ??= new Frame());
      this.frame = child;
      try {
        const inner = (child.scope ??= new Scope(this.globals)).renew();
        for (let i = 0; i < names.length; i++) {
          const slot = this.localSlot(locals[i]!);
          slot.put(this.bar, given[i]!);
          inner.set(names[i]!, slot);
        }
        this.exec(body, inner);
        return this.last;
      } finally {
        this.frame = parent;
        this.depth--;
      }
    };
  }
}

/** An integer literal, signed or not (`2`, `-3`; not `2.0`). */
const isIntLiteral = (e: Expr): boolean => (e.kind === 'num' && e.int) || (e.kind === 'unary' && e.op !== 'not' && isIntLiteral(e.operand));
const intLiteral = (e: Expr): number => (e.kind === 'num' ? e.value : e.kind === 'unary' ? (e.op === '-' ? -intLiteral(e.operand) : intLiteral(e.operand)) : NaN);

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
