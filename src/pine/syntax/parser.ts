import type { Expr, ForInStmt, ForStmt, FuncDef, IfStmt, Program, Stmt, SwitchStmt, WhileStmt } from './ast.ts';
import { pineError, unsupported } from './errors.ts';
import { ExpressionParser } from './expressions.ts';
import { tokenize, type Token } from './lexer.ts';

const TYPE_NAMES = new Set([
  'float',
  'int',
  'bool',
  'string',
  'color',
  'line',
  'label',
  'box',
  'table',
  'array',
  'matrix',
  'map',
  'linefill',
  'polyline',
]);
const QUALIFIERS = new Set(['series', 'simple', 'const', 'input']);
const ASSIGN_OPS = new Set([':=', '+=', '-=', '*=', '/=', '%=']);

/** Parses Pine v5/v6 source into a Program; a PineError names the line:column of the first problem. */
export function parsePine(source: string): Program {
  const version = /^\s*\/\/\s*@version\s*=\s*(\d+)/m.exec(source);
  const v = version ? Number(version[1]) : null;
  if (v !== null && v < 5) {
    const line = source.slice(0, version!.index).split('\n').length;
    throw unsupported({ line, col: 1 }, `//@version=${v}`, 'is not supported (Pine v5 and v6 are)');
  }
  const p = new Parser(tokenize(source));
  const body = p.program();
  const headerCall = body.find(
    (s) => s.kind === 'expr' && s.expr.kind === 'call' && ['indicator', 'strategy', 'library'].includes(s.expr.callee),
  );
  const header =
    headerCall && headerCall.kind === 'expr' && headerCall.expr.kind === 'call' ? (headerCall.expr.callee as Program['header']) : null;
  return { version: v, header, body, nodes: p.ids };
}

/** Pine statements and blocks (indentation as indent/dedent tokens); expressions are ExpressionParser's. */
class Parser extends ExpressionParser {
  program(): Stmt[] {
    const out: Stmt[] = [];
    this.skipNewlines();
    while (this.tok.kind !== 'eof') {
      if (this.tok.kind === 'indent')
        throw pineError(this.tok, 'unexpected indentation: only the body of an if, for, while, switch or function is indented');
      out.push(this.statement(true));
      this.endOfStatement();
    }
    return out;
  }

  private endOfStatement(): void {
    if (this.tok.kind === 'eof' || this.tok.kind === 'dedent') return;
    if (this.tok.kind !== 'newline') throw this.fail('expected the end of the statement');
    this.skipNewlines();
  }

  /** An indented block after a header line (or a single statement on the same line for `=>`). */
  private block(): Stmt[] {
    if (this.tok.kind !== 'newline') throw this.fail('expected a new line and an indented block');
    this.skipNewlines();
    if (this.kind() !== 'indent') throw this.fail('expected an indented block (4 spaces)');
    this.next();
    const out: Stmt[] = [];
    while (this.kind() !== 'dedent' && this.kind() !== 'eof') {
      out.push(this.statement(false));
      this.endOfStatement();
    }
    if (this.kind() === 'dedent') this.next();
    return out;
  }

  private statement(topLevel: boolean): Stmt {
    const tok = this.tok;
    if (tok.kind === 'kw') {
      switch (tok.text) {
        case 'import':
        case 'export':
        case 'method':
        case 'enum':
          throw unsupported(tok, `'${tok.text}'`);
        case 'type':
          throw unsupported(tok, "user-defined types ('type')");
        case 'if':
          return this.ifStmt();
        case 'for':
          return this.forStmt();
        case 'while':
          return this.whileStmt();
        case 'switch':
          return this.switchStmt();
        case 'break':
          this.next();
          return this.node(tok, { kind: 'break' as const });
        case 'continue':
          this.next();
          return this.node(tok, { kind: 'continue' as const });
        case 'var':
        case 'varip':
          return this.declaration();
      }
    }
    if (tok.kind === 'op' && tok.text === '[' && this.isTupleDecl()) return this.tupleDecl();
    if (tok.kind === 'ident') {
      // f(a, b = 1) => …
      if (this.is('(', this.peek()) && this.isFuncDef()) {
        if (!topLevel) throw pineError(tok, 'functions are declared at the top level of the script only');
        return this.funcDef();
      }
      if (this.isDeclStart()) return this.declaration();
      const after = this.peek();
      if (after.kind === 'op' && ASSIGN_OPS.has(after.text)) {
        const name = this.next().text;
        const op = this.next().text as ':=';
        return this.node(tok, { kind: 'assign' as const, name, op, value: this.rhs() });
      }
    }
    const expr = this.expression();
    if (this.tok.kind === 'op' && (this.tok.text === '=' || ASSIGN_OPS.has(this.tok.text))) {
      throw pineError(this.tok, `only a plain variable name can be assigned with '${this.tok.text}'`);
    }
    return this.node(tok, { kind: 'expr' as const, expr });
  }

  /** `name =`, `type name =`, `qualifier type name =`, `array<float> name =`. */
  private isDeclStart(): boolean {
    let k = 0;
    const at = (n: number) => this.peek(n);
    if (at(k).kind === 'ident' && QUALIFIERS.has(at(k).text) && at(k + 1).kind === 'ident') k++;
    if (at(k).kind === 'ident' && TYPE_NAMES.has(at(k).text) && (at(k + 1).kind === 'ident' || this.is('<', at(k + 1)))) {
      if (this.is('<', at(k + 1))) {
        k += 2;
        while (at(k).kind !== 'eof' && !this.is('>', at(k))) k++;
      }
      k++;
    }
    return at(k).kind === 'ident' && this.is('=', at(k + 1));
  }

  private declaration(): Stmt {
    const start = this.tok;
    let mode: 'var' | 'varip' | null = null;
    if (this.is('var') || this.is('varip')) mode = this.next().text as 'var';
    if (this.tok.kind === 'ident' && QUALIFIERS.has(this.tok.text) && this.peek().kind === 'ident') this.next();
    let type: string | null = null;
    if (this.tok.kind === 'ident' && TYPE_NAMES.has(this.tok.text) && (this.peek().kind === 'ident' || this.is('<', this.peek()))) {
      const typeTok = this.next();
      type = typeTok.text;
      if (this.is('<')) {
        this.next();
        type += `<${this.ident('a type').text}>`;
        this.expect('>');
      }
      if (['line', 'label', 'box', 'table', 'matrix', 'map', 'linefill', 'polyline'].includes(typeTok.text))
        throw unsupported(typeTok, `the '${typeTok.text}' type`);
    }
    if (mode && this.tok.kind === 'op' && this.tok.text === '[') throw pineError(this.tok, `a tuple cannot be declared with '${mode}'`);
    const name = this.ident('a variable name').text;
    this.expect('=', "'=' (declarations use '=', reassignments ':=')");
    return this.node(start, { kind: 'decl' as const, mode, type, name, init: this.rhs() });
  }

  private isTupleDecl(): boolean {
    let k = 1;
    while (this.peek(k).kind === 'ident' || this.is(',', this.peek(k))) k++;
    return this.is(']', this.peek(k)) && this.is('=', this.peek(k + 1));
  }

  private tupleDecl(): Stmt {
    const start = this.expect('[');
    const names: string[] = [];
    do names.push(this.ident().text);
    while (this.is(',') && this.next());
    this.expect(']');
    this.expect('=');
    return this.node(start, { kind: 'tupledecl' as const, names, init: this.rhs() });
  }

  /** The right-hand side of `=`/`:=`: an expression, or an `if`/`switch`/loop used for its value. */
  private rhs(): Expr {
    const tok = this.tok;
    if (this.is('if')) return this.node(tok, { kind: 'if' as const, stmt: this.ifStmt() });
    if (this.is('switch')) return this.node(tok, { kind: 'switch' as const, stmt: this.switchStmt() });
    if (this.is('for')) return this.node(tok, { kind: 'loop' as const, stmt: this.forStmt() });
    if (this.is('while')) return this.node(tok, { kind: 'loop' as const, stmt: this.whileStmt() });
    return this.expression();
  }

  private isFuncDef(): boolean {
    // name ( … ) =>  with balanced parentheses
    let k = 1;
    let depth = 0;
    for (; ; k++) {
      const t = this.peek(k);
      if (t.kind === 'eof' || t.kind === 'newline') return false;
      if (this.is('(', t) || this.is('[', t)) depth++;
      if (this.is(')', t) || this.is(']', t)) {
        depth--;
        if (depth === 0) break;
      }
    }
    return this.is('=>', this.peek(k + 1));
  }

  private funcDef(): FuncDef {
    const start = this.next();
    this.expect('(');
    const params: FuncDef['params'] = [];
    while (!this.is(')')) {
      if (this.tok.kind === 'ident' && QUALIFIERS.has(this.tok.text) && this.peek().kind === 'ident') this.next();
      if (this.tok.kind === 'ident' && TYPE_NAMES.has(this.tok.text) && this.peek().kind === 'ident') this.next();
      const name = this.ident('a parameter name').text;
      let def: Expr | null = null;
      if (this.is('=')) {
        this.next();
        def = this.expression();
      }
      params.push({ name, default: def });
      if (!this.is(')')) this.expect(',', "',' or ')'");
    }
    this.next();
    this.expect('=>');
    const body: Stmt[] =
      this.tok.kind === 'newline' ? this.block() : [this.node(this.tok, { kind: 'expr' as const, expr: this.expression() })];
    return this.node(start, { kind: 'func' as const, name: start.text, params, body });
  }

  private ifStmt(): IfStmt {
    const start = this.expect('if');
    const branches: IfStmt['branches'] = [{ cond: this.expression(), body: this.block() }];
    let otherwise: Stmt[] | null = null;
    // `else` / `else if` start the line after the block they follow, at the `if`'s indentation.
    while (this.is('else') || (this.tok.kind === 'newline' && this.is('else', this.peekPast()))) {
      this.skipNewlines();
      this.next();
      if (!this.is('if')) {
        otherwise = this.block();
        break;
      }
      this.next();
      branches.push({ cond: this.expression(), body: this.block() });
    }
    return this.node(start, { kind: 'if' as const, branches, otherwise });
  }

  /** The first token after the newlines at the cursor. */
  private peekPast(): Token {
    let k = 0;
    while (this.peek(k).kind === 'newline') k++;
    return this.peek(k);
  }

  private forStmt(): ForStmt | ForInStmt {
    const start = this.expect('for');
    if (this.is('[')) {
      this.next();
      const names = [this.ident().text];
      this.expect(',');
      names.push(this.ident().text);
      this.expect(']');
      this.expect('in');
      const iterable = this.expression();
      return this.node(start, { kind: 'forin' as const, names, iterable, body: this.block() });
    }
    const counter = this.ident('a loop variable').text;
    if (this.is('in')) {
      this.next();
      const iterable = this.expression();
      return this.node(start, { kind: 'forin' as const, names: [counter], iterable, body: this.block() });
    }
    this.expect('=', "'=' or 'in'");
    const from = this.expression();
    this.expect('to');
    const to = this.expression();
    let step: Expr | null = null;
    if (this.is('by')) {
      this.next();
      step = this.expression();
    }
    return this.node(start, { kind: 'for' as const, counter, from, to, step, body: this.block() });
  }

  private whileStmt(): WhileStmt {
    const start = this.expect('while');
    const cond = this.expression();
    return this.node(start, { kind: 'while' as const, cond, body: this.block() });
  }

  private switchStmt(): SwitchStmt {
    const start = this.expect('switch');
    const subject = this.tok.kind === 'newline' ? null : this.expression();
    if (this.tok.kind !== 'newline') throw this.fail('expected a new line after the switch');
    this.skipNewlines();
    if (this.kind() !== 'indent') throw this.fail('expected the indented cases of the switch');
    this.next();
    const cases: SwitchStmt['cases'] = [];
    while (this.kind() !== 'dedent' && this.kind() !== 'eof') {
      let match: Expr | null = null;
      if (!this.is('=>')) match = this.expression();
      this.expect('=>', "'=>' after the case");
      const body: Stmt[] = this.tok.kind === 'newline' ? this.block() : [this.statement(false)];
      cases.push({ match, body });
      this.endOfStatement();
    }
    if (this.kind() === 'dedent') this.next();
    return this.node(start, { kind: 'switch' as const, subject, cases });
  }
}
