import { pineError, type Pos } from './errors.ts';

export type TokenKind = 'num' | 'str' | 'color' | 'ident' | 'kw' | 'op' | 'newline' | 'indent' | 'dedent' | 'eof';

export interface Token extends Pos {
  kind: TokenKind;
  text: string;
  /** Numbers: the value; strings: the unescaped text. */
  value?: number | string;
}

const KEYWORDS = new Set([
  'and',
  'or',
  'not',
  'if',
  'else',
  'for',
  'to',
  'by',
  'in',
  'while',
  'switch',
  'var',
  'varip',
  'true',
  'false',
  'import',
  'export',
  'method',
  'type',
  'enum',
  'break',
  'continue',
]);

/** Longest first, so `:=` wins over `:` and `=>` over `=`. */
const OPERATORS = [
  '=>',
  ':=',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '==',
  '!=',
  '<=',
  '>=',
  '+',
  '-',
  '*',
  '/',
  '%',
  '<',
  '>',
  '=',
  '?',
  ':',
  ',',
  '(',
  ')',
  '[',
  ']',
  '.',
];

const MAX_SOURCE = 100_000;

/** Spaces a copy from a web page or a word processor leaves in code (no-break, thin, ideographic…): blanks, as the editor shows them. */
const PASTED_SPACES = /[\u00a0\u2000-\u200b\u202f\u205f\u3000\ufeff]/;

function unexpected(ch: string): string {
  const code = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  if (/[\u2018\u2019\u201c\u201d]/.test(ch))
    return `unexpected typographic quote '${ch}' (${code}): write strings with straight quotes " or '`;
  return /[\x00-\x1f\x7f]/.test(ch) ? `unexpected control character ${code}: remove it` : `unexpected character '${ch}' (${code})`;
}

/**
 * Pine source → tokens, with Python-like INDENT/DEDENT for blocks (4 spaces or a tab per level).
 * A line indented by a non-multiple of 4, or any line inside brackets, continues the previous one
 * (Pine's line-wrapping rule). Comments run from `//` to the end of the line.
 */
export function tokenize(source: string): Token[] {
  if (source.length > MAX_SOURCE) throw pineError({ line: 1, col: 1 }, `the script is longer than ${MAX_SOURCE} characters`);
  const tokens: Token[] = [];
  // A byte-order mark (editors and web pages add one) is not part of the script.
  const lines = source
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split('\n');
  const levels = [0];
  let depth = 0; // open brackets
  // Where the last code line ended: a statement cut short is reported there, not on the next line.
  let end = { line: 1, col: 1 };
  for (let li = 0; li < lines.length; li++) {
    const raw = lines[li]!;
    const lineNo = li + 1;
    let indent = 0;
    let i = 0;
    for (; i < raw.length; i++) {
      if (raw[i] === ' ' || raw[i] === '\u00a0') indent += 1;
      else if (raw[i] === '\t') indent += 4;
      else break;
    }
    const rest = raw.slice(i);
    if (rest === '' || rest.startsWith('//')) continue; // blank or comment-only lines never open blocks
    const continuation = depth > 0 || (indent % 4 !== 0 && indent > levels.at(-1)!);
    if (!continuation) {
      if (tokens.length > 0 && tokens.at(-1)!.kind !== 'newline') tokens.push({ kind: 'newline', text: '\n', ...end });
      if (indent % 4 !== 0) throw pineError({ line: lineNo, col: indent + 1 }, 'indentation must be a multiple of 4 spaces (or tabs)');
      if (indent > levels.at(-1)!) {
        if (indent !== levels.at(-1)! + 4)
          throw pineError({ line: lineNo, col: indent + 1 }, 'a block is indented by exactly one level (4 spaces)');
        levels.push(indent);
        tokens.push({ kind: 'indent', text: '', line: lineNo, col: indent + 1 });
      }
      while (indent < levels.at(-1)!) {
        levels.pop();
        tokens.push({ kind: 'dedent', text: '', line: lineNo, col: indent + 1 });
        tokens.push({ kind: 'newline', text: '\n', line: lineNo, col: 1 });
      }
      if (indent !== levels.at(-1)!) throw pineError({ line: lineNo, col: indent + 1 }, 'this line’s indentation matches no open block');
    }
    while (i < raw.length) {
      const ch = raw[i]!;
      const col = i + 1;
      if (ch === ' ' || ch === '\t' || PASTED_SPACES.test(ch)) {
        i++;
        continue;
      }
      if (ch === '/' && raw[i + 1] === '/') break;
      if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(raw[i + 1] ?? ''))) {
        const m = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(raw.slice(i))!;
        tokens.push({ kind: 'num', text: m[0], value: Number(m[0]), line: lineNo, col });
        i += m[0].length;
        continue;
      }
      if (/[A-Za-z_]/.test(ch)) {
        const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(raw.slice(i))!;
        tokens.push({ kind: KEYWORDS.has(m[0]) ? 'kw' : 'ident', text: m[0], line: lineNo, col });
        i += m[0].length;
        continue;
      }
      if (ch === '"' || ch === "'") {
        let j = i + 1;
        let text = '';
        for (; j < raw.length && raw[j] !== ch; j++) {
          if (raw[j] === '\\' && j + 1 < raw.length) {
            const e = raw[++j]!;
            text += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          } else text += raw[j];
        }
        if (j >= raw.length) throw pineError({ line: lineNo, col }, 'unterminated string: close it with the same quote on this line');
        tokens.push({ kind: 'str', text: raw.slice(i, j + 1), value: text, line: lineNo, col });
        i = j + 1;
        continue;
      }
      if (ch === '#') {
        const m = /^#(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{6})\b/.exec(raw.slice(i));
        if (!m) throw pineError({ line: lineNo, col }, 'a color literal is #RRGGBB or #RRGGBBAA');
        tokens.push({ kind: 'color', text: m[0], value: m[0].toLowerCase(), line: lineNo, col });
        i += m[0].length;
        continue;
      }
      const op = OPERATORS.find((o) => raw.startsWith(o, i));
      if (!op) throw pineError({ line: lineNo, col }, unexpected(ch));
      if (op === '(' || op === '[') depth++;
      if ((op === ')' || op === ']') && depth > 0) depth--;
      tokens.push({ kind: 'op', text: op, line: lineNo, col });
      i += op.length;
    }
    end = { line: lineNo, col: raw.replace(/\s*(\/\/.*)?$/, '').length + 1 };
  }
  if (tokens.length > 0 && tokens.at(-1)!.kind !== 'newline') tokens.push({ kind: 'newline', text: '\n', ...end });
  while (levels.length > 1) {
    levels.pop();
    tokens.push({ kind: 'dedent', text: '', ...end }, { kind: 'newline', text: '\n', ...end });
  }
  tokens.push({ kind: 'eof', text: '', ...end });
  return tokens;
}
