/**
 * The bar-by-bar evaluator's statements: each a closure made once, its parts compiled (names bound
 * as the block is made, in order; children's closures held directly). Every statement counts its
 * step first, as the tree walk did: budgets and errors are unchanged. `var` keeps its value from
 * bar to bar; a loop's iterations are budgeted.
 */
import { Env } from '../runtime/bindings.ts';
import { num } from '../runtime/ctx.ts';
import { arith, equal } from '../runtime/operators.ts';
import { isArray, NA, truthy, type Value } from '../runtime/values.ts';
import type { ForInStmt, ForStmt, IfStmt, Stmt, SwitchStmt, WhileStmt } from '../syntax/ast.ts';
import { pineError } from '../syntax/errors.ts';
import { BREAK, CONTINUE, type Block, type CompiledStmt, type Flow } from './closures.ts';
import type { Expressions, StatementCode } from './expressions.ts';
import type { RunState } from './run-state.ts';
import type { Scope } from './scope.ts';

/** Top-level statements made as columns where they can be (columns/top-level.ts); absent, all run bar by bar. */
export interface TopLevelHook {
  /** Before a top-level statement's closure is made: its parts that may be columns. */
  parts(s: Stmt): void;
  /** The top-level statement's closure, given its bar-by-bar one. */
  wrap(s: Stmt, plain: CompiledStmt): CompiledStmt;
}

export class Statements implements StatementCode {
  private readonly blocks = new WeakMap<Stmt[], Block>();
  private readonly stmtCode: (CompiledStmt | undefined)[] = [];

  constructor(
    private readonly r: RunState,
    private readonly scope: Scope,
    private readonly exprs: Expressions,
    private readonly topLevel: TopLevelHook | null,
  ) {}

  /**
   * A block's statements as closures, made once per block in `env` (by default a block nested in
   * the one being made): its names are bound as its statements are made, in their order.
   */
  codeOf(stmts: Stmt[], env = new Env(this.scope.env)): Block {
    let code = this.blocks.get(stmts);
    if (!code) {
      code = { run: [] };
      // Registered before its statements compile: a recursive call inside a function body finds it.
      this.blocks.set(stmts, code);
      const run = code.run;
      this.scope.within(env, () => {
        for (const s of stmts) run.push(this.stmtCode[s.id] ?? this.compileStmt(s));
      });
    }
    return code;
  }

  /** Runs a block; its last statement's value is left in `last`. */
  exec(code: Block): Flow {
    const r = this.r;
    r.last = NA;
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

  /** A top-level statement may be (or hold parts that are) columns: see columns/top-level.ts. */
  private stmtClosure(s: Stmt): CompiledStmt {
    const top = this.topLevel;
    if (!top || !this.scope.atTop) return this.barByBarStmt(s);
    top.parts(s);
    return top.wrap(s, this.barByBarStmt(s));
  }

  private barByBarStmt(s: Stmt): CompiledStmt {
    const r = this.r;
    switch (s.kind) {
      case 'decl': {
        // The value is made before the name is declared: `x = x + 1` reads an outer x.
        const init = this.exprs.c(s.init);
        const label = s.name;
        const again = this.scope.env.has(label);
        this.scope.env.add(label, { kind: 'decl', index: s.id, global: false });
        const redeclared = () => pineError(s, `'${label}' is already declared in this block; reassign it with ':='`);
        if (s.mode === null && !this.mayName(s.init)) {
          // Nothing in the value can take the declared name (no input.* or user call): evaluated directly.
          return () => {
            r.tick(s);
            if (again) throw redeclared();
            const slot = r.declSlot(s.id, false);
            const v = init();
            slot.put(r.bar, v);
            // The value itself, not read back from the slot (a number read back is boxed anew).
            r.last = v;
            return 0;
          };
        }
        if (s.mode === null) {
          return () => {
            r.tick(s);
            if (again) throw redeclared();
            const slot = r.declSlot(s.id, false);
            const v = r.assigned(init, label);
            slot.put(r.bar, v);
            r.last = v;
            return 0;
          };
        }
        return () => {
          r.tick(s);
          if (again) throw redeclared();
          const slot = r.declSlot(s.id, true);
          // `var`: initialised once, then carried from bar to bar.
          if (!slot.inited) {
            slot.put(r.bar, r.assigned(init, label));
            slot.inited = true;
          } else if (!slot.has(r.bar)) slot.put(r.bar, slot.get(r.bar - 1));
          r.last = slot.get(r.bar);
          return 0;
        };
      }
      case 'tupledecl': {
        const init = this.exprs.c(s.init);
        const count = s.names.length;
        const locals = this.scope.localsOf(s.id, count);
        this.scope.env.addLocals(s.names, locals);
        return () => {
          r.tick(s);
          const v = init();
          if (!Array.isArray(v) || v.length !== count)
            throw pineError(s, `the right-hand side gives ${Array.isArray(v) ? v.length : 1} value(s), ${count} names are declared`);
          for (let i = 0; i < count; i++) r.localSlot(locals[i]!).put(r.bar, v[i]!);
          r.last = v;
          return 0;
        };
      }
      case 'assign': {
        const value = this.exprs.c(s.value);
        const target = this.scope.env.resolve(s.name, this.scope.topLevel);
        const local = target?.kind === 'local';
        const k = target?.index ?? 0;
        const op = s.op;
        return () => {
          r.tick(s);
          if (!target) throw pineError(s, `'${s.name}' is assigned before it is declared; declare it with '=' first`);
          if (target.global)
            throw pineError(s, `a function cannot assign the global variable '${s.name}' (as in Pine); return the value instead`);
          const slot = local ? r.frame.locals[k]! : r.frame.declSlots[k]!;
          let v = value();
          if (op !== ':=') {
            const cur = slot.get(r.bar);
            v =
              typeof cur === 'number' && typeof v === 'number' && op !== '/=' && op !== '%='
                ? op === '+='
                  ? cur + v
                  : op === '-='
                    ? cur - v
                    : cur * v
                : arith(op[0]!, cur, v, s);
          }
          slot.put(r.bar, v);
          r.last = v;
          return 0;
        };
      }
      case 'expr': {
        const expr = this.exprs.c(s.expr);
        return () => {
          r.tick(s);
          r.last = expr();
          return 0;
        };
      }
      case 'break':
        return () => {
          r.tick(s);
          return BREAK;
        };
      case 'continue':
        return () => {
          r.tick(s);
          return CONTINUE;
        };
      case 'if':
      case 'switch': {
        const run = s.kind === 'if' ? this.ifRunner(s) : this.switchRunner(s);
        return () => {
          r.tick(s);
          return run();
        };
      }
      case 'for':
      case 'forin':
      case 'while': {
        const run = this.loopRunner(s);
        return () => {
          r.tick(s);
          run();
          return 0;
        };
      }
      case 'func':
        return () => {
          r.tick(s);
          return 0;
        };
    }
  }

  /** Whether evaluating `node` may call an input.* (which takes the declared name) or a user function (which may). */
  private mayName(node: unknown): boolean {
    if (!node || typeof node !== 'object') return false;
    if (Array.isArray(node)) return node.some((x) => this.mayName(x));
    const call = node as { kind?: unknown; callee?: unknown };
    if (
      call.kind === 'call' &&
      typeof call.callee === 'string' &&
      (call.callee === 'input' || call.callee.startsWith('input.') || this.scope.funcs.has(call.callee))
    )
      return true;
    return Object.values(node).some((x) => this.mayName(x));
  }

  ifRunner(s: IfStmt): CompiledStmt {
    const r = this.r;
    const branches = s.branches.map((b) => ({ cond: this.exprs.c(b.cond), body: this.codeOf(b.body) }));
    const otherwise = s.otherwise ? this.codeOf(s.otherwise) : null;
    return () => {
      for (let i = 0; i < branches.length; i++) {
        const b = branches[i]!;
        if (truthy(b.cond())) return this.exec(b.body);
      }
      if (otherwise) return this.exec(otherwise);
      r.last = NA;
      return 0;
    };
  }

  switchRunner(s: SwitchStmt): CompiledStmt {
    const r = this.r;
    const subject = s.subject ? this.exprs.c(s.subject) : null;
    const cases = s.cases.map((c) => ({ match: c.match ? this.exprs.c(c.match) : null, body: this.codeOf(c.body) }));
    return () => {
      const value = subject ? subject() : undefined;
      for (let i = 0; i < cases.length; i++) {
        const c = cases[i]!;
        const hit = c.match === null || (subject ? equal(c.match(), value!) : truthy(c.match()));
        if (hit) return this.exec(c.body);
      }
      r.last = NA;
      return 0;
    };
  }

  /** A loop's runner; its value (for `x = for …`) is the last statement's of the last iteration. */
  loopRunner(s: ForStmt | ForInStmt | WhileStmt): () => Value {
    const r = this.r;
    if (s.kind === 'for') {
      const fromC = this.exprs.c(s.from);
      const toC = this.exprs.c(s.to);
      const stepC = s.step ? this.exprs.c(s.step) : null;
      const [counterLocal] = this.scope.localsOf(s.id, 1) as [number];
      const body = this.codeOf(s.body, new Env(this.scope.env).addLocals([s.counter], [counterLocal]));
      return () => {
        let iterations = 0;
        let value: Value = NA;
        const from = num(fromC());
        const to = num(toC());
        if (from !== from || to !== to) throw pineError(s, 'the bounds of a for loop are na');
        let step = stepC ? Math.abs(num(stepC())) : 1;
        if (!(step > 0)) throw pineError(s, 'the step of a for loop must be positive');
        if (to < from) step = -step;
        const counter = r.localSlot(counterLocal);
        for (let i = from; step > 0 ? i <= to : i >= to; i += step) {
          if (++iterations > r.maxLoops) throw r.overCap(s, r.maxLoops);
          counter.put(r.bar, i);
          const flow = this.exec(body);
          value = r.last;
          if (flow === BREAK) break;
        }
        r.last = value;
        return value;
      };
    }
    if (s.kind === 'forin') {
      const iterable = this.exprs.c(s.iterable);
      const locals = this.scope.localsOf(s.id, s.names.length);
      const body = this.codeOf(s.body, new Env(this.scope.env).addLocals(s.names, locals));
      return () => {
        let iterations = 0;
        let value: Value = NA;
        const it = iterable();
        if (!isArray(it)) throw pineError(s.iterable, 'for … in needs an array');
        const slots = locals.map((k) => r.localSlot(k));
        for (let i = 0; i < it.items.length; i++) {
          if (++iterations > r.maxLoops) throw r.overCap(s, r.maxLoops);
          if (slots.length === 2) {
            slots[0]!.put(r.bar, i);
            slots[1]!.put(r.bar, it.items[i]!);
          } else slots[0]!.put(r.bar, it.items[i]!);
          const flow = this.exec(body);
          value = r.last;
          if (flow === BREAK) break;
        }
        r.last = value;
        return value;
      };
    }
    const cond = this.exprs.c(s.cond);
    const body = this.codeOf(s.body);
    return () => {
      let iterations = 0;
      let value: Value = NA;
      while (truthy(cond())) {
        if (++iterations > r.maxLoops) throw r.overCap(s, r.maxLoops);
        const flow = this.exec(body);
        value = r.last;
        if (flow === BREAK) break;
      }
      r.last = value;
      return value;
    };
  }
}
