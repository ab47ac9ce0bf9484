/**
 * The fork-descent measure on real strategy code: the offline generator's templates (unrelated
 * strategies written by one generator, so sharing its whole skeleton), honest edits of one of them
 * and the games a publisher could play.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DESCENT_THRESHOLD, descent, normalisedTokens } from '../../src/community/index.ts';
import { generateOffline, TEMPLATES, templateRequest } from '../../src/generation/offline/index.ts';
import type { FromTemplateRequest } from '../../schemas/generation.ts';
import { NORMAL_STRATEGY, strategyCode } from '../helpers/strategies.ts';

const generated = (template: FromTemplateRequest['template'], over: Partial<FromTemplateRequest> = {}) =>
  generateOffline(templateRequest({ template, ...over } as FromTemplateRequest)).code;

const PARENT = generated('macd_momentum');

describe('fork descent', () => {
  it('reads Python as tokens: comments, layout and docstrings gone, numbers (also inside strings) as N', () => {
    const code = 'x = f"ema_{n}_200" + r\'a\' + 1.5e3  # note\ndef f(a, b=.5):\n    """doc"""\n    return a**2 // 0x1F';
    assert.deepEqual(normalisedTokens(code), [
      'x',
      '=',
      'f"ema_{n}_N"',
      '+',
      "r'a'",
      '+',
      'N',
      'def',
      'f',
      '(',
      'a',
      ',',
      'b',
      '=',
      'N',
      ')',
      ':',
      'return',
      'a',
      '**',
      'N',
      '//',
      'N',
    ]);
  });

  it('holds for honest edits of a parent: parameters, model, comments and layout, added indicators, renamed variables', () => {
    const honest: Record<string, string> = {
      'new indicator periods': generated('macd_momentum', {
        indicators: { ema_period: 100, macd_fast: 8, macd_slow: 21, macd_signal: 5 },
      } as Partial<FromTemplateRequest>),
      'another model': generated('macd_momentum', { model: 'random forest' }),
      'comments stripped, indentation halved': PARENT.split('\n')
        .filter((l) => !l.trim().startsWith('#'))
        .map((l) => l.replaceAll('    ', '  '))
        .join('\n'),
      'RSI added': generated('macd_momentum', { indicators: { rsi_enabled: true, rsi_period: 14 } } as Partial<FromTemplateRequest>),
      'RSI and Bollinger bands added': generated('macd_momentum', {
        indicators: { rsi_enabled: true, rsi_period: 14, bb_enabled: true, bb_period: 20, bb_std: 2 },
      } as Partial<FromTemplateRequest>),
      'four variables renamed': PARENT.replaceAll('_macd_line', 'line')
        .replaceAll('_macd_signal', 'sig')
        .replaceAll('_atr_tr', 'tr')
        .replaceAll('_atr_pc', 'pc'),
    };
    for (const [edit, child] of Object.entries(honest)) {
      assert.notEqual(child, PARENT, `${edit}: the child differs`);
      const d = descent(PARENT, child);
      assert.ok(d.holds, `${edit}: similarity ${d.similarity} >= ${DESCENT_THRESHOLD}`);
    }
    assert.equal(descent(PARENT, honest['new indicator periods']!).similarity, 1, 'new numbers are the same code');
    assert.equal(descent(PARENT, honest['comments stripped, indentation halved']!).similarity, 1);
  });

  it('does not hold for another strategy, even one from the same generator, nor for a wholesale replacement', () => {
    const names = Object.keys(TEMPLATES) as Array<FromTemplateRequest['template']>;
    const codes = [...names.map((n) => generated(n)), strategyCode(), NORMAL_STRATEGY];
    let highest = 0;
    for (let i = 0; i < codes.length; i++) {
      for (let j = 0; j < codes.length; j++) {
        if (i === j) continue;
        const d = descent(codes[i]!, codes[j]!);
        assert.equal(d.holds, false, `${i} → ${j}: similarity ${d.similarity}`);
        highest = Math.max(highest, d.similarity);
      }
    }
    // The threshold sits in a wide gap: between the closest unrelated pair (two EMA crossovers of one
    // generator, which writes their entry rules out alike: ~0.65) and the farthest honest edit of
    // the parent (two indicators added: ~0.80).
    const farthestHonest = descent(
      PARENT,
      generated('macd_momentum', {
        indicators: { rsi_enabled: true, rsi_period: 14, bb_enabled: true, bb_period: 20, bb_std: 2 },
      } as Partial<FromTemplateRequest>),
    ).similarity;
    assert.ok(
      highest < DESCENT_THRESHOLD && farthestHonest >= DESCENT_THRESHOLD,
      `closest unrelated pair ${highest}, farthest honest edit ${farthestHonest}`,
    );
    assert.ok(
      farthestHonest - highest >= 0.12,
      `the gap between them (${highest} … ${farthestHonest}) leaves the threshold ${DESCENT_THRESHOLD} no margin`,
    );
  });

  it('sees through the games: padding with comments or docstrings, renamed columns, a few of the parent’s lines kept', () => {
    const other = generated('mean_reversion');
    const parentLines = PARENT.split('\n');
    const games: Record<string, string> = {
      'another strategy with the parent as comments': `${other}\n${parentLines.map((l) => `# ${l}`).join('\n')}`,
      'another strategy with the parent in a docstring': `${other}\n"""\n${PARENT}\n"""\n`,
      'another strategy with the parent’s MACD lines pasted in': `${other}\n${parentLines.filter((l) => l.includes('macd')).join('\n')}`,
    };
    for (const [game, child] of Object.entries(games)) {
      const d = descent(PARENT, child);
      assert.equal(d.holds, false, `${game}: similarity ${d.similarity}`);
    }
  });

  it('is symmetric, 1 for identical code and 0 for code with nothing in common', () => {
    const child = generated('macd_momentum', { indicators: { rsi_enabled: true, rsi_period: 14 } } as Partial<FromTemplateRequest>);
    assert.equal(descent(PARENT, child).similarity, descent(child, PARENT).similarity);
    assert.deepEqual(descent(PARENT, PARENT), { similarity: 1, holds: true, threshold: DESCENT_THRESHOLD });
    assert.equal(descent(PARENT, 'print(1)\n' + 'y = 2\n'.repeat(20)).similarity, 0);
    assert.equal(descent('', '').similarity, 1);
  });
});
