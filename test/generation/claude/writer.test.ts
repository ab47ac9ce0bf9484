/**
 * The fallback: Claude (through the real SDK, against the stand-in API) or else the real offline
 * generator, and what a stream sees when Claude's text is replaced.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createLogger } from '../../../src/log.ts';
import {
  ClaudeGenerator,
  GenerationAbortedError,
  strategyChecks,
  writeStrategy,
  type OfflineGenerator,
} from '../../../src/generation/claude/index.ts';
import { generateOffline, offlineTokens } from '../../../src/generation/offline/index.ts';
import { StrategyRuntime } from '../../../src/sandbox/runtime-pool.ts';
import { checkStrategyCode } from '../../../src/sandbox/static-check.ts';
import { GenerateRequest } from '../../../schemas/generation.ts';
import { withMarket } from '../../../src/generation/index.ts';
import { startFakeAnthropic, type FakeAnthropic } from '../../helpers/fake-anthropic.ts';
import { strategyCode } from '../../helpers/strategies.ts';

const log = createLogger('silent');
const offline: OfflineGenerator = { generate: generateOffline, tokens: offlineTokens };
const request = withMarket(
  GenerateRequest.parse({ description: 'EMA 12/26 crossover, stop 20 pips', symbol: 'AUDUSD', timeframe: '15min' }),
);
const fenced = (code: string) => `\`\`\`python\n${code}\`\`\``;
const LOOKAHEAD = strategyCode({ prelude: 'df["peek"] = close.shift(-2)' });

/** Collects a stream's frames; `text` is what a client holds (reset clears it). */
function recorder() {
  const frames: string[] = [];
  let text = '';
  return {
    frames,
    get text() {
      return text;
    },
    hooks: {
      onToken: (t: string) => {
        frames.push('token');
        text += t;
      },
      onReset: () => {
        frames.push('reset');
        text = '';
      },
    },
  };
}

describe('writeStrategy: Claude, or the offline generator', () => {
  let fake: FakeAnthropic;
  let runtime: StrategyRuntime;
  let claude: ClaudeGenerator;
  before(async () => {
    fake = await startFakeAnthropic();
    runtime = await StrategyRuntime.start({ log, size: 1 });
    claude = new ClaudeGenerator(
      { apiKey: 'sk-test', baseURL: fake.url, models: { sonnet: 's', opus: 'o', haiku: 'h' }, repairTries: 1, maxRetries: 0 },
      { check: strategyChecks(runtime), recordSpend: async () => {}, log },
    );
  });
  after(async () => {
    await fake.close();
    await runtime.stop();
  });
  beforeEach(() => void (fake.requests.length = 0));

  it('falls back to the offline code when the answers keep breaking the rules, and says so', async () => {
    fake.queue({ text: fenced(LOOKAHEAD) }, { text: fenced(LOOKAHEAD) });
    const rec = recorder();
    const out = await writeStrategy(request, { claude, choice: 'sonnet', offline, hooks: rec.hooks });
    assert.equal(out.generator, 'offline');
    assert.equal(out.ai_model, null);
    assert.match(out.fallback ?? '', /no answer passed the checks in 2 tries/);
    assert.ok(out.usd > 0, 'the refused answers were paid for');
    assert.equal(out.code, generateOffline(request).code);
    assert.equal(rec.text, out.code, 'after the last reset, the tokens are the offline code');
    assert.equal(rec.frames.filter((f) => f === 'reset').length, 2, 'one reset before the repair, one before the offline code');
    assert.equal(fake.requests.length, 2);
    assert.deepEqual((await checkStrategyCode(out.code)).violations, []);
  });

  it('falls back to the offline code on API errors (401, 400, 529 overloaded, 429)', async () => {
    for (const [status, errorType] of [
      [401, 'authentication_error'],
      [400, 'invalid_request_error'],
      [529, 'overloaded_error'],
      [429, 'rate_limit_error'],
    ] as const) {
      fake.queue({ status, errorType });
      const out = await writeStrategy(request, { claude, choice: 'haiku', offline });
      assert.equal(out.generator, 'offline', String(status));
      assert.match(out.fallback ?? '', new RegExp(`${status} ${errorType}`));
      assert.equal(out.code, generateOffline(request).code);
    }
  });

  it('passes Claude’s code through when it passes, naming the model', async () => {
    fake.queue({ text: fenced(strategyCode()) });
    const rec = recorder();
    const out = await writeStrategy(request, { claude, choice: 'opus', offline, hooks: rec.hooks });
    assert.equal(out.generator, 'claude');
    assert.equal(out.ai_model, 'o');
    assert.equal(out.fallback, null);
    assert.equal(rec.text, out.code);
    assert.ok(!rec.frames.includes('reset'));
  });

  it('asks Claude nothing without an ai_model or without Claude', async () => {
    const rec = recorder();
    const a = await writeStrategy(request, { claude, choice: null, offline, hooks: rec.hooks });
    const b = await writeStrategy(request, { claude: null, choice: 'sonnet', offline });
    assert.equal(fake.requests.length, 0);
    for (const out of [a, b]) {
      assert.equal(out.generator, 'offline');
      assert.equal(out.fallback, null);
      assert.equal(out.usd, 0);
    }
    assert.equal(rec.text, a.code);
    assert.ok(rec.frames.length > 1 && !rec.frames.includes('reset'));
  });

  it('throws GenerationAbortedError (no offline code) when the caller goes away mid-answer', async () => {
    fake.queue({ text: fenced(strategyCode()), chunk: 3, delayMs: 5 });
    const abort = new AbortController();
    let n = 0;
    await assert.rejects(
      writeStrategy(request, {
        claude,
        choice: 'sonnet',
        offline,
        hooks: { signal: abort.signal, onToken: () => void (++n === 2 && abort.abort()) },
      }),
      GenerationAbortedError,
    );
  });
});
