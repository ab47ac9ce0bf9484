/**
 * The Claude generator against a local stand-in of the Anthropic Messages API, through the real
 * @anthropic-ai/sdk client (baseURL), with the real checks (the AST checker and strategy_config()
 * run in the sandboxed runtime).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createLogger } from '../../../src/log.ts';
import { ClaudeGenerator, modelPlan, strategyChecks, systemPrompt, type ClaudeSettings } from '../../../src/generation/claude/index.ts';
import { StrategyRuntime } from '../../../src/sandbox/runtime-pool.ts';
import { GenerateRequest } from '../../../schemas/generation.ts';
import { withMarket } from '../../../src/generation/index.ts';
import { messageText, startFakeAnthropic, type FakeAnthropic } from '../../helpers/fake-anthropic.ts';
import { strategyCode } from '../../helpers/strategies.ts';

const log = createLogger('silent');
const MODELS = { sonnet: 'test-sonnet-id', opus: 'test-opus-id', haiku: 'test-haiku-id' };
const HEADER = '# signalforge: symbol=GBPUSD timeframe=1h';
const GOOD = strategyCode();
const LOOKAHEAD = strategyCode({ prelude: 'df["peek"] = close.shift(-1)' });
const BAD_CONFIG = strategyCode({ params: '{"n_estimators": 30, "n_jobs": 4}' });
const fenced = (code: string) => `Here is the strategy.\n\n\`\`\`python\n${code}\`\`\`\n\nGood luck!`;
const request = withMarket(
  GenerateRequest.parse({
    description: 'RSI mean reversion in the London session',
    symbol: 'GBPUSD',
    timeframe: '1h',
    pos_rules: { max_pos: 2, direction: 'long' },
  }),
);

describe('ClaudeGenerator (stand-in Anthropic API, real SDK, real checks)', () => {
  let fake: FakeAnthropic;
  let runtime: StrategyRuntime;
  let spend: number[];
  const make = (over: Partial<ClaudeSettings> = {}) =>
    new ClaudeGenerator(
      { apiKey: 'sk-test-key', baseURL: fake.url, models: MODELS, repairTries: 2, maxRetries: 1, ...over },
      { check: strategyChecks(runtime), recordSpend: async (usd) => void spend.push(usd), log },
    );

  before(async () => {
    fake = await startFakeAnthropic();
    runtime = await StrategyRuntime.start({ log, size: 1 });
  });
  after(async () => {
    await fake.close();
    await runtime.stop();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    spend = [];
  });

  it('passes a good answer through: the code with our header, streamed tokens equal to it, spend recorded', async () => {
    fake.queue({ text: fenced(GOOD), chunk: 5 });
    let streamed = '';
    const outcome = await make().write(request, 'sonnet', { onToken: (t) => (streamed += t) });
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.equal(outcome.code, `${HEADER}\n${GOOD}`);
    assert.equal(streamed, outcome.code);
    assert.equal(outcome.model, MODELS.sonnet);
    assert.equal(outcome.attempts, 1);
    assert.equal(fake.requests.length, 1);
    assert.equal(spend.length, 1);
    assert.ok(spend[0]! > 0);
    assert.equal(outcome.usd, spend[0]);
  });

  it('sends a streaming Messages request: model id, the cached system prompt, the key, the request as the user turn', async () => {
    fake.queue({ text: fenced(GOOD) });
    await make().write(request, 'opus');
    const [req] = fake.requests;
    assert.ok(req);
    assert.equal(req.path, '/v1/messages');
    assert.equal(req.body.model, MODELS.opus);
    assert.equal(req.body.stream, true);
    assert.ok(req.body.max_tokens >= 4096);
    assert.match(String(req.headers.authorization ?? req.headers['x-api-key']), /sk-test-key/);
    assert.ok(req.headers['anthropic-version'], 'anthropic-version header');
    assert.equal(req.body.system.length, 1);
    assert.deepEqual(req.body.system[0].cache_control, { type: 'ephemeral' });
    assert.equal(req.body.system[0].text, systemPrompt());
    const [user] = messageText(req.body);
    assert.match(user!, /# signalforge: symbol=GBPUSD timeframe=1h/);
    assert.match(user!, /RSI mean reversion in the London session/);
    assert.match(user!, /max_positions = 2/);
    assert.match(user!, /direction = "long"/);
  });

  it('reads the system prompt from the prompt cache after the first call, and prices that in', async () => {
    fake.forgetCache();
    fake.queue({ text: fenced(GOOD) }, { text: fenced(GOOD) });
    const g = make();
    await g.write(request, 'haiku');
    await g.write(request, 'haiku');
    assert.equal(spend.length, 2);
    // The stand-in answered the first with a cache write of the system prompt and the second with a cache read.
    const [written, read] = fake.requests.map((r) => r.usage!);
    assert.ok(written!.cache_creation_input_tokens > 0 && written!.cache_read_input_tokens === 0, JSON.stringify(written));
    assert.ok(read!.cache_read_input_tokens > 0 && read!.cache_creation_input_tokens === 0, JSON.stringify(read));
    // 'test-haiku-id' is priced as the Haiku family, USD per million tokens: input 1, output 5,
    // cache write 1.25, cache read 0.1 (Anthropic's list prices, written out here).
    const usd = (u: typeof written) =>
      (u!.input_tokens * 1 + u!.output_tokens * 5 + u!.cache_creation_input_tokens * 1.25 + u!.cache_read_input_tokens * 0.1) / 1e6;
    assert.ok(Math.abs(spend[0]! - usd(written)) < 1e-12, `first call: recorded ${spend[0]}, expected ${usd(written)}`);
    assert.ok(Math.abs(spend[1]! - usd(read)) < 1e-12, `second call: recorded ${spend[1]}, expected ${usd(read)}`);
    assert.ok(spend[1]! < spend[0]!, `a cache read costs less than a cache write: ${spend}`);
  });

  it('sends the violations back and takes the repaired answer (static check)', async () => {
    fake.queue({ text: fenced(LOOKAHEAD) }, { text: fenced(GOOD) });
    const resets: string[] = [];
    let streamed = '';
    const outcome = await make().write(request, 'sonnet', {
      onToken: (t) => (streamed += t),
      onReset: (r) => {
        resets.push(r);
        streamed = '';
      },
    });
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.equal(outcome.attempts, 2);
    assert.equal(outcome.code, `${HEADER}\n${GOOD}`);
    assert.equal(streamed, outcome.code, 'the tokens after the reset are the final code');
    assert.equal(resets.length, 1);
    assert.equal(fake.requests.length, 2);
    const second = fake.requests[1]!.body;
    assert.equal(second.messages.length, 3);
    assert.equal(second.messages[1].role, 'assistant');
    assert.match(messageText(second)[1]!, /close\.shift\(-1\)/, 'the refused answer is in the conversation');
    const repair = messageText(second)[2]!;
    assert.match(repair, /negative-shift/);
    assert.match(repair, /line \d+, col \d+/);
    assert.deepEqual(second.system[0].cache_control, { type: 'ephemeral' });
    assert.equal(spend.length, 2, 'both calls are paid for');
  });

  it('sends back what strategy_config() returned wrong (run in the sandbox) and takes the repair', async () => {
    fake.queue({ text: fenced(BAD_CONFIG) }, { text: fenced(GOOD) });
    const outcome = await make().write(request, 'sonnet');
    assert.ok(outcome.ok);
    assert.equal(outcome.attempts, 2);
    assert.match(messageText(fake.requests[1]!.body)[2]!, /n_jobs/);
  });

  it('gives up after 1 + repairTries answers that all break the rules', async () => {
    fake.queue({ text: fenced(LOOKAHEAD) }, { text: fenced(BAD_CONFIG) }, { text: 'I will not write code.' });
    const outcome = await make().write(request, 'sonnet');
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok && outcome.kind === 'checks');
    assert.equal(outcome.attempts, 3);
    assert.equal(fake.requests.length, 3);
    assert.ok(!outcome.ok && outcome.violations?.some((v) => v.rule === 'missing-function'), JSON.stringify(outcome));
    const last = fake.requests[2]!.body;
    assert.equal(last.messages.length, 5);

    fake.queue({ text: fenced(LOOKAHEAD) });
    const none = await make({ repairTries: 0 }).write(request, 'sonnet');
    assert.ok(!none.ok && none.kind === 'checks' && none.attempts === 1);
  });

  it('maps the ai_model choices to the configured ids; sonnet-haiku drafts with Haiku and repairs with Sonnet', async () => {
    assert.deepEqual(modelPlan('sonnet', MODELS), { draft: MODELS.sonnet, repair: MODELS.sonnet });
    assert.deepEqual(modelPlan('opus', MODELS), { draft: MODELS.opus, repair: MODELS.opus });
    assert.deepEqual(modelPlan('haiku', MODELS), { draft: MODELS.haiku, repair: MODELS.haiku });
    assert.deepEqual(modelPlan('sonnet-haiku', MODELS), { draft: MODELS.haiku, repair: MODELS.sonnet });
    for (const choice of ['sonnet', 'opus', 'haiku'] as const) {
      fake.queue({ text: fenced(GOOD) });
      const outcome = await make().write(request, choice);
      assert.ok(outcome.ok && outcome.model === MODELS[choice]);
      assert.equal(fake.requests.at(-1)!.body.model, MODELS[choice]);
    }
    fake.requests.length = 0;
    fake.queue({ text: fenced(LOOKAHEAD) }, { text: fenced(GOOD) });
    const mixed = await make().write(request, 'sonnet-haiku');
    assert.deepEqual(
      fake.requests.map((r) => r.body.model),
      [MODELS.haiku, MODELS.sonnet],
    );
    assert.ok(mixed.ok && mixed.model === MODELS.sonnet, 'the model that wrote the final code');
    fake.queue({ text: fenced(GOOD) });
    const plain = await make().write(request, 'sonnet-haiku');
    assert.ok(plain.ok && plain.model === MODELS.haiku);
  });

  it('reports API errors without repairs: 400 and 401 at once, 429 and 529 after the SDK retries', async () => {
    for (const [status, type, calls] of [
      [400, 'invalid_request_error', 1],
      [401, 'authentication_error', 1],
      [429, 'rate_limit_error', 2],
      [529, 'overloaded_error', 2],
      [500, 'api_error', 2],
    ] as const) {
      fake.requests.length = 0;
      for (let i = 0; i < calls; i++) fake.queue({ status, errorType: type });
      const outcome = await make({ maxRetries: 1 }).write(request, 'sonnet');
      assert.ok(!outcome.ok && outcome.kind === 'api', `${status}: ${JSON.stringify(outcome)}`);
      assert.match(outcome.reason, new RegExp(`${status}`));
      assert.equal(fake.requests.length, calls, `${status}: requests made`);
    }
  });

  it('answers when a retry of the SDK gets through after a 529 overloaded', async () => {
    fake.queue({ status: 529, errorType: 'overloaded_error' }, { text: fenced(GOOD) });
    const outcome = await make({ maxRetries: 2 }).write(request, 'sonnet');
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.equal(fake.requests.length, 2);
  });

  it('treats an error event in the middle of the stream as an API failure', async () => {
    fake.queue({ text: fenced(GOOD), streamErrorAfter: 3 });
    const outcome = await make({ maxRetries: 0 }).write(request, 'sonnet');
    assert.ok(!outcome.ok && outcome.kind === 'api', JSON.stringify(outcome));
  });

  it('reports a connection failure as an API failure', async () => {
    const outcome = await make({ baseURL: 'http://127.0.0.1:1', maxRetries: 0 }).write(request, 'sonnet');
    assert.ok(!outcome.ok && outcome.kind === 'api');
    assert.match(outcome.reason, /reach/);
  });

  it('stops when the caller aborts mid-stream', async () => {
    fake.queue({ text: fenced(GOOD), chunk: 3, delayMs: 5 });
    const abort = new AbortController();
    let tokens = 0;
    const outcome = await make().write(request, 'sonnet', {
      signal: abort.signal,
      onToken: () => {
        if (++tokens === 3) abort.abort();
      },
    });
    assert.ok(!outcome.ok && outcome.kind === 'aborted', JSON.stringify(outcome));
  });
});
