/**
 * The static check before any bar runs: every call names a built-in or a user function with
 * known arguments, every dotted name is known, drawing calls stand at the top level. Unsupported
 * constructs fail here, located, never at some later bar.
 */
import type { Expr, FuncDef, Program, Stmt } from '../syntax/ast.ts';
import { pineError, unsupported } from '../syntax/errors.ts';
import { OTHER_VARIABLES } from '../builtins/bar-values.ts';
import { BUILTINS } from '../builtins/builtins.ts';
import { constant } from '../builtins/core.ts';
import { methodCandidates } from '../builtins/methods.ts';

/** Calls Pine allows only at the top level of the script. */
const GLOBAL_ONLY = /^(plot|plotshape|plotchar|hline|fill|bgcolor|barcolor|alertcondition|indicator|strategy|library|input(\..+)?)$/;

/** Pine's built-in namespaces: a dotted call outside them is a method call on a variable. */
const NAMESPACES = new Set([
  'ta',
  'math',
  'str',
  'array',
  'matrix',
  'map',
  'color',
  'input',
  'strategy',
  'request',
  'line',
  'label',
  'box',
  'table',
  'polyline',
  'linefill',
  'chart',
  'ticker',
  'log',
  'runtime',
  'timeframe',
  'syminfo',
  'barstate',
  'session',
  'alert',
  'time',
]);

/** What to do instead of a built-in that stays unsupported, by name or namespace. */
const INSTEAD: [RegExp, string][] = [
  [/^request\./, 'the script runs on the requested symbol and timeframe only; set them in the request, or compute from the chart’s bars'],
  [
    /^(line|label|box|table|polyline|linefill|chart)\./,
    'drawings are not part of the answer; mark bars with plotshape()/plotchar() or draw levels with plot()/hline()',
  ],
  [/^alert$/, 'use alertcondition(condition, title, message) at the top level: its bars are answered as signals'],
  [
    /^strategy\./,
    'strategy orders are answered as signals from strategy.entry/close/exit/close_all; other strategy functions and statistics are not simulated',
  ],
  [/^(plotcandle|plotbar|plotarrow)$/, 'plot the values with plot() instead'],
  [/^math\.random$/, 'random numbers would change the answer on every request; use a deterministic rule'],
];
const whyUnsupported = (callee: string): string | undefined => {
  const hit = INSTEAD.find(([re]) => re.test(callee));
  return hit ? `is not supported: ${hit[1]}` : undefined;
};

/** Order arguments that make an order wait for a price: their fills are not simulated. */
const PRICE_ARGS: Record<string, string[]> = {
  'strategy.entry': ['limit', 'stop'],
  'strategy.exit': ['profit', 'limit', 'loss', 'stop', 'trail_price', 'trail_points', 'trail_offset'],
};

/** A price order's argument given at this call (named, or by position), if any. */
function priceArgument(e: Expr & { kind: 'call' }): string | null {
  const args = PRICE_ARGS[e.callee];
  const params = BUILTINS[e.callee]?.params;
  if (!args || !params) return null;
  return args.find((k) => k in e.named || e.args.length > params.indexOf(k)) ?? null;
}

/** Calls that give the script an output (TradingView refuses a script without one). */
const OUTPUTS = /^(plot|plotshape|plotchar|hline|fill|bgcolor|barcolor|alertcondition|strategy\.(entry|close|exit|close_all))$/;

/**
 * What every runnable script has: statements, a declaration (indicator/strategy/library) and,
 * unless it is a library, at least one output. Told at 1:1, with what to add.
 */
function checkShape(program: Program, hasOutput: boolean): void {
  const start = { line: 1, col: 1 };
  if (program.body.length === 0)
    throw pineError(
      start,
      'the script is empty (or only comments): paste a whole Pine script, starting with //@version=5 and indicator("Title")',
    );
  if (program.header === null)
    throw pineError(
      start,
      'the script has no indicator(), strategy() or library() declaration: add indicator("Title") after the //@version line, as TradingView requires',
    );
  if (!hasOutput && program.header !== 'library') {
    throw pineError(
      start,
      'the script has no output: add a plot(), plotshape(), plotchar(), hline(), bgcolor(), alertcondition() or a strategy order, as TradingView requires',
    );
  }
}

/** Checks the program before any bar runs. */
export function checkProgram(program: Program, funcs: ReadonlyMap<string, FuncDef>): void {
  const stmts = program.body;
  let hasOutput = false;
  let positionRead: Expr | null = null;
  let priceOrder: { call: Expr & { kind: 'call' }; arg: string } | null = null;

  /** Inside an if/for/while/switch body or a function: Pine's local scope. */
  let local = 0;
  const body = (list: Stmt[]) => {
    local++;
    list.forEach(visitStmt);
    local--;
  };
  const visitExpr = (e: Expr | null | undefined): void => {
    if (!e) return;
    switch (e.kind) {
      case 'call': {
        if (local > 0 && GLOBAL_ONLY.test(e.callee)) {
          throw pineError(
            e.calleePos,
            `${e.callee}() cannot be called in a local block (if, for, while, switch or a function body), as in Pine; move it to the top level`,
          );
        }
        if (!BUILTINS[e.callee] && !funcs.has(e.callee)) {
          const ns = e.callee.split('.')[0]!;
          if (e.callee.includes('.') && !NAMESPACES.has(ns)) {
            // receiver.method(…): an array.* or str.* built-in with the receiver first.
            const method = e.callee.slice(ns.length + 1);
            const candidates = methodCandidates(method);
            if (candidates.length === 0) {
              throw unsupported(
                e.calleePos,
                `method ${method}() of '${ns}'`,
                'is not supported (methods of arrays and strings are, e.g. a.push(x), s.length())',
              );
            }
            if (e.args.length + 1 > Math.max(...candidates.map((b) => b.params.length)))
              throw pineError(e.calleePos, `${e.callee}() has too many arguments`);
            e.args.forEach(visitExpr);
            Object.values(e.named).forEach(visitExpr);
            return;
          }
          if (e.callee.includes('.') || /^(plotcandle|plotbar|plotarrow|alert|max_bars_back|time|time_close|timestamp)$/.test(e.callee)) {
            throw unsupported(e.calleePos, `${e.callee}()`, whyUnsupported(e.callee));
          }
          throw pineError(e.calleePos, `unknown function '${e.callee}': declare it before use or check the spelling`);
        }
        const b = BUILTINS[e.callee];
        if (b) {
          if (e.args.length > b.params.length)
            throw pineError(e.calleePos, `${e.callee}() takes at most ${b.params.length} positional arguments`);
          for (const k of Object.keys(e.named)) {
            if (!b.params.includes(k) && !b.ignored?.includes(k)) throw unsupported(e.named[k]!, `argument '${k}' of ${e.callee}()`);
          }
        }
        if (OUTPUTS.test(e.callee)) hasOutput = true;
        const arg = priceArgument(e);
        if (arg && !priceOrder) priceOrder = { call: e, arg };
        e.args.forEach(visitExpr);
        Object.values(e.named).forEach(visitExpr);
        return;
      }
      case 'name':
        if (e.name.includes('.') && constant(e.name) === undefined && !OTHER_VARIABLES.has(e.name)) throw unsupported(e, `'${e.name}'`);
        if (e.name === 'strategy.position_size') positionRead ??= e;
        return;
      case 'index':
        visitExpr(e.target);
        visitExpr(e.offset);
        return;
      case 'unary':
        visitExpr(e.operand);
        return;
      case 'binary':
        visitExpr(e.left);
        visitExpr(e.right);
        return;
      case 'ternary':
        visitExpr(e.cond);
        visitExpr(e.then);
        visitExpr(e.else);
        return;
      case 'tuple':
        e.items.forEach(visitExpr);
        return;
      case 'if':
      case 'switch':
      case 'loop':
        visitStmt(e.stmt);
        return;
    }
  };
  const visitStmt = (s: Stmt): void => {
    switch (s.kind) {
      case 'decl':
        visitExpr(s.init);
        return;
      case 'tupledecl':
        visitExpr(s.init);
        return;
      case 'assign':
        visitExpr(s.value);
        return;
      case 'expr':
        visitExpr(s.expr);
        return;
      case 'if':
        s.branches.forEach((b) => (visitExpr(b.cond), body(b.body)));
        if (s.otherwise) body(s.otherwise);
        return;
      case 'switch':
        visitExpr(s.subject);
        s.cases.forEach((c) => (visitExpr(c.match), body(c.body)));
        return;
      case 'for':
        visitExpr(s.from);
        visitExpr(s.to);
        visitExpr(s.step);
        body(s.body);
        return;
      case 'forin':
        visitExpr(s.iterable);
        body(s.body);
        return;
      case 'while':
        visitExpr(s.cond);
        body(s.body);
        return;
      case 'func':
        s.params.forEach((p) => visitExpr(p.default));
        body(s.body);
        return;
    }
  };
  stmts.forEach(visitStmt);
  checkShape(program, hasOutput);
  const order = priceOrder as { call: Expr & { kind: 'call' }; arg: string } | null;
  if (positionRead && order) {
    // The position follows market orders (filled on the next bar); a stop or limit fills only if
    // price reaches it, which is not simulated, so the script would see another position than on TradingView.
    const { call, arg } = order;
    throw unsupported(
      positionRead,
      `strategy.position_size with price orders (${call.callee}(${arg}=…) at line ${call.line})`,
      'is not supported: fills of stop/limit orders are not simulated, so the position would differ from TradingView’s; read the position only in scripts whose orders are market orders',
    );
  }
}
