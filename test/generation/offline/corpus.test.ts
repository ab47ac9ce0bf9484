/**
 * Every prompt of the corpus, each on a symbol/timeframe picked round-robin: the code starts with
 * the header line, passes the static check, strategy_config matches the schema, the intent lists
 * exactly the columns the code adds; the same request always gives the same bytes; the stream
 * tokens concatenate to the code.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SYMBOLS, TIMEFRAMES, type Symbol, type Timeframe } from '../../../schemas/common.ts';
import { StrategyConfig } from '../../../schemas/strategy.ts';
import { codeHeader } from '../../../src/sandbox/code-header.ts';
import { generateOffline, offlineTokens } from '../../../src/generation/offline/index.ts';
import { checkStrategyCode, checkStrategyConfig } from '../../../src/sandbox/static-check.ts';
import { PROMPTS, type CorpusEntry } from './prompts.ts';

const COMBOS: Array<[Symbol, Timeframe]> = SYMBOLS.flatMap((s) => TIMEFRAMES.map((tf): [Symbol, Timeframe] => [s, tf]));
/** The i-th prompt's market: every symbol and timeframe gets used (7 is prime to 32, so pairs vary). */
const comboOf = (i: number): [Symbol, Timeframe] => COMBOS[(i * 7) % COMBOS.length]!;
const requestOf = (e: CorpusEntry, i: number) => {
  const [symbol, timeframe] = comboOf(i);
  return { ...e.request, symbol, timeframe };
};

/** Runs `job` over the items, `width` at a time (the static check spawns a python each). */
async function pool<T>(items: readonly T[], width: number, job: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        await job(items[i]!, i);
      }
    }),
  );
}

describe('offline generator: the prompt corpus', () => {
  it('has at least 100 prompts with unique ids', () => {
    assert.ok(PROMPTS.length >= 100, `${PROMPTS.length} prompts`);
    assert.equal(new Set(PROMPTS.map((p) => p.id)).size, PROMPTS.length);
  });

  it('gives valid code for every prompt: header, static check, config schema, feature columns', async () => {
    const failures: string[] = [];
    await pool(PROMPTS, 4, async (entry, i) => {
      const request = requestOf(entry, i);
      const { code, intent } = generateOffline(request);
      const problems: string[] = [];
      if (code.split('\n', 1)[0] !== codeHeader(request.symbol, request.timeframe)) problems.push('first line is not the header');
      const schema = StrategyConfig.safeParse(intent.config);
      if (!schema.success) problems.push(`config: ${schema.error.message}`);
      if (!checkStrategyConfig(intent.config).ok) problems.push('checkStrategyConfig refused the config');
      if (intent.config.title.length > 60) problems.push(`title of ${intent.config.title.length} characters`);
      for (const line of [intent.config.objective, intent.config.notes, intent.config.title])
        if (/[\r\n]/.test(line)) problems.push('a multi-line string');
      // A column of an indicator whose periods the code reads from strategy_config()["indicators"] is named from them (an f-string).
      const values = (intent.config.indicators ?? {}) as Record<string, number>;
      const written = [...code.matchAll(/^ {4}df\[f?'([^']+)'\] = /gm)].map((m) =>
        m[1]!.replace(/\{_p_(\w+)\}/g, (_, key: string) => String(values[key])),
      );
      if (JSON.stringify([...new Set(written)]) !== JSON.stringify(intent.features))
        problems.push(`columns ${written.join(',')} != intent ${intent.features.join(',')}`);
      const check = await checkStrategyCode(code);
      if (!check.ok) problems.push(`static check: ${JSON.stringify(check.violations)}`);
      if (problems.length) failures.push(`${entry.id} (${request.symbol} ${request.timeframe}): ${problems.join('; ')}`);
    });
    assert.deepEqual(failures, []);
  });

  it('is deterministic: the same request gives the same bytes, whatever the key order', () => {
    for (const [i, entry] of PROMPTS.entries()) {
      const request = requestOf(entry, i);
      const a = generateOffline(request).code;
      const b = generateOffline(structuredClone(request)).code;
      assert.equal(a, b, entry.id);
      const reordered = Object.fromEntries(Object.entries(request).reverse()) as typeof request;
      if (request.indicators) reordered.indicators = Object.fromEntries(Object.entries(request.indicators).reverse());
      if (request.pos_rules)
        reordered.pos_rules = Object.fromEntries(Object.entries(request.pos_rules).reverse()) as typeof request.pos_rules;
      assert.equal(generateOffline(reordered).code, a, `${entry.id}: key order changed the code`);
    }
  });

  it('streams tokens of a few characters to a line each that concatenate to the code', () => {
    for (const [i, entry] of PROMPTS.entries()) {
      const { code } = generateOffline(requestOf(entry, i));
      const tokens = [...offlineTokens(code)];
      assert.equal(tokens.join(''), code, entry.id);
      assert.ok(tokens.length >= code.split('\n').length - 1, `${entry.id}: ${tokens.length} tokens`);
      for (const t of tokens) {
        assert.ok(t.length > 0, 'empty token');
        assert.ok(!t.slice(0, -1).includes('\n'), `a token spans lines: ${JSON.stringify(t)}`);
      }
      assert.ok(
        tokens.every((t) => t.length <= 25),
        `${entry.id}: a token longer than 24 characters and its new line`,
      );
    }
  });

  it('keeps request text inside comments (hostile text never becomes code)', () => {
    for (const [id, hostile] of [
      ['hostile-quotes', /import os|exec\(|__import__/],
      ['hostile-unicode', /evil/],
    ] as const) {
      const entry = PROMPTS.find((p) => p.id === id)!;
      const { code } = generateOffline({ ...entry.request, symbol: 'EURUSD', timeframe: '15min' });
      // The request's text is kept (quoted in the header comment), and only ever as a comment.
      const carrying = code.split('\n').filter((line) => hostile.test(line));
      assert.ok(carrying.length > 0, `${id}: the request text appears in the code`);
      assert.deepEqual(
        carrying.filter((line) => !line.startsWith('#')),
        [],
        `${id}: hostile text outside a comment`,
      );
      assert.ok(!/[\u0000\u202e]/.test(code));
    }
  });
});
