/**
 * How alike two Python strategy codes are: both become normalised token streams, and their
 * similarity is the Dice coefficient of their runs of GRAM tokens (2 × shared runs / all runs,
 * counted with repeats). Pure, so the community (fork descent, src/community/descent.ts, which
 * documents the calibration) and training (the trials counted for the deflated Sharpe) measure
 * code the same way.
 */

/** Tokens per run. */
export const GRAM = 8;

/** Similarity at or above which one code descends from another (a fork link; the same lineage for trial counting). */
export const DESCENT_THRESHOLD = 0.7;

/** String literal: optional prefix (r, b, f, u and pairs), then a triple- or single-quoted body (sticky regexes: matched at lastIndex). */
const STRING = /[rRbBfFuU]{0,2}(?:"""|'''|"(?:\\.|[^"\\\n])*(?:"|$)|'(?:\\.|[^'\\\n])*(?:'|$))/y;
const NUMBER = /(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?)/y;
/** Operators of three and two characters (anything else is one character). */
const OPERATORS_3 = new Set(['**=', '//=', '>>=', '<<=', '...']);
const OPERATORS_2 = new Set([
  '->',
  ':=',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '@=',
  '<=',
  '>=',
  '==',
  '!=',
  '**',
  '//',
  '<<',
  '>>',
]);
const LETTER = /[\p{L}_]/u;
const LETTER_OR_DIGIT = /[\p{L}\p{N}_]/u;

/** Whether the character starts (or, `rest`, continues) a Python name: an ASCII test first, Unicode classes beyond. */
function isNameChar(c: string, rest: boolean): boolean {
  const k = c.charCodeAt(0);
  if ((k >= 97 && k <= 122) || (k >= 65 && k <= 90) || k === 95) return true;
  if (k >= 48 && k <= 57) return rest;
  return k > 127 && (rest ? LETTER_OR_DIGIT : LETTER).test(c);
}

/** The match of a sticky regex at `at`, or null. */
function matchAt(re: RegExp, code: string, at: number): string | null {
  re.lastIndex = at;
  return re.exec(code)?.[0] ?? null;
}

/**
 * The normalised tokens of Python source: no comments, whitespace or triple-quoted strings; a number
 * `N` (and every run of digits inside a string literal); everything else as written. Characters
 * that are not Python tokens are kept one by one, so nothing is silently dropped.
 */
export function normalisedTokens(code: string): string[] {
  const out: string[] = [];
  let i = 0;
  const n = code.length;
  while (i < n) {
    const c = code[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\\') {
      i++;
      continue;
    }
    if (c === '#') {
      const end = code.indexOf('\n', i);
      i = end < 0 ? n : end;
      continue;
    }
    const string = c === '"' || c === "'" || 'rRbBfFuU'.includes(c) ? matchAt(STRING, code, i) : null;
    if (string) {
      const body = string.replace(/^[rRbBfFuU]*/, '');
      if (body === '"""' || body === "'''") {
        i = longStringEnd(code, i + string.length, body); // docstrings and block comments: dropped
        continue;
      }
      out.push(string.replace(/\d+(?:\.\d+)?/g, 'N'));
      i += string.length;
      continue;
    }
    const number = c === '.' || (c >= '0' && c <= '9') ? matchAt(NUMBER, code, i) : null;
    if (number) {
      out.push('N');
      i += number.length;
      continue;
    }
    if (isNameChar(c, false)) {
      let j = i + 1;
      while (j < n && isNameChar(code[j]!, true)) j++;
      out.push(code.slice(i, j));
      i = j;
      continue;
    }
    const three = code.slice(i, i + 3);
    const len = OPERATORS_3.has(three) ? 3 : OPERATORS_2.has(three.slice(0, 2)) ? 2 : 1;
    out.push(code.slice(i, i + len));
    i += len;
  }
  return out;
}

/** Where a triple-quoted literal whose body starts at `bodyAt` ends: just after its closing quotes, or the end of the code. */
function longStringEnd(code: string, bodyAt: number, quote: string): number {
  for (let j = bodyAt; ;) {
    const k = code.indexOf(quote, j);
    if (k < 0) return code.length;
    let slashes = 0;
    for (let p = k - 1; p >= bodyAt && code[p] === '\\'; p--) slashes++;
    if (slashes % 2 === 0) return k + 3;
    j = k + 1;
  }
}

/** Each run of GRAM consecutive tokens, with how often it occurs (keep it to compare one code with many). */
export function codeRuns(tokens: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i + GRAM <= tokens.length; i++) {
    const run = tokens.slice(i, i + GRAM).join('\u0000');
    out.set(run, (out.get(run) ?? 0) + 1);
  }
  return out;
}

/** A code's tokens and runs, made once. */
export interface CodePrint {
  tokens: string[];
  runs: Map<string, number>;
}

export function codePrint(code: string): CodePrint {
  const tokens = normalisedTokens(code);
  return { tokens, runs: codeRuns(tokens) };
}

/** 2 × shared runs / all runs, 0…1, rounded to 3 decimals (codes too short for a single run are alike only when their tokens are). */
export function codeSimilarity(a: CodePrint, b: CodePrint): number {
  let shared = 0;
  let total = 0;
  for (const [run, count] of a.runs) {
    shared += Math.min(count, b.runs.get(run) ?? 0);
    total += count;
  }
  for (const count of b.runs.values()) total += count;
  const similarity = total === 0 ? (a.tokens.join('\u0000') === b.tokens.join('\u0000') ? 1 : 0) : (2 * shared) / total;
  return Math.round(similarity * 1000) / 1000;
}
