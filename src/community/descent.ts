/**
 * Whether a fork's code descends from its parent's: the measure behind a fork link (and the
 * payouts that follow it). Both codes become normalised token streams; their similarity is the
 * Dice coefficient of their runs of GRAM tokens (2 × shared runs / all runs, counted with
 * repeats). The link holds at DESCENT_THRESHOLD or above. `DESCENT_RULE` says the same in words
 * for the API description: keep the two together.
 *
 * Why runs and not single tokens: every strategy is Python over the same contract (two functions,
 * `df[...] = ...` lines, a strategy_config dict), so two unrelated strategies share most single
 * tokens in order (a token-level diff ratio gives 0.73–0.88 between the offline generator's
 * templates); they share far fewer runs of 8. Calibration (test/community/descent.test.ts): the
 * generator's five templates pairwise 0.37–0.62 (the highest: two EMA-crossover strategies); an
 * honest edit of one — new parameters, another model, two more indicators, four variables renamed,
 * comments and layout stripped — 0.78–1.
 */

/** Tokens per run. */
export const GRAM = 8;

/** Similarity at or above which a child's code descends from its parent's. */
export const DESCENT_THRESHOLD = 0.7;

/** The measure in words (OpenAPI, README). */
export const DESCENT_RULE =
  '**Fork links hold only when the code descends.** When a model is shared with `parent_id`, its strategy code is ' +
  'compared with the parent entry’s frozen code. Both are cut into Python tokens with comments, whitespace, ' +
  'indentation and triple-quoted strings (docstrings) dropped, every number read as `N` — digits inside string ' +
  'literals too, so `df["ema_200"]` and `df["ema_50"]` are the same token — and names, keywords, operators and ' +
  `other string literals kept as written. **similarity = 2 × S / (a + b)**, where a and b count each code’s runs of ` +
  `${GRAM} consecutive tokens and S the runs they share (with repeats). The link holds when similarity ≥ ` +
  `**${DESCENT_THRESHOLD}**. So new parameters, thresholds, another model, comments or layout keep a fork a fork (1.0), ` +
  'and so do a couple of added indicators or a few renamed variables; another strategy — even one written by the same ' +
  'generator, or with a few of the parent’s lines kept — does not. A child whose code does not descend is still ' +
  'published, as a root: its `parent_id` is null, it is not among the parent’s children in the lineage, and its ' +
  'publisher’s spend pays the parent’s author nothing. Its `descent` says so, on the share answer and on the entry ' +
  'from then on: the parent it named, the similarity and the threshold.';

/** String literal: optional prefix (r, b, f, u and pairs), then a triple- or single-quoted body (sticky regexes: matched at lastIndex). */
const STRING = /[rRbBfFuU]{0,2}(?:"""|'''|"(?:\\.|[^"\\\n])*(?:"|$)|'(?:\\.|[^'\\\n])*(?:'|$))/y;
const NUMBER = /(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?)/y;
/** Operators of three and two characters (anything else is one character). */
const OPERATORS_3 = new Set(['**=', '//=', '>>=', '<<=', '...']);
const OPERATORS_2 = new Set(['->', ':=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '@=', '<=', '>=', '==', '!=', '**', '//', '<<', '>>']);
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
  for (let j = bodyAt; ; ) {
    const k = code.indexOf(quote, j);
    if (k < 0) return code.length;
    let slashes = 0;
    for (let p = k - 1; p >= bodyAt && code[p] === '\\'; p--) slashes++;
    if (slashes % 2 === 0) return k + 3;
    j = k + 1;
  }
}

/** Each run of GRAM consecutive tokens, with how often it occurs. */
function runs(tokens: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i + GRAM <= tokens.length; i++) {
    const run = tokens.slice(i, i + GRAM).join('\u0000');
    out.set(run, (out.get(run) ?? 0) + 1);
  }
  return out;
}

export interface Descent {
  /** 2 × shared runs / all runs, 0…1 (1: the same code but for comments, layout and numbers), rounded to 3 decimals. */
  similarity: number;
  holds: boolean;
  threshold: number;
}

/** How much of the parent's code the child keeps, by the measure above. */
export function descent(parentCode: string, childCode: string): Descent {
  const a = normalisedTokens(parentCode);
  const b = normalisedTokens(childCode);
  const ra = runs(a);
  const rb = runs(b);
  let shared = 0;
  let total = 0;
  for (const [run, count] of ra) {
    shared += Math.min(count, rb.get(run) ?? 0);
    total += count;
  }
  for (const count of rb.values()) total += count;
  // Codes too short for a single run are alike only when their tokens are.
  const similarity = total === 0 ? (a.join('\u0000') === b.join('\u0000') ? 1 : 0) : (2 * shared) / total;
  // The rule is decided on the rounded value the answer shows.
  const shown = Math.round(similarity * 1000) / 1000;
  return { similarity: shown, holds: shown >= DESCENT_THRESHOLD, threshold: DESCENT_THRESHOLD };
}
