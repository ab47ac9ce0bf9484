/**
 * Runs a parsed Pine program bar by bar over our bars. Each AST node becomes, once, a closure of
 * ours holding its children's closures (user text is never turned into JavaScript source: the
 * closures are fixed code, the script only picks which run). Every variable is a series: its value per bar is kept, so `x[n]` reads n bars
 * back; `var` keeps its value from bar to bar; each call site of a user function has its own
 * variables and built-in state, as in Pine. Steps, loop iterations, array sizes and the wall clock
 * are budgeted; going over is a PineError naming the line:column.
 */
import type { Expr, ForInStmt, ForStmt, FuncDef, IfStmt, Program, Stmt, SwitchStmt, WhileStmt } from '../syntax/ast.ts';
import { pineError, unsupported, type PineError, type Pos } from '../syntax/errors.ts';
import { BAR_FIELDS, barField, OTHER_VARIABLES } from '../builtins/bar-values.ts';
import { BUILTINS } from '../builtins/builtins.ts';
import { checkProgram } from '../check/check.ts';
import { at, ColumnPlan, ColumnRun, globalReads, valueAt, type Col, type ColumnHost, type ColumnStatement } from '../columns/columns.ts';
import { constant } from '../builtins/core.ts';
import { num, type Builtin, type CallExpr, type Ctx } from '../runtime/ctx.ts';
import type { PlotOut, RunResult } from '../runtime/outputs.ts';
import { Env, type Binding } from '../runtime/bindings.ts';
import { Frame, Slot } from '../runtime/slots.ts';
import { methodBuiltin } from '../builtins/methods.ts';
import { arith, equal, historyOffset, intLiteral, isIntLiteral, literalOffset } from '../runtime/operators.ts';
import { taVariable } from '../builtins/ta.ts';
import { volumeVariable } from '../builtins/ta-volume.ts';
import { isArray, isNa, NA, truthy, type Bars, type RunLimits, type Value } from '../runtime/values.ts';

export { BUILTINS };

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** What a name node reads that is not a variable of the script, resolved when its closure is made (by node id). */
const FIELD = 1;
const CONSTANT = 2;
const OTHER = 3;

/** An expression node turned into a closure over its resolved parts (still interpretation: no JS text). */
type Compiled = () => Value;
type CompiledStmt = () => Flow;
/** A block's statements as closures. */
interface Block {
  run: CompiledStmt[];
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
  /** The built-in call being made: its node id keys its state, its position locates its errors. */
  private siteId = 0;
  private sitePos: Pos = { line: 1, col: 1 };
  /** The value of the last statement run (what an `if`/`switch`/function body gives back). */
  private last: Value = NA;
  private depth = 0;
  /** Local numbers given so far (parameters, tuple names, loop variables: see localSlot). */
  private locals = 0;
  /** The local numbers of each top-level tuple's names and each function's parameters (by node id), given once. */
  private readonly localNumbers = new Map<number, number[]>();
  /** The block being made into closures, with what it has declared so far. */
  private env = new Env(null);
  /** The script's own block's names (its top-level statements run on every bar). */
  private readonly topEnv = this.env;
  /** The script's top-level variables by name, as a function body sees them. */
  private readonly topLevel = new Map<string, Binding>();
  /** The variable of each name node that reads one (by id), bound when its closure is made. */
  private readonly bindings: (Binding | undefined)[] = [];
  /** Each expression node as a closure (by node id), made on its first evaluation: see compile(). */
  private readonly code: (Compiled | undefined)[] = [];
  private readonly stmtCode: (CompiledStmt | undefined)[] = [];
  /** Per name node that is no variable of the script (by id): what it reads; its bar-field column or its constant beside. */
  private readonly nameKinds: Uint8Array;
  /** This run's bar-field column per name node that reads one (by id), filled on first read. */
  private nameColumns: (Float64Array | undefined)[] = [];
  private readonly nameConstants: Value[] = [];
  /** This run's bar fields as whole columns, computed once on first use (hl2, hour… included). */
  private readonly columns = new Map<string, Float64Array>();
  private maxSteps = 0;
  private deadline = 0;
  private clockIn = 4096;
  private maxLoops = 0;
  private options: RunOptions = { limits: { maxSteps: 0, deadlineMs: 0, maxLoopIterations: 0, maxArraySize: 0 }, timeframe: '', symbol: '', mintick: 0 };
  private readonly blocks = new WeakMap<Stmt[], Block>();
  private readonly body: Block;
  /**
   * What the built-ins see, one object for every run: plain fields the run sets (the bar as it
   * advances, the outputs, the name being declared), read by the built-ins as cheaply as locals.
   */
  private readonly ctx: Mutable<Ctx>;
  /** Top-level series computed as whole columns on each run's first bar (see columns.ts). */
  private readonly useColumns: boolean;
  private readonly columnHost: ColumnHost;
  private readonly columnPlan: ColumnPlan;
  private columnRun: ColumnRun | null = null;
  /** Candidates that gave up in an earlier run: they run bar by bar from then on. */
  private readonly barByBar = new Set<number>();
  private columnStatements = 0;
  /** The closure makers of loops made as columns with the declaration before them (by the loop's id). */
  private readonly unitLoops = new Map<number, (plain: CompiledStmt) => CompiledStmt>();
  /** The script's variables its functions read (by key), found once all closures are made. */
  private globalReads: Set<string> | null = null;

  /** `columns: false` runs every statement bar by bar (tests compare the two ways). */
  constructor(
    private readonly program: Program,
    options: { columns?: boolean } = {},
  ) {
    this.nameKinds = new Uint8Array(program.nodes + 1);
    const self = this;
    this.ctx = {
      bar: 0,
      n: 0,
      bars: NO_BARS,
      limits: this.options.limits,
      timeframe: '',
      mintick: 0,
      out: emptyOut(),
      target: null,
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
    };
    for (const s of program.body) {
      if (s.kind === 'func') {
        if (BUILTINS[s.name]) throw pineError(s, `'${s.name}' is a built-in and cannot be redefined`);
        this.funcs.set(s.name, s);
      } else if (s.kind === 'decl') {
        if (!this.topLevel.has(s.name)) this.topLevel.set(s.name, { kind: 'decl', index: s.id, global: false });
      } else if (s.kind === 'tupledecl') {
        const numbers = this.localsOf(s.id, s.names.length);
        s.names.forEach((name, i) => this.topLevel.has(name) || this.topLevel.set(name, { kind: 'local', index: numbers[i]!, global: false }));
      }
    }
    checkProgram(program, this.funcs);
    this.useColumns = options.columns !== false;
    this.columnHost = this.makeColumnHost();
    this.columnPlan = new ColumnPlan(program, this.columnHost);
    this.body = this.codeOf(program.body, this.env);
  }

  /**
   * Before a top-level statement's closure is made: the parts of its expressions that may be
   * columns get closures that read them (see columnExpr), made first so the closures around them
   * hold these. Parts run on every bar where the statement runs them every bar; the others (a
   * ternary's branches, a later `else if`, v6's lazy right side) may hold nothing with state.
   */
  private columnParts(s: Stmt): void {
    switch (s.kind) {
      // A declaration that will be a candidate is tried whole (columnStmt): its value is not tried again as an expression.
      case 'decl':
        if (s.mode === null) this.columnPart(s.init, true, !this.columnPlan.mayBeCandidate(s));
        return;
      case 'tupledecl':
        return this.columnPart(s.init, true, !this.columnPlan.mayBeCandidate(s));
      case 'assign':
        return this.columnPart(s.value, true);
      case 'expr':
        return this.columnPart(s.expr, true);
      case 'if':
        return s.branches.forEach((b, i) => this.columnPart(b.cond, i === 0));
      case 'switch':
        if (s.subject) this.columnPart(s.subject, true);
        return s.cases.forEach((c) => c.match && this.columnPart(c.match, false));
    }
  }

  private columnPart(e: Expr, always: boolean, self = true): void {
    switch (e.kind) {
      case 'binary':
        this.columnPart(e.left, always);
        this.columnPart(e.right, always && !(this.v6 && (e.op === 'and' || e.op === 'or')));
        break;
      case 'unary':
        this.columnPart(e.operand, always);
        break;
      case 'ternary':
        this.columnPart(e.cond, always);
        this.columnPart(e.then, false);
        this.columnPart(e.else, false);
        break;
      case 'index':
        if (e.target.kind !== 'name') this.columnPart(e.target, always);
        this.columnPart(e.offset, always);
        break;
      case 'call': {
        // A `once` built-in (hline, inputs) evaluates its arguments on the first bar only.
        if (!this.funcs.has(e.callee) && (!BUILTINS[e.callee] || BUILTINS[e.callee]!.once)) return;
        for (const x of [...e.args, ...Object.values(e.named)]) this.columnPart(x, always);
        break;
      }
      default:
        // Literals and names are read as cheaply as a column; if/switch/loop expressions are not columns.
        return;
    }
    const plain = this.c(e);
    if (self && this.columnPlan.mayBeColumn(e)) this.code[e.id] = this.columnExpr(e, plain, always);
  }

  /** A top-level expression read from its column, made on the run's first evaluation of it; else `plain`, its own closure. */
  private columnExpr(e: Expr, plain: Compiled, always: boolean): Compiled {
    let madeIn = 0;
    let col: Col | null = null;
    return () => {
      if (madeIn !== this.runNo) {
        madeIn = this.runNo;
        col = null;
        if (!this.barByBar.has(e.id)) {
          const frame = this.frame;
          col = this.runColumns().expression(e, always);
          this.frame = frame;
          if (!col) this.barByBar.add(e.id);
        }
      }
      if (!col) return plain();
      this.countSteps(at(col.steps, this.bar), e);
      return valueAt(col, this.bar);
    };
  }

  /** This run's column maker, made when the first column is. */
  private runColumns(): ColumnRun {
    return (this.columnRun ??= new ColumnRun(this.columnHost, this.columnPlan));
  }

  /** Whether a function of the script reads this variable (by key): found once, all closures made by then. */
  private readByFunctions(key: string): boolean {
    return (this.globalReads ??= globalReads(this.funcs, this.columnHost.binding)).has(key);
  }

  /** Counts the steps a column's closures would have counted on this bar, and checks the budget. */
  private countSteps(steps: number, pos: Pos): void {
    this.steps += steps;
    if (this.steps > this.maxSteps) throw this.overBudget(pos);
  }

  /** How many top-level statements the last run computed as columns (what tests and benches check it does). */
  get columnsUsed(): number {
    return this.columnStatements;
  }

  /** What column evaluation reads of this interpreter. */
  private makeColumnHost(): ColumnHost {
    const self = this;
    return {
      get n() {
        return self.n;
      },
      get v6() {
        return self.v6;
      },
      get deadline() {
        return self.deadline;
      },
      get maxSteps() {
        return self.maxSteps;
      },
      get maxLoops() {
        return self.maxLoops;
      },
      ctx: this.ctx,
      funcs: this.funcs,
      binding: (id) => this.bindings[id],
      leaf: (e) => {
        const kind = this.nameKinds[e.id];
        return kind === FIELD ? this.column(e.name) : kind === CONSTANT ? { constant: this.nameConstants[e.id]! } : undefined;
      },
      isConstantName: (e) => this.nameKinds[e.id] === CONSTANT,
      localsOf: (id, count) => this.localsOf(id, count),
      constant: (e) => {
        // Its own closure on the first bar, at the top level; its steps are counted again on every bar by the caller.
        const steps = this.steps;
        const frame = this.frame;
        this.frame = this.root;
        try {
          const value = (this.code[e.id] ?? (() => NA))();
          return { value, steps: this.steps - steps };
        } finally {
          this.steps = steps;
          this.frame = frame;
        }
      },
      firstValue: (id) => {
        const slot = this.root.declSlots[id];
        return slot?.has(0) ? { value: slot.get(0) } : undefined;
      },
      site: (e, frame) => {
        this.frame = frame;
        this.siteId = e.id;
        this.sitePos = e.calleePos;
      },
    };
  }

  /**
   * A top-level statement that may be columns (a declaration, a plot): on a run's first bar its
   * columns are made, and each bar then only counts the steps its closures would have (and, for a
   * variable a function reads, marks it declared on the bar). Given up, it is `plain`, its own closure.
   */
  private columnStmt(s: Stmt, plain: CompiledStmt): CompiledStmt {
    let madeIn = 0;
    let made: ColumnStatement | null = null;
    return () => {
      if (madeIn !== this.runNo) {
        // A top-level statement runs on every bar: this is the run's first.
        madeIn = this.runNo;
        made = this.barByBar.has(s.id) ? null : this.makeColumnStmt(s);
        this.frame = this.root;
        if (made) this.columnStatements++;
        else this.barByBar.add(s.id);
      }
      if (!made) return plain();
      this.tick(s);
      this.countSteps(at(made.steps, this.bar), s);
      if (made.store) made.store(this.bar);
      return 0;
    };
  }

  /**
   * A constant or input declaration (see ColumnPlan): its value on every bar is known once the
   * first bar has run it (an input records itself then). It runs itself on the first two bars, the
   * second showing the steps every later bar counts (a typed input skips its arguments after the
   * first); then its variable holds every bar's value and each bar only counts those steps. A
   * variable a function reads runs bar by bar throughout (see makeColumnStmt).
   */
  private steadyStmt(s: Stmt & { kind: 'decl' }, plain: CompiledStmt): CompiledStmt {
    let steps = -1;
    return () => {
      if (this.bar > 1 && steps >= 0) {
        this.countSteps(steps, s);
        return 0;
      }
      if (this.bar !== 1) {
        steps = -1;
        return plain();
      }
      const before = this.steps;
      const flow = plain();
      if (this.readByFunctions('d' + s.id)) return flow;
      const alias = this.columnPlan.aliases.get(s.id);
      const col = alias && this.runColumns().expression(alias, true);
      this.frame = this.root;
      if (alias && !col) return flow;
      this.root.declSlots[s.id] = col ? Slot.of(col.v, col.bool) : Slot.steady(this.n, this.root.declSlots[s.id]!.get(0));
      steps = this.steps - before;
      return flow;
    };
  }

  /**
   * A declaration and the for loop right after it that alone changes it, made as columns together
   * on a run's first bar (see ColumnRun.unit): then each of the two only counts its steps on each
   * bar. Returns the declaration's closure; the loop's is made with it (see unitLoops).
   */
  private unitStmts(d: Stmt & { kind: 'decl' }, loop: ForStmt, plain: CompiledStmt): CompiledStmt {
    let madeIn = 0;
    let made: { declSteps: Col['steps']; loopSteps: Col['steps'] } | null = null;
    this.unitLoops.set(loop.id, (plainLoop) => () => {
      if (!made) return plainLoop();
      this.tick(loop);
      this.countSteps(at(made.loopSteps, this.bar), loop);
      return 0;
    });
    return () => {
      if (madeIn !== this.runNo) {
        madeIn = this.runNo;
        made = null;
        // A function reading the variable would see it mid-loop bar by bar: left so.
        if (!this.barByBar.has(d.id) && !this.readByFunctions('d' + d.id)) {
          const u = this.runColumns().unit(d, loop);
          this.frame = this.root;
          if (u) {
            this.root.declSlots[d.id] = Slot.of(u.value.v, u.value.bool);
            made = u;
            this.columnStatements += 2;
          } else this.barByBar.add(d.id);
        }
      }
      if (!made) return plain();
      this.tick(d);
      this.countSteps(at(made.declSteps, this.bar), d);
      return 0;
    };
  }

  private makeColumnStmt(s: Stmt): ColumnStatement | null {
    const run = this.runColumns();
    if (s.kind === 'expr') {
      const steps = s.expr.kind === 'call' ? run.output(s.expr) : null;
      return steps === null ? null : { steps, store: null };
    }
    if (s.kind !== 'decl' && s.kind !== 'tupledecl') return null;
    const c = run.declaration(s);
    if (!c) return null;
    const cols = 'v' in c ? [c] : c.items;
    const slots = s.kind === 'decl' ? [this.root.declSlots] : cols.map(() => this.root.locals);
    const places = s.kind === 'decl' ? [s.id] : this.localsOf(s.id, s.names.length);
    // A variable no function reads has its values for every bar at once. One a function reads is
    // marked bar by bar: the function must not see it before its declaration has run on the bar.
    const keys = places.map((k) => (s.kind === 'decl' ? 'd' : 'l') + k);
    if (!keys.some((key) => this.readByFunctions(key))) {
      cols.forEach((col, i) => (slots[i]![places[i]!] = Slot.of(col.v, col.bool)));
      return { steps: c.steps, store: null };
    }
    const store = (bar: number) => cols.forEach((col, i) => (slots[i]![places[i]!] ??= new Slot(this.n, false)).put(bar, valueAt(col, bar)));
    return { steps: c.steps, store };
  }

  /** The local numbers of a node's names (a tuple's, a function's parameters): the same every time it is asked. */
  private localsOf(id: number, count: number): number[] {
    let numbers = this.localNumbers.get(id);
    if (!numbers) this.localNumbers.set(id, (numbers = Array.from({ length: count }, () => this.locals++)));
    return numbers;
  }

  /** Runs the program over `bars`; nothing of an earlier run is seen, nothing of this one kept. */
  run(bars: Bars, options: RunOptions): RunResult {
    this.start(bars, options);
    this.columnStatements = 0;
    try {
      const body = this.body;
      const ctx = this.ctx;
      const out = ctx.out;
      for (this.bar = 0; this.bar < this.n; this.bar++) {
        ctx.bar = this.bar;
        out.position.now = out.position.pending;
        this.frame = this.root;
        this.exec(body);
      }
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

  /** Everything a run reads or writes, fresh: the bars, budgets, frames, outputs. */
  private start(bars: Bars, options: RunOptions): void {
    this.runNo++;
    this.options = options;
    this.n = bars.close.length;
    this.maxSteps = options.limits.maxSteps;
    this.deadline = options.limits.deadlineMs;
    this.clockIn = 4096;
    this.maxLoops = options.limits.maxLoopIterations;
    this.bar = 0;
    this.steps = 0;
    this.arrayElements = 0;
    this.root = this.frame = new Frame();
    this.siteId = 0;
    this.sitePos = { line: 1, col: 1 };
    this.last = NA;
    this.depth = 0;
    this.nameColumns = [];
    this.columns.clear();
    this.columnRun = null;
    const ctx = this.ctx;
    ctx.bar = 0;
    ctx.n = this.n;
    ctx.bars = bars;
    ctx.limits = options.limits;
    ctx.timeframe = options.timeframe;
    ctx.mintick = options.mintick;
    ctx.out = emptyOut();
    ctx.target = null;
  }

  /** Pine v6 semantics (a script without //@version runs as v5). */
  private get v6(): boolean {
    return this.program.version !== null && this.program.version >= 6;
  }

  /**
   * Counts a step and checks the budgets. A leaf (a literal, a name read) only counts its step
   * (`this.steps++`): it cannot loop, and the statement or operation around it checks right after.
   */
  private tick(pos: Pos): void {
    if (++this.steps > this.maxSteps) throw this.overBudget(pos);
    // The clock every 4096 checked steps: counted down, since leaves' steps come in between.
    if (--this.clockIn === 0) {
      this.clockIn = 4096;
      if (Date.now() > this.deadline) throw pineError(pos, 'the script ran past its time limit (an endless or very long loop?); simplify it or shorten loops');
    }
  }

  private overBudget(pos: Pos): PineError {
    return pineError(pos, `the script ran more than ${this.maxSteps} steps (an endless or very long loop?); simplify it or shorten loops`);
  }

  /**
   * A block's statements as closures, made once per block in `env` (by default a block nested in
   * the one being made): its names are bound as its statements are made, in their order.
   */
  private codeOf(stmts: Stmt[], env = new Env(this.env)): Block {
    let code = this.blocks.get(stmts);
    if (!code) {
      code = { run: [] };
      // Registered before its statements compile: a recursive call inside a function body finds it.
      this.blocks.set(stmts, code);
      const run = code.run;
      this.within(env, () => {
        for (const s of stmts) run.push(this.stmtCode[s.id] ?? this.compileStmt(s));
      });
    }
    return code;
  }

  /** Runs a block; its last statement's value is left in `last`. */
  private exec(code: Block): Flow {
    this.last = NA;
    const run = code.run;
    for (let i = 0; i < run.length; i++) {
      const flow = run[i]!();
      if (flow) return flow;
    }
    return 0;
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

  /** A top-level statement may be (or hold parts that are) columns: see columns.ts. */
  private stmtClosure(s: Stmt): CompiledStmt {
    if (!this.useColumns || this.env !== this.topEnv) return this.barByBarStmt(s);
    this.columnParts(s);
    const f = this.barByBarStmt(s);
    this.columnPlan.classify(s);
    if (s.kind === 'decl' && (this.columnPlan.constants.has(s.id) || this.columnPlan.aliases.has(s.id))) return this.steadyStmt(s, f);
    if (s.kind === 'decl' && this.columnPlan.units.has(s.id)) return this.unitStmts(s, this.columnPlan.units.get(s.id)!, f);
    const unit = this.unitLoops.get(s.id);
    if (unit) return unit(f);
    const candidate = (s.kind === 'decl' || s.kind === 'tupledecl') && this.columnPlan.candidates.has(s.id);
    // A plot keeps one value per bar and call site: made for every bar at once, its values are the same.
    const plot = s.kind === 'expr' && s.expr.kind === 'call' && s.expr.callee === 'plot' && !this.funcs.has('plot');
    return candidate || plot ? this.columnStmt(s, f) : f;
  }

  private barByBarStmt(s: Stmt): CompiledStmt {
    switch (s.kind) {
      case 'decl': {
        // The value is made before the name is declared: `x = x + 1` reads an outer x.
        const init = this.c(s.init);
        const label = s.name;
        const again = this.env.has(label);
        this.env.add(label, { kind: 'decl', index: s.id, global: false });
        const redeclared = () => pineError(s, `'${label}' is already declared in this block; reassign it with ':='`);
        if (s.mode === null && !this.mayName(s.init)) {
          // Nothing in the value can take the declared name (no input.* or user call): evaluated directly.
          return () => {
            this.tick(s);
            if (again) throw redeclared();
            const slot = this.declSlot(s.id, false);
            const v = init();
            slot.put(this.bar, v);
            // The value itself, not read back from the slot (a number read back is boxed anew).
            this.last = v;
            return 0;
          };
        }
        if (s.mode === null) {
          return () => {
            this.tick(s);
            if (again) throw redeclared();
            const slot = this.declSlot(s.id, false);
            const v = this.assigned(init, label);
            slot.put(this.bar, v);
            this.last = v;
            return 0;
          };
        }
        return () => {
          this.tick(s);
          if (again) throw redeclared();
          const slot = this.declSlot(s.id, true);
          // `var`: initialised once, then carried from bar to bar.
          if (!slot.inited) {
            slot.put(this.bar, this.assigned(init, label));
            slot.inited = true;
          } else if (!slot.has(this.bar)) slot.put(this.bar, slot.get(this.bar - 1));
          this.last = slot.get(this.bar);
          return 0;
        };
      }
      case 'tupledecl': {
        const init = this.c(s.init);
        const count = s.names.length;
        const locals = this.localsOf(s.id, count);
        this.env.addLocals(s.names, locals);
        return () => {
          this.tick(s);
          const v = init();
          if (!Array.isArray(v) || v.length !== count) throw pineError(s, `the right-hand side gives ${Array.isArray(v) ? v.length : 1} value(s), ${count} names are declared`);
          for (let i = 0; i < count; i++) this.localSlot(locals[i]!).put(this.bar, v[i]!);
          this.last = v;
          return 0;
        };
      }
      case 'assign': {
        const value = this.c(s.value);
        const target = this.env.resolve(s.name, this.topLevel);
        const local = target?.kind === 'local';
        const k = target?.index ?? 0;
        const op = s.op;
        return () => {
          this.tick(s);
          if (!target) throw pineError(s, `'${s.name}' is assigned before it is declared; declare it with '=' first`);
          if (target.global) throw pineError(s, `a function cannot assign the global variable '${s.name}' (as in Pine); return the value instead`);
          const slot = local ? this.frame.locals[k]! : this.frame.declSlots[k]!;
          let v = value();
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
        return () => {
          this.tick(s);
          this.last = expr();
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
        return () => {
          this.tick(s);
          return run();
        };
      }
      case 'for':
      case 'forin':
      case 'while': {
        const run = this.loopRunner(s);
        return () => {
          this.tick(s);
          run();
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

  /** A bound variable's slot; undefined for a top-level one a function reads before its declaration has run on this bar. */
  private slotOf(b: Binding): Slot | undefined {
    const frame = b.global ? this.root : this.frame;
    const slot = b.kind === 'decl' ? frame.declSlots[b.index] : frame.locals[b.index];
    return b.global && slot && !slot.has(this.bar) ? undefined : slot;
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
  private assigned(init: Compiled, name: string): Value {
    const before = this.ctx.target;
    this.ctx.target = name;
    try {
      return init();
    } finally {
      this.ctx.target = before;
    }
  }

  private ifRunner(s: IfStmt): CompiledStmt {
    const branches = s.branches.map((b) => ({ cond: this.c(b.cond), body: this.codeOf(b.body) }));
    const otherwise = s.otherwise ? this.codeOf(s.otherwise) : null;
    return () => {
      for (let i = 0; i < branches.length; i++) {
        const b = branches[i]!;
        if (truthy(b.cond())) return this.exec(b.body);
      }
      if (otherwise) return this.exec(otherwise);
      this.last = NA;
      return 0;
    };
  }

  private switchRunner(s: SwitchStmt): CompiledStmt {
    const subject = s.subject ? this.c(s.subject) : null;
    const cases = s.cases.map((c) => ({ match: c.match ? this.c(c.match) : null, body: this.codeOf(c.body) }));
    return () => {
      const value = subject ? subject() : undefined;
      for (let i = 0; i < cases.length; i++) {
        const c = cases[i]!;
        const hit = c.match === null || (subject ? equal(c.match(), value!) : truthy(c.match()));
        if (hit) return this.exec(c.body);
      }
      this.last = NA;
      return 0;
    };
  }

  /** A loop's runner; its value (for `x = for …`) is the last statement's of the last iteration. */
  private loopRunner(s: ForStmt | ForInStmt | WhileStmt): () => Value {
    if (s.kind === 'for') {
      const fromC = this.c(s.from);
      const toC = this.c(s.to);
      const stepC = s.step ? this.c(s.step) : null;
      const [counterLocal] = this.localsOf(s.id, 1) as [number];
      const body = this.codeOf(s.body, new Env(this.env).addLocals([s.counter], [counterLocal]));
      return () => {
        let iterations = 0;
        let value: Value = NA;
        const from = num(fromC());
        const to = num(toC());
        if (from !== from || to !== to) throw pineError(s, 'the bounds of a for loop are na');
        let step = stepC ? Math.abs(num(stepC())) : 1;
        if (!(step > 0)) throw pineError(s, 'the step of a for loop must be positive');
        if (to < from) step = -step;
        const counter = this.localSlot(counterLocal);
        for (let i = from; step > 0 ? i <= to : i >= to; i += step) {
          if (++iterations > this.maxLoops) throw this.overCap(s, this.maxLoops);
          counter.put(this.bar, i);
          const flow = this.exec(body);
          value = this.last;
          if (flow === BREAK) break;
        }
        this.last = value;
        return value;
      };
    }
    if (s.kind === 'forin') {
      const iterable = this.c(s.iterable);
      const locals = this.localsOf(s.id, s.names.length);
      const body = this.codeOf(s.body, new Env(this.env).addLocals(s.names, locals));
      return () => {
        let iterations = 0;
        let value: Value = NA;
        const it = iterable();
        if (!isArray(it)) throw pineError(s.iterable, 'for … in needs an array');
        const slots = locals.map((k) => this.localSlot(k));
        for (let i = 0; i < it.items.length; i++) {
          if (++iterations > this.maxLoops) throw this.overCap(s, this.maxLoops);
          if (slots.length === 2) {
            slots[0]!.put(this.bar, i);
            slots[1]!.put(this.bar, it.items[i]!);
          } else slots[0]!.put(this.bar, it.items[i]!);
          const flow = this.exec(body);
          value = this.last;
          if (flow === BREAK) break;
        }
        this.last = value;
        return value;
      };
    }
    const cond = this.c(s.cond);
    const body = this.codeOf(s.body);
    return () => {
      let iterations = 0;
      let value: Value = NA;
      while (truthy(cond())) {
        if (++iterations > this.maxLoops) throw this.overCap(s, this.maxLoops);
        const flow = this.exec(body);
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

  /** Makes closures with their names bound in `env`. */
  private within<T>(env: Env, make: () => T): T {
    const outer = this.env;
    this.env = env;
    try {
      return make();
    } finally {
      this.env = outer;
    }
  }

  /**
   * The closure of an expression node: what a tree walk would do, with what is known before the
   * run resolved once (a name's kind, a call's target and argument places, an operator) and its
   * children's closures held directly. Every closure counts its step first, as the walk did (a leaf
   * without the budget checks, see tick()), so step counts are unchanged.
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
          this.steps++;
          return v;
        };
      }
      case 'na':
        return () => {
          this.steps++;
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
            this.steps += 2;
            return v;
          };
        }
        const operand = this.c(e.operand);
        if (e.op === 'not') {
          return () => {
            this.tick(e);
            return !truthy(operand());
          };
        }
        const sign = e.op === '-' ? -1 : 1;
        return () => {
          this.tick(e);
          return sign * num(operand());
        };
      }
      case 'ternary': {
        const cond = this.c(e.cond);
        const then = this.c(e.then);
        const otherwise = this.c(e.else);
        return () => {
          this.tick(e);
          return truthy(cond()) ? then() : otherwise();
        };
      }
      case 'index':
        return this.indexClosure(e);
      case 'tuple': {
        const items = e.items.map((x) => this.c(x));
        return () => {
          this.tick(e);
          return items.map((item) => item());
        };
      }
      case 'if':
      case 'switch': {
        const run = e.kind === 'if' ? this.ifRunner(e.stmt) : this.switchRunner(e.stmt);
        return () => {
          this.tick(e);
          run();
          return this.last;
        };
      }
      case 'loop': {
        const run = this.loopRunner(e.stmt);
        return () => {
          this.tick(e);
          return run();
        };
      }
    }
  }

  /** `x[n]`: a name's value n bars back, or any other expression's, kept by bar at its node. */
  private indexClosure(e: Expr & { kind: 'index' }): Compiled {
    const { target } = e;
    const offsetC = this.c(e.offset);
    const literal = literalOffset(e.offset);
    const back =
      literal !== null
        ? // `x[1]`: the offset is known; its literal still counts its step.
          (): number => {
            this.steps++;
            return literal;
          }
        : (): number => {
            const offset = num(offsetC());
            const whole = historyOffset(offset);
            if (whole !== whole) throw pineError(e.offset, `a history reference is a whole number of bars from 0 to 5000, got ${offset}`);
            return whole;
          };
    // A name is read directly (it is not a step of its own): a bar field's column or a variable's slot.
    if (target.kind === 'name') {
      const b = this.bind(target);
      if (!b && this.nameKinds[target.id] === FIELD) {
        return () => {
          this.tick(e);
          const j = this.bar - back();
          return j < 0 ? NA : (this.nameColumns[target.id] ?? this.fieldColumn(target))[j]!;
        };
      }
      if (b && !b.global) {
        const k = b.index;
        const local = b.kind === 'local';
        return () => {
          this.tick(e);
          const j = this.bar - back();
          return (local ? this.frame.locals[k]! : this.frame.declSlots[k]!).get(j);
        };
      }
      return () => {
        this.tick(e);
        return this.name(target, back());
      };
    }
    const targetC = this.c(target);
    return () => {
      this.tick(e);
      const offset = back();
      // The expression runs on every bar, whatever the offset: its history must be complete.
      const v = targetC();
      const states = this.frame.states;
      let hist = states[e.id] as Slot | undefined;
      if (!hist) states[e.id] = hist = new Slot(this.n, false);
      hist.put(this.bar, v);
      return hist.get(this.bar - offset);
    };
  }

  private nameClosure(e: Expr & { kind: 'name' }): Compiled {
    const b = this.bind(e);
    if (b && !b.global) {
      // The declaration ran before this read, on this bar, in this frame: its slot is there.
      const k = b.index;
      if (b.kind === 'decl') {
        return () => {
          this.steps++;
          return this.frame.declSlots[k]!.get(this.bar);
        };
      }
      return () => {
        this.steps++;
        return this.frame.locals[k]!.get(this.bar);
      };
    }
    const kind = this.nameKinds[e.id];
    if (!b && kind === FIELD) {
      return () => {
        this.steps++;
        return (this.nameColumns[e.id] ?? this.fieldColumn(e))[this.bar]!;
      };
    }
    if (!b && kind === CONSTANT) {
      const v = this.nameConstants[e.id]!;
      return () => {
        this.steps++;
        return v;
      };
    }
    return () => {
      this.tick(e);
      return this.name(e, 0);
    };
  }

  /** Binds a name node to the variable it reads here, or else resolves what built-in it names (once, as its closure is made). */
  private bind(e: Expr & { kind: 'name' }): Binding | undefined {
    const b = this.env.resolve(e.name, this.topLevel);
    if (b) this.bindings[e.id] = b;
    else this.resolveName(e);
    return b;
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
    return () => {
      this.tick(e);
      if (doneIn === this.runNo) return value;
      for (let i = 0; i < args.length; i++) a[i] = args[i]!();
      for (let i = 0; i < named.length; i++) {
        const [at, expr] = named[i]!;
        const v = expr();
        // −1: a parameter accepted and ignored.
        if (at >= 0) a[at] = v;
      }
      // Set right before the built-in runs (its arguments, already evaluated, may have set their own):
      // only a built-in reads them, so nothing is restored after.
      this.siteId = e.id;
      this.sitePos = e.calleePos;
      const v = b.fn(this.ctx, a, e);
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
    const receiverVar = this.env.resolve(head, this.topLevel);
    const method = e.callee.slice(dot + 1);
    const args = e.args.map((x) => this.c(x));
    const named = Object.entries(e.named).map(([k, x]) => [k, this.c(x)] as const);
    return () => {
      this.tick(e);
      const slot = receiverVar && this.slotOf(receiverVar);
      if (!slot) throw pineError(e.calleePos, `unknown name '${head}': declare it before calling its methods`);
      const receiver = slot.get(this.bar);
      const b = methodBuiltin(receiver, method);
      if (!b) throw unsupported(e.calleePos, `method ${method}() on this value`, 'is not supported: methods are called on arrays and strings');
      const a = new Array<Value>(b.params.length);
      a[0] = receiver;
      for (let i = 0; i < args.length; i++) a[i + 1] = args[i]!();
      for (const [k, x] of named) {
        const at = b.params.indexOf(k);
        if (at < 0) throw unsupported(e.named[k]!, `argument '${k}' of ${e.callee}()`);
        a[at] = x();
      }
      this.siteId = e.id;
      this.sitePos = e.calleePos;
      return b.fn(this.ctx, a, e);
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
          return () => {
            this.tick(e);
            const x = truthy(l());
            return truthy(r()) && x;
          };
        }
        return () => {
          this.tick(e);
          return truthy(l()) && truthy(r());
        };
      case 'or':
        if (!lazy) {
          return () => {
            this.tick(e);
            const x = truthy(l());
            return truthy(r()) || x;
          };
        }
        return () => {
          this.tick(e);
          return truthy(l()) || truthy(r());
        };
      case '==':
        return () => {
          this.tick(e);
          const x = l();
          return equal(x, r());
        };
      case '!=':
        return () => {
          this.tick(e);
          const x = l();
          const y = r();
          return !isNa(x) && !isNa(y) && !equal(x, y);
        };
      case '<':
        return () => {
          this.tick(e);
          const x = num(l());
          return x < num(r());
        };
      case '>':
        return () => {
          this.tick(e);
          const x = num(l());
          return x > num(r());
        };
      case '<=':
        return () => {
          this.tick(e);
          const x = num(l());
          return x <= num(r());
        };
      case '>=':
        return () => {
          this.tick(e);
          const x = num(l());
          return x >= num(r());
        };
      // Two numbers take the short way; anything else goes through arith().
      case '+':
        return () => {
          this.tick(e);
          const x = l();
          const y = r();
          return typeof x === 'number' && typeof y === 'number' ? x + y : arith(op, x, y, e);
        };
      case '-':
        return () => {
          this.tick(e);
          const x = l();
          const y = r();
          return typeof x === 'number' && typeof y === 'number' ? x - y : arith(op, x, y, e);
        };
      case '*':
        return () => {
          this.tick(e);
          const x = l();
          const y = r();
          return typeof x === 'number' && typeof y === 'number' ? x * y : arith(op, x, y, e);
        };
      default:
        return () => {
          this.tick(e);
          const x = l();
          return arith(op, x, r(), e);
        };
    }
  }

  /** A name's value `offset` bars back: a variable, a bar field, or a built-in variable/constant. */
  private name(e: Expr & { kind: 'name' }, offset: number): Value {
    const j = this.bar - offset;
    const b = this.bindings[e.id];
    if (b) {
      // A top-level variable a function reads before its declaration ran on this bar is not there yet.
      const slot = this.slotOf(b);
      if (slot) return slot.get(j);
    } else {
      const kind = this.nameKinds[e.id];
      if (kind === FIELD) return j < 0 ? NA : (this.nameColumns[e.id] ?? this.fieldColumn(e))[j]!;
      if (kind === CONSTANT) return this.nameConstants[e.id]!;
    }
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

  /** Once per name node that reads no variable: a bar field or a constant (known once), else anything else. */
  private resolveName(e: Expr & { kind: 'name' }): number {
    let kind = OTHER;
    if (BAR_FIELDS.has(e.name)) kind = FIELD;
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
      for (let j = 0; j < this.n; j++) col[j] = barField(this.ctx.bars, name, j) as number;
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
        return this.ctx.out.position.now;
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
      // A default is made once for every call: it sees the script's top-level names only.
      args.push(given === p.default ? this.within(new Env(null, true), () => this.c(given)) : this.c(given));
    }
    // The same local numbers at every call site: the body is made once, each call runs it in its own frame.
    const locals = this.localsOf(fn.id, params.length);
    const body = this.codeOf(fn.body, new Env(null, true).addLocals(params.map((p) => p.name), locals));
    const values = new Array<Value>(params.length);
    return () => {
      this.tick(e);
      if (++this.depth > 100) throw pineError(e.calleePos, `calls nest deeper than 100 levels (recursion is not allowed in Pine)`);
      if (problem) throw problem;
      // Arguments are evaluated in the caller's frame, before the callee's frame is entered.
      const given = this.depth === 1 ? values : new Array<Value>(params.length);
      for (let i = 0; i < args.length; i++) given[i] = args[i]!();
      const parent = this.frame;
      const child = (parent.children[e.id] ??= new Frame());
      this.frame = child;
      try {
        for (let i = 0; i < locals.length; i++) this.localSlot(locals[i]!).put(this.bar, given[i]!);
        this.exec(body);
        return this.last;
      } finally {
        this.frame = parent;
        this.depth--;
      }
    };
  }
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
