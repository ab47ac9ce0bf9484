/** Pine expressions, recursive descent by precedence: ternary, binary levels, unary, postfix (index, call), primary values. */
import type { Expr } from './ast.ts';
import { MAX_DEPTH, TokenCursor } from './cursor.ts';
import { pineError, unsupported } from './errors.ts';

/** Binary operators by precedence, lowest first (Pine: or < and < equality < comparison < additive < multiplicative). */
const LEVELS: string[][] = [['or'], ['and'], ['==', '!='], ['<', '>', '<=', '>='], ['+', '-'], ['*', '/', '%']];

export class ExpressionParser extends TokenCursor {
  expression(): Expr {
    if (++this.depth > MAX_DEPTH) throw pineError(this.tok, `expressions nest deeper than ${MAX_DEPTH} levels`);
    try {
      return this.ternary();
    } finally {
      this.depth--;
    }
  }

  private ternary(): Expr {
    const cond = this.binary(0);
    if (!this.is('?')) return cond;
    const q = this.next();
    const then = this.expression();
    this.expect(':', "':' of the ternary");
    const otherwise = this.expression();
    return this.node(q, { kind: 'ternary' as const, cond, then, else: otherwise });
  }

  private binary(level: number): Expr {
    if (level === LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    while (LEVELS[level]!.some((op) => this.is(op))) {
      const op = this.next();
      const right = this.binary(level + 1);
      left = this.node(op, { kind: 'binary' as const, op: op.text, left, right });
    }
    return left;
  }

  private unary(): Expr {
    if (this.is('-') || this.is('+') || this.is('not')) {
      const op = this.next();
      if (++this.depth > MAX_DEPTH) throw pineError(op, `expressions nest deeper than ${MAX_DEPTH} levels`);
      const operand = this.unary();
      this.depth--;
      return this.node(op, { kind: 'unary' as const, op: op.text as '-', operand });
    }
    return this.postfix();
  }

  private postfix(): Expr {
    let e = this.primary();
    for (;;) {
      if (this.is('[')) {
        const b = this.next();
        const offset = this.expression();
        this.expect(']');
        e = this.node(b, { kind: 'index' as const, target: e, offset });
      } else if (this.is('(') && e.kind === 'name') {
        e = this.call(e);
      } else if (this.is('.')) {
        throw unsupported(
          this.tok,
          'method-call syntax (value.method())',
          'is not supported; call the namespaced function instead, e.g. array.get(a, i)',
        );
      } else return e;
    }
  }

  private call(callee: Expr & { kind: 'name' }): Expr {
    this.expect('(');
    const args: Expr[] = [];
    const named: Record<string, Expr> = {};
    while (!this.is(')')) {
      if (this.tok.kind === 'ident' && this.is('=', this.peek())) {
        const name = this.next().text;
        this.next();
        named[name] = this.expression();
      } else {
        if (Object.keys(named).length > 0) throw pineError(this.tok, 'positional arguments come before named ones');
        args.push(this.expression());
      }
      if (!this.is(')')) this.expect(',', "',' or ')'");
    }
    this.next();
    return this.node(callee, {
      kind: 'call' as const,
      callee: callee.name,
      args,
      named,
      calleePos: { line: callee.line, col: callee.col },
    });
  }

  private primary(): Expr {
    const tok = this.tok;
    switch (tok.kind) {
      case 'num':
        this.next();
        return this.node(tok, { kind: 'num' as const, value: tok.value as number, int: !/[.eE]/.test(tok.text) });
      case 'str':
        this.next();
        return this.node(tok, { kind: 'str' as const, value: tok.value as string });
      case 'color':
        this.next();
        return this.node(tok, { kind: 'color' as const, value: tok.value as string });
      case 'kw':
        if (tok.text === 'true' || tok.text === 'false') {
          this.next();
          return this.node(tok, { kind: 'bool' as const, value: tok.text === 'true' });
        }
        if (tok.text === 'if' || tok.text === 'switch')
          throw pineError(tok, `'${tok.text}' used as a value must be the whole right-hand side of '=' or ':='`);
        throw this.fail('expected a value');
      case 'ident': {
        this.next();
        if (tok.text === 'na' && !this.is('(')) return this.node(tok, { kind: 'na' as const });
        let name = tok.text;
        // A member may be spelled like a keyword: syminfo.type, strategy.direction.long.
        while (this.is('.') && (this.peek().kind === 'ident' || this.peek().kind === 'kw')) {
          this.next();
          name += `.${this.next().text}`;
        }
        // array.new<float>(…): the type argument is part of the callee's name.
        if (this.is('<') && /\.new$/.test(name) && this.peek().kind === 'ident' && this.is('>', this.peek(2))) {
          name += `<${this.peek().text}>`;
          this.i += 3;
        }
        return this.node(tok, { kind: 'name' as const, name });
      }
      case 'op':
        if (tok.text === '(') {
          this.next();
          const e = this.expression();
          this.expect(')');
          return e;
        }
        if (tok.text === '[') {
          this.next();
          const items: Expr[] = [];
          while (!this.is(']')) {
            items.push(this.expression());
            if (!this.is(']')) this.expect(',', "',' or ']'");
          }
          this.next();
          return this.node(tok, { kind: 'tuple' as const, items });
        }
        throw this.fail('expected a value');
      default:
        throw this.fail('expected a value');
    }
  }
}
