/** The parser's walk over the tokens: the current one, looking ahead, expecting, node ids and located errors. */
import { pineError, type Pos } from './errors.ts';
import type { Token } from './lexer.ts';

/** Nesting deeper than this is refused (the parser recurses per level). */
export const MAX_DEPTH = 200;

export class TokenCursor {
  protected i = 0;
  ids = 0;
  protected depth = 0;
  constructor(protected readonly t: Token[]) {}

  protected get tok(): Token {
    return this.t[this.i]!;
  }
  /** The current token's kind, read afresh (TypeScript would keep a narrowing across next()). */
  protected kind(): Token['kind'] {
    return this.t[this.i]!.kind;
  }
  protected peek(k = 1): Token {
    return this.t[Math.min(this.i + k, this.t.length - 1)]!;
  }
  protected is(text: string, tok = this.tok): boolean {
    return (tok.kind === 'op' || tok.kind === 'kw') && tok.text === text;
  }
  protected next(): Token {
    return this.t[this.i++]!;
  }
  protected expect(text: string, what = `'${text}'`): Token {
    if (!this.is(text)) throw this.fail(`expected ${what}`);
    return this.next();
  }
  protected ident(what = 'a name'): Token {
    if (this.tok.kind !== 'ident') throw this.fail(`expected ${what}`);
    return this.next();
  }
  protected fail(message: string, tok = this.tok): Error {
    const found =
      tok.kind === 'newline'
        ? 'end of line'
        : tok.kind === 'eof'
          ? 'end of script'
          : tok.kind === 'indent'
            ? 'an indented block'
            : tok.kind === 'dedent'
              ? 'end of block'
              : `'${tok.text}'`;
    return pineError(tok, `${message}, found ${found}`);
  }
  protected node<T extends object>(pos: Pos, rest: T): T & { id: number; line: number; col: number } {
    return { id: ++this.ids, line: pos.line, col: pos.col, ...rest };
  }
  protected skipNewlines(): void {
    while (this.tok.kind === 'newline') this.i++;
  }
}
