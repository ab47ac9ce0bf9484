/**
 * Which statement wins when several set the same thing. The rule, for every setting:
 *
 * 1. the structured field (pos_rules, the indicators object) wins over any text;
 * 2. then the text field that is *about* the setting wins over the others — `risk` for stops and
 *    targets, `risk_function` for sessions / trend / volatility filters, `signals` for position
 *    rules, `model` for the model, horizon and threshold, `optimization` for the objective —
 *    then the description (the primary request), then the remaining fields (table below);
 * 3. within one field, the last statement wins (later words refine earlier ones).
 *
 * Every conflict that was resolved is reported as a remark, which the code's header shows.
 */
import type { Source, TextField } from './intent.ts';
import type { Finding } from './parse-rules.ts';

export type Topic = 'position' | 'filters' | 'risk' | 'model' | 'horizon' | 'objective';

export const PRIORITY: Record<Topic, readonly Source[]> = {
  position: ['pos_rules', 'signals', 'risk', 'risk_function', 'description', 'features', 'optimization', 'model'],
  filters: ['risk_function', 'signals', 'description', 'risk', 'features', 'optimization', 'model'],
  risk: ['risk', 'risk_function', 'signals', 'description', 'optimization', 'features', 'model'],
  model: ['model', 'description', 'optimization', 'signals', 'features', 'risk', 'risk_function'],
  horizon: ['model', 'signals', 'optimization', 'description', 'risk', 'risk_function', 'features'],
  objective: ['optimization', 'description', 'model', 'signals', 'risk', 'risk_function', 'features'],
};

export interface Candidate<T> {
  value: T;
  from: Source;
  phrase?: string;
  at: number;
}

export interface Picked<T> {
  value: T;
  from: Source;
  phrase?: string;
}

/** Findings of one field as candidates. */
export const fromField = <T>(field: TextField, findings: readonly Finding<T>[]): Candidate<T>[] =>
  findings.map((f) => ({ value: f.value, from: field, phrase: f.phrase, at: f.at }));

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The winning candidate by the rule above, or the fallback. A remark names the winner and what
 * it overrode when the candidates disagree.
 */
export function pick<T>(
  what: string,
  topic: Topic,
  candidates: readonly Candidate<T>[],
  fallback: Picked<T>,
  show: (v: T) => string,
  remarks: string[],
): Picked<T> {
  if (candidates.length === 0) return fallback;
  const rank = (c: Candidate<T>) => {
    const r = PRIORITY[topic].indexOf(c.from);
    return r < 0 ? PRIORITY[topic].length : r;
  };
  const sorted = [...candidates].sort((a, b) => rank(a) - rank(b) || b.at - a.at);
  const win = sorted[0]!;
  const losers = sorted.filter((c) => !same(c.value, win.value));
  if (losers.length) {
    const where = (c: Candidate<T>) => (c.phrase ? `${c.from}: "${c.phrase}"` : c.from);
    const seen = new Set<string>();
    const over = losers
      .filter((c) => {
        const k = `${show(c.value)}|${c.from}`;
        return seen.has(k) ? false : (seen.add(k), true);
      })
      .map((c) => `${show(c.value)} (${where(c)})`);
    const why =
      rank(win) < rank(losers[0]!)
        ? win.from === 'pos_rules'
          ? 'structured fields win'
          : `${win.from} is the field for it`
        : 'the last statement wins';
    remarks.push(`${what}: ${show(win.value)} (${where(win)}) over ${over.join(', ')}; ${why}`);
  }
  return { value: win.value, from: win.from, ...(win.phrase ? { phrase: win.phrase } : {}) };
}
