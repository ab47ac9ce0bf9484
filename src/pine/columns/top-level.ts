/**
 * The column plan inside the bar-by-bar run: which top-level statements and expression parts are
 * computed as whole columns on a run's first bar (see plan.ts, run.ts), and the closures that then
 * only count each bar's steps and read the values. A candidate that gives up runs bar by bar from
 * then on (its own closure, `plain`): giving up is always safe.
 */
import { BUILTINS } from '../builtins/builtins.ts';
import type { Compiled, CompiledStmt } from '../bars/closures.ts';
import type { Expressions } from '../bars/expressions.ts';
import { CONSTANT, FIELD, type Names } from '../bars/names.ts';
import type { RunState } from '../bars/run-state.ts';
import type { Scope } from '../bars/scope.ts';
import type { TopLevelHook } from '../bars/statements.ts';
import { Slot } from '../runtime/slots.ts';
import { NA } from '../runtime/values.ts';
import type { Expr, ForStmt, Program, Stmt } from '../syntax/ast.ts';
import { at, valueAt, type Col, type ColumnStatement } from './col.ts';
import type { ColumnHost } from './host.ts';
import { ColumnPlan, globalReads } from './plan.ts';
import { ColumnRun } from './run.ts';

export class TopLevelColumns implements TopLevelHook {
  /** How many top-level statements the last run computed as columns (what tests and benches check it does). */
  used = 0;
  private readonly columnHost: ColumnHost;
  private readonly columnPlan: ColumnPlan;
  private columnRun: ColumnRun | null = null;
  /** Candidates that gave up in an earlier run: they run bar by bar from then on. */
  private readonly barByBar = new Set<number>();
  /** The closure makers of loops made as columns with the declaration before them (by the loop's id). */
  private readonly unitLoops = new Map<number, (plain: CompiledStmt) => CompiledStmt>();
  /** The script's variables its functions read (by key), found once all closures are made. */
  private globalReads: Set<string> | null = null;

  constructor(
    program: Program,
    private readonly r: RunState,
    private readonly scope: Scope,
    private readonly names: Names,
    private readonly exprs: Expressions,
  ) {
    this.columnHost = this.makeColumnHost();
    this.columnPlan = new ColumnPlan(program, this.columnHost);
  }

  /** A new run: its column maker is made when its first column is. */
  reset(): void {
    this.columnRun = null;
  }

  /**
   * Before a top-level statement's closure is made: the parts of its expressions that may be
   * columns get closures that read them (see columnExpr), made first so the closures around them
   * hold these. Parts run on every bar where the statement runs them every bar; the others (a
   * ternary's branches, a later `else if`, v6's lazy right side) may hold nothing with state.
   */
  parts(s: Stmt): void {
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
        this.columnPart(e.right, always && !(this.scope.v6 && (e.op === 'and' || e.op === 'or')));
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
        if (!this.scope.funcs.has(e.callee) && (!BUILTINS[e.callee] || BUILTINS[e.callee]!.once)) return;
        for (const x of [...e.args, ...Object.values(e.named)]) this.columnPart(x, always);
        break;
      }
      default:
        // Literals and names are read as cheaply as a column; if/switch/loop expressions are not columns.
        return;
    }
    const plain = this.exprs.c(e);
    if (self && this.columnPlan.mayBeColumn(e)) this.exprs.code[e.id] = this.columnExpr(e, plain, always);
  }

  /** A top-level expression read from its column, made on the run's first evaluation of it; else `plain`, its own closure. */
  private columnExpr(e: Expr, plain: Compiled, always: boolean): Compiled {
    const r = this.r;
    let madeIn = 0;
    let col: Col | null = null;
    return () => {
      if (madeIn !== r.runNo) {
        madeIn = r.runNo;
        col = null;
        if (!this.barByBar.has(e.id)) {
          const frame = r.frame;
          col = this.runColumns().expression(e, always);
          r.frame = frame;
          if (!col) this.barByBar.add(e.id);
        }
      }
      if (!col) return plain();
      r.countSteps(at(col.steps, r.bar), e);
      return valueAt(col, r.bar);
    };
  }

  /** This run's column maker, made when the first column is. */
  private runColumns(): ColumnRun {
    return (this.columnRun ??= new ColumnRun(this.columnHost, this.columnPlan));
  }

  /** Whether a function of the script reads this variable (by key): found once, all closures made by then. */
  private readByFunctions(key: string): boolean {
    return (this.globalReads ??= globalReads(this.scope.funcs, this.columnHost.binding)).has(key);
  }

  /** What column evaluation reads of the bar-by-bar run. */
  private makeColumnHost(): ColumnHost {
    const r = this.r;
    return {
      get n() {
        return r.n;
      },
      v6: this.scope.v6,
      get deadline() {
        return r.deadline;
      },
      get maxSteps() {
        return r.maxSteps;
      },
      get maxLoops() {
        return r.maxLoops;
      },
      ctx: r.ctx,
      funcs: this.scope.funcs,
      binding: (id) => this.scope.bindings[id],
      leaf: (e) => {
        const kind = this.names.kinds[e.id];
        return kind === FIELD ? r.column(e.name) : kind === CONSTANT ? { constant: this.names.constants[e.id]! } : undefined;
      },
      isConstantName: (e) => this.names.kinds[e.id] === CONSTANT,
      localsOf: (id, count) => this.scope.localsOf(id, count),
      constant: (e) => {
        // Its own closure on the first bar, at the top level; its steps are counted again on every bar by the caller.
        const steps = r.steps;
        const frame = r.frame;
        r.frame = r.root;
        try {
          const value = (this.exprs.code[e.id] ?? (() => NA))();
          return { value, steps: r.steps - steps };
        } finally {
          r.steps = steps;
          r.frame = frame;
        }
      },
      firstValue: (id) => {
        const slot = r.root.declSlots[id];
        return slot?.has(0) ? { value: slot.get(0) } : undefined;
      },
      site: (e, frame) => {
        r.frame = frame;
        r.siteId = e.id;
        r.sitePos = e.calleePos;
      },
    };
  }

  /** The top-level statement's closure: as columns where the plan says it may be, else `plain`. */
  wrap(s: Stmt, plain: CompiledStmt): CompiledStmt {
    const plan = this.columnPlan;
    plan.classify(s);
    if (s.kind === 'decl' && (plan.constants.has(s.id) || plan.aliases.has(s.id))) return this.steadyStmt(s, plain);
    if (s.kind === 'decl' && plan.units.has(s.id)) return this.unitStmts(s, plan.units.get(s.id)!, plain);
    const unit = this.unitLoops.get(s.id);
    if (unit) return unit(plain);
    const candidate = (s.kind === 'decl' || s.kind === 'tupledecl') && plan.candidates.has(s.id);
    // A plot keeps one value per bar and call site: made for every bar at once, its values are the same.
    const isPlot = s.kind === 'expr' && s.expr.kind === 'call' && s.expr.callee === 'plot' && !this.scope.funcs.has('plot');
    return candidate || isPlot ? this.columnStmt(s, plain) : plain;
  }

  /**
   * A top-level statement that may be columns (a declaration, a plot): on a run's first bar its
   * columns are made, and each bar then only counts the steps its closures would have (and, for a
   * variable a function reads, marks it declared on the bar). Given up, it is `plain`, its own closure.
   */
  private columnStmt(s: Stmt, plain: CompiledStmt): CompiledStmt {
    const r = this.r;
    let madeIn = 0;
    let made: ColumnStatement | null = null;
    return () => {
      if (madeIn !== r.runNo) {
        // A top-level statement runs on every bar: this is the run's first.
        madeIn = r.runNo;
        made = this.barByBar.has(s.id) ? null : this.makeColumnStmt(s);
        r.frame = r.root;
        if (made) this.used++;
        else this.barByBar.add(s.id);
      }
      if (!made) return plain();
      r.tick(s);
      r.countSteps(at(made.steps, r.bar), s);
      if (made.store) made.store(r.bar);
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
    const r = this.r;
    let steps = -1;
    return () => {
      if (r.bar > 1 && steps >= 0) {
        r.countSteps(steps, s);
        return 0;
      }
      if (r.bar !== 1) {
        steps = -1;
        return plain();
      }
      const before = r.steps;
      const flow = plain();
      if (this.readByFunctions('d' + s.id)) return flow;
      const alias = this.columnPlan.aliases.get(s.id);
      const col = alias && this.runColumns().expression(alias, true);
      r.frame = r.root;
      if (alias && !col) return flow;
      r.root.declSlots[s.id] = col ? Slot.of(col.v, col.bool) : Slot.steady(r.n, r.root.declSlots[s.id]!.get(0));
      steps = r.steps - before;
      return flow;
    };
  }

  /**
   * A declaration and the for loop right after it that alone changes it, made as columns together
   * on a run's first bar (see ColumnRun.unit): then each of the two only counts its steps on each
   * bar. Returns the declaration's closure; the loop's is made with it (see unitLoops).
   */
  private unitStmts(d: Stmt & { kind: 'decl' }, loop: ForStmt, plain: CompiledStmt): CompiledStmt {
    const r = this.r;
    let madeIn = 0;
    let made: { declSteps: Col['steps']; loopSteps: Col['steps'] } | null = null;
    this.unitLoops.set(loop.id, (plainLoop) => () => {
      if (!made) return plainLoop();
      r.tick(loop);
      r.countSteps(at(made.loopSteps, r.bar), loop);
      return 0;
    });
    return () => {
      if (madeIn !== r.runNo) {
        madeIn = r.runNo;
        made = null;
        // A function reading the variable would see it mid-loop bar by bar: left so.
        if (!this.barByBar.has(d.id) && !this.readByFunctions('d' + d.id)) {
          const u = this.runColumns().unit(d, loop);
          r.frame = r.root;
          if (u) {
            r.root.declSlots[d.id] = Slot.of(u.value.v, u.value.bool);
            made = u;
            this.used += 2;
          } else this.barByBar.add(d.id);
        }
      }
      if (!made) return plain();
      r.tick(d);
      r.countSteps(at(made.declSteps, r.bar), d);
      return 0;
    };
  }

  private makeColumnStmt(s: Stmt): ColumnStatement | null {
    const r = this.r;
    const run = this.runColumns();
    if (s.kind === 'expr') {
      const steps = s.expr.kind === 'call' ? run.output(s.expr) : null;
      return steps === null ? null : { steps, store: null };
    }
    if (s.kind !== 'decl' && s.kind !== 'tupledecl') return null;
    const c = run.declaration(s);
    if (!c) return null;
    const cols = 'v' in c ? [c] : c.items;
    const slots = s.kind === 'decl' ? [r.root.declSlots] : cols.map(() => r.root.locals);
    const places = s.kind === 'decl' ? [s.id] : this.scope.localsOf(s.id, s.names.length);
    // A variable no function reads has its values for every bar at once. One a function reads is
    // marked bar by bar: the function must not see it before its declaration has run on the bar.
    const keys = places.map((k) => (s.kind === 'decl' ? 'd' : 'l') + k);
    if (!keys.some((key) => this.readByFunctions(key))) {
      cols.forEach((col, i) => (slots[i]![places[i]!] = Slot.of(col.v, col.bool)));
      return { steps: c.steps, store: null };
    }
    const store = (bar: number) => cols.forEach((col, i) => (slots[i]![places[i]!] ??= new Slot(r.n, false)).put(bar, valueAt(col, bar)));
    return { steps: c.steps, store };
  }
}
