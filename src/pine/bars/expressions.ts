/**
 * The bar-by-bar evaluator's expressions: each AST node becomes, once, a closure of ours holding
 * its children's closures (user text is never turned into JavaScript source: the closures are
 * fixed code, the script only picks which run). Every variable is a series: its value per bar is
 * kept, so `x[n]` reads n bars back; each call site of a user function has its own variables and
 * built-in state, as in Pine. What is known before the run (a name's kind, a call's target and
 * argument places, an operator) is resolved once, as the closure is made.
 */
import { BUILTINS } from '../builtins/builtins.ts';
import { methodBuiltin } from '../builtins/methods.ts';
import { Env, type Binding } from '../runtime/bindings.ts';
import { num, type CallExpr } from '../runtime/ctx.ts';
import { historyOffset, literalOffset } from '../runtime/operators.ts';
import { Frame, Slot } from '../runtime/slots.ts';
import { NA, truthy, type Value } from '../runtime/values.ts';
import type { Expr, ForInStmt, ForStmt, FuncDef, IfStmt, Stmt, SwitchStmt, WhileStmt } from '../syntax/ast.ts';
import { pineError, unsupported, type PineError } from '../syntax/errors.ts';
import { binaryClosure } from './binary.ts';
import type { Block, Compiled, CompiledStmt, Flow } from './closures.ts';
import { CONSTANT, FIELD, type Names } from './names.ts';
import type { RunState } from './run-state.ts';
import type { Scope } from './scope.ts';

/** What expressions need of the statements' closures: blocks (if/switch/loop expressions, function bodies) and running them. */
export interface StatementCode {
  codeOf(stmts: Stmt[], env?: Env): Block;
  exec(code: Block): Flow;
  ifRunner(s: IfStmt): CompiledStmt;
  switchRunner(s: SwitchStmt): CompiledStmt;
  loopRunner(s: ForStmt | ForInStmt | WhileStmt): () => Value;
}

export class Expressions {
  /** Each expression node as a closure (by node id), made on its first evaluation: see compile(). */
  readonly code: (Compiled | undefined)[] = [];
  private stmts!: StatementCode;

  constructor(
    private readonly r: RunState,
    private readonly scope: Scope,
    private readonly names: Names,
  ) {}

  /** The statements' closure maker, given once both exist (each makes the other's parts). */
  attach(stmts: StatementCode): void {
    this.stmts = stmts;
  }

  /** An expression node's closure, made on first need (by node id). */
  c(e: Expr): Compiled {
    return this.code[e.id] ?? this.compile(e);
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
    const r = this.r;
    const stmts = this.stmts;
    switch (e.kind) {
      case 'num':
      case 'str':
      case 'bool':
      case 'color': {
        const v = e.value;
        return () => {
          r.steps++;
          return v;
        };
      }
      case 'na':
        return () => {
          r.steps++;
          return NA;
        };
      case 'name':
        return this.nameClosure(e);
      case 'call':
        return this.callClosure(e);
      case 'binary':
        return binaryClosure(e, r, this.scope.v6, (x) => this.c(x));
      case 'unary': {
        if (e.operand.kind === 'num' && e.op !== 'not') {
          // `-1`: a constant, still two steps.
          const v = e.op === '-' ? -e.operand.value : e.operand.value;
          return () => {
            r.steps += 2;
            return v;
          };
        }
        const operand = this.c(e.operand);
        if (e.op === 'not') {
          return () => {
            r.tick(e);
            return !truthy(operand());
          };
        }
        const sign = e.op === '-' ? -1 : 1;
        return () => {
          r.tick(e);
          return sign * num(operand());
        };
      }
      case 'ternary': {
        const cond = this.c(e.cond);
        const then = this.c(e.then);
        const otherwise = this.c(e.else);
        return () => {
          r.tick(e);
          return truthy(cond()) ? then() : otherwise();
        };
      }
      case 'index':
        return this.indexClosure(e);
      case 'tuple': {
        const items = e.items.map((x) => this.c(x));
        return () => {
          r.tick(e);
          return items.map((item) => item());
        };
      }
      case 'if':
      case 'switch': {
        const run = e.kind === 'if' ? stmts.ifRunner(e.stmt) : stmts.switchRunner(e.stmt);
        return () => {
          r.tick(e);
          run();
          return r.last;
        };
      }
      case 'loop': {
        const run = stmts.loopRunner(e.stmt);
        return () => {
          r.tick(e);
          return run();
        };
      }
    }
  }

  /** `x[n]`: a name's value n bars back, or any other expression's, kept by bar at its node. */
  private indexClosure(e: Expr & { kind: 'index' }): Compiled {
    const r = this.r;
    const { target } = e;
    const offsetC = this.c(e.offset);
    const literal = literalOffset(e.offset);
    const back =
      literal !== null
        ? // `x[1]`: the offset is known; its literal still counts its step.
          (): number => {
            r.steps++;
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
      if (!b && this.names.kinds[target.id] === FIELD) {
        return () => {
          r.tick(e);
          const j = r.bar - back();
          return j < 0 ? NA : (r.nameColumns[target.id] ?? this.names.fieldColumn(target))[j]!;
        };
      }
      if (b && !b.global) {
        const k = b.index;
        const local = b.kind === 'local';
        return () => {
          r.tick(e);
          const j = r.bar - back();
          return (local ? r.frame.locals[k]! : r.frame.declSlots[k]!).get(j);
        };
      }
      return () => {
        r.tick(e);
        return this.names.read(target, back());
      };
    }
    const targetC = this.c(target);
    return () => {
      r.tick(e);
      const offset = back();
      // The expression runs on every bar, whatever the offset: its history must be complete.
      const v = targetC();
      const states = r.frame.states;
      let hist = states[e.id] as Slot | undefined;
      if (!hist) states[e.id] = hist = new Slot(r.n, false);
      hist.put(r.bar, v);
      return hist.get(r.bar - offset);
    };
  }

  private nameClosure(e: Expr & { kind: 'name' }): Compiled {
    const r = this.r;
    const b = this.bind(e);
    if (b && !b.global) {
      // The declaration ran before this read, on this bar, in this frame: its slot is there.
      const k = b.index;
      if (b.kind === 'decl') {
        return () => {
          r.steps++;
          return r.frame.declSlots[k]!.get(r.bar);
        };
      }
      return () => {
        r.steps++;
        return r.frame.locals[k]!.get(r.bar);
      };
    }
    const kind = this.names.kinds[e.id];
    if (!b && kind === FIELD) {
      return () => {
        r.steps++;
        return (r.nameColumns[e.id] ?? this.names.fieldColumn(e))[r.bar]!;
      };
    }
    if (!b && kind === CONSTANT) {
      const v = this.names.constants[e.id]!;
      return () => {
        r.steps++;
        return v;
      };
    }
    return () => {
      r.tick(e);
      return this.names.read(e, 0);
    };
  }

  /** Binds a name node to the variable it reads here, or else resolves what built-in it names (once, as its closure is made). */
  private bind(e: Expr & { kind: 'name' }): Binding | undefined {
    const b = this.scope.env.resolve(e.name, this.scope.topLevel);
    if (b) this.scope.bindings[e.id] = b;
    else this.names.resolve(e);
    return b;
  }

  private callClosure(e: CallExpr): Compiled {
    const r = this.r;
    const user = this.scope.funcs.get(e.callee);
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
      r.tick(e);
      if (doneIn === r.runNo) return value;
      for (let i = 0; i < args.length; i++) a[i] = args[i]!();
      for (let i = 0; i < named.length; i++) {
        const [at, expr] = named[i]!;
        const v = expr();
        // −1: a parameter accepted and ignored.
        if (at >= 0) a[at] = v;
      }
      // Set right before the built-in runs (its arguments, already evaluated, may have set their own):
      // only a built-in reads them, so nothing is restored after.
      r.siteId = e.id;
      r.sitePos = e.calleePos;
      const v = b.fn(r.ctx, a, e);
      if (b.once) {
        // Its value never changes in a run (header, hline, typed inputs): later calls skip it.
        doneIn = r.runNo;
        value = v;
      }
      return v;
    };
  }

  /** `a.push(x)`: the built-in of the receiver's kind (see methods.ts), the receiver its first argument. */
  private methodCallClosure(e: CallExpr): Compiled {
    const r = this.r;
    const dot = e.callee.indexOf('.');
    const head = e.callee.slice(0, dot);
    const receiverVar = this.scope.env.resolve(head, this.scope.topLevel);
    const method = e.callee.slice(dot + 1);
    const args = e.args.map((x) => this.c(x));
    const named = Object.entries(e.named).map(([k, x]) => [k, this.c(x)] as const);
    return () => {
      r.tick(e);
      const slot = receiverVar && r.slotOf(receiverVar);
      if (!slot) throw pineError(e.calleePos, `unknown name '${head}': declare it before calling its methods`);
      const receiver = slot.get(r.bar);
      const b = methodBuiltin(receiver, method);
      if (!b)
        throw unsupported(e.calleePos, `method ${method}() on this value`, 'is not supported: methods are called on arrays and strings');
      const a = new Array<Value>(b.params.length);
      a[0] = receiver;
      for (let i = 0; i < args.length; i++) a[i + 1] = args[i]!();
      for (const [k, x] of named) {
        const at = b.params.indexOf(k);
        if (at < 0) throw unsupported(e.named[k]!, `argument '${k}' of ${e.callee}()`);
        a[at] = x();
      }
      r.siteId = e.id;
      r.sitePos = e.calleePos;
      return b.fn(r.ctx, a, e);
    };
  }

  /**
   * A call of a user function: its arguments' places and its body compiled once. A wrong call is
   * found here but told only when it runs, where the tree walk would have told it.
   */
  private userCallClosure(fn: FuncDef, e: CallExpr): Compiled {
    const r = this.r;
    const stmts = this.stmts;
    const params = fn.params;
    let problem: PineError | null = null;
    if (e.args.length > params.length) problem = pineError(e.calleePos, `${fn.name}() takes ${params.length} arguments`);
    for (const k in e.named)
      if (!problem && !params.some((p) => p.name === k)) problem = pineError(e.named[k]!, `${fn.name}() has no parameter '${k}'`);
    const args: Compiled[] = [];
    for (const p of params) {
      const given = e.args[args.length] ?? e.named[p.name] ?? p.default;
      if (!given) {
        problem ??= pineError(e.calleePos, `${fn.name}() needs its argument '${p.name}'`);
        break;
      }
      // A default is made once for every call: it sees the script's top-level names only.
      args.push(given === p.default ? this.scope.within(new Env(null, true), () => this.c(given)) : this.c(given));
    }
    // The same local numbers at every call site: the body is made once, each call runs it in its own frame.
    const locals = this.scope.localsOf(fn.id, params.length);
    const body = stmts.codeOf(
      fn.body,
      new Env(null, true).addLocals(
        params.map((p) => p.name),
        locals,
      ),
    );
    const values = new Array<Value>(params.length);
    return () => {
      r.tick(e);
      if (++r.depth > 100) throw pineError(e.calleePos, `calls nest deeper than 100 levels (recursion is not allowed in Pine)`);
      if (problem) throw problem;
      // Arguments are evaluated in the caller's frame, before the callee's frame is entered.
      const given = r.depth === 1 ? values : new Array<Value>(params.length);
      for (let i = 0; i < args.length; i++) given[i] = args[i]!();
      const parent = r.frame;
      const child = (parent.children[e.id] ??= new Frame());
      r.frame = child;
      try {
        for (let i = 0; i < locals.length; i++) r.localSlot(locals[i]!).put(r.bar, given[i]!);
        stmts.exec(body);
        return r.last;
      } finally {
        r.frame = parent;
        r.depth--;
      }
    };
  }
}
