/**
 * The service with Claude configured (ANTHROPIC_API_KEY + ANTHROPIC_BASE_URL pointing at a local
 * stand-in of the Anthropic API): who writes, what it costs, which caps count, and the fallbacks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkStrategyCode } from '../../src/sandbox/static-check.ts';
import { CapsResponse, UsageResponse } from '../../schemas/accounts.ts';
import { GenerateResponse } from '../../schemas/generation.ts';
import { messageText, startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.ts';
import { readSse, startTestService, type SseFrame, type TestService } from '../helpers/service.ts';
import { strategyCode } from '../helpers/strategies.ts';

const MODELS = { ANTHROPIC_MODEL_SONNET: 'e2e-sonnet', ANTHROPIC_MODEL_HAIKU: 'e2e-haiku', ANTHROPIC_MODEL_OPUS: 'e2e-opus' };
const GOOD = strategyCode();
const LOOKAHEAD = strategyCode({ prelude: 'df["peek"] = close.shift(-1)' });
const fenced = (code: string) => `\`\`\`python\n${code}\`\`\``;
/** Index of the last `reset` frame (-1 when none). */
const lastReset = (frames: SseFrame[]) => frames.map((f) => f.event).lastIndexOf('reset');

describe('generation with Claude configured (stand-in Anthropic API)', () => {
  let fake: FakeAnthropic;
  let sf: TestService;
  before(async () => {
    fake = await startFakeAnthropic(() => ({ text: fenced(GOOD), chunk: 40 }));
    sf = await startTestService({
      TRUST_PROXY: '1',
      ANTHROPIC_API_KEY: 'sk-e2e',
      ANTHROPIC_BASE_URL: fake.url,
      ANTHROPIC_MAX_RETRIES: '0',
      ...MODELS,
    });
  });
  after(async () => {
    await sf.stop();
    await fake.close();
  });

  const caps = async (key: string) => CapsResponse.parse((await sf.api('GET', '/api/v1/caps', { key })).body);
  const usage = async (key: string) => UsageResponse.parse((await sf.api('GET', '/api/v1/key/usage', { key })).body);
  const generate = (key: string, body: unknown) => sf.api('POST', '/api/v1/generate', { key, body });
  const stream = async (key: string, body: unknown): Promise<SseFrame[]> => {
    const res = await fetch(`${sf.url}/api/v1/generate/stream`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 200, await res.clone().text());
    return readSse(res, (frames) => frames.some((f) => f.event === 'done' || f.event === 'error'), 30_000);
  };

  let alice: string;

  it('Sonnet writes the code: generator claude, its model id, 10 credits, the Sonnet cap and the cost guard count it', async () => {
    alice = (await sf.mintKey()).api_key;
    const before = fake.requests.length;
    const res = await generate(alice, { description: 'London breakout', ai_model: 'sonnet', symbol: 'EURUSD', timeframe: '5min' });
    assert.equal(res.status, 200, res.text);
    const body = GenerateResponse.parse(res.body);
    assert.equal(body.generator, 'claude');
    assert.equal(body.ai_model, 'e2e-sonnet');
    assert.equal(body.credits_remaining, 40);
    assert.equal(body.code, `# signalforge: symbol=EURUSD timeframe=5min\n${GOOD}`);
    assert.ok((await checkStrategyCode(body.code)).ok);
    assert.equal(fake.requests.length, before + 1);
    const req = fake.requests.at(-1)!;
    assert.equal(req.body.model, 'e2e-sonnet');
    assert.deepEqual(req.body.system[0].cache_control, { type: 'ephemeral' });
    assert.match(messageText(req.body)[0]!, /London breakout/);
    const c = await caps(alice);
    assert.equal(c.caps.generate_sonnet.used, 1);
    assert.ok(c.cost_guard.spent_today_usd > 0, 'the AI spend reached the cost guard');
  });

  it('a second Sonnet call the same day is 429 with Retry-After, charges nothing and asks Claude nothing', async () => {
    const before = fake.requests.length;
    const res = await generate(alice, { description: 'again', ai_model: 'sonnet' });
    assert.equal(res.status, 429, res.text);
    assert.match(res.body.error, /Sonnet generations/);
    assert.ok(Number(res.headers.get('retry-after')) > 0);
    assert.equal(fake.requests.length, before);
    assert.equal((await usage(alice)).balance, 40);
    // Without ai_model the offline generator still answers.
    const offline = await generate(alice, { description: 'again' });
    assert.equal(offline.status, 200);
    assert.equal(offline.body.generator, 'offline');
    assert.equal(offline.body.credits_remaining, 39);
  });

  it('falls back to offline when the API is overloaded: the offline price, the cap given back', async () => {
    const key = (await sf.mintKey()).api_key;
    fake.queue({ status: 529, errorType: 'overloaded_error' });
    const res = await generate(key, { description: 'scalp the spread', ai_model: 'haiku' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.generator, 'offline');
    assert.equal(res.body.ai_model, null);
    assert.equal(res.body.credits_remaining, 49, 'charged 5, refunded 4');
    assert.equal((await caps(key)).caps.generate_haiku.used, 0);
    const history = (await usage(key)).history.map((e) => [e.delta, e.reason]);
    assert.deepEqual(history.slice(0, 2), [
      [4, 'refund'],
      [-5, 'generate'],
    ]);
  });

  it('falls back to offline when every answer breaks the rules (after 2 repairs)', async () => {
    const key = (await sf.mintKey()).api_key;
    const before = fake.requests.length;
    fake.queue({ text: fenced(LOOKAHEAD) }, { text: fenced(LOOKAHEAD) }, { text: fenced(LOOKAHEAD) });
    const res = await generate(key, { description: 'peek ahead', ai_model: 'opus' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.generator, 'offline');
    assert.equal(fake.requests.length, before + 3);
    assert.match(messageText(fake.requests.at(-1)!.body).at(-1)!, /negative-shift/);
    assert.equal((await caps(key)).caps.generate_opus.used, 0);
    assert.equal(res.body.credits_remaining, 49);
  });

  it('streams Claude’s code as it is written; a repair sends reset, and the tokens after it are the done code', async () => {
    const key = (await sf.mintKey()).api_key;
    const plain = await stream(key, { description: 'trend', ai_model: 'haiku' });
    const done = GenerateResponse.parse(JSON.parse(plain.find((f) => f.event === 'done')!.data));
    assert.equal(done.generator, 'claude');
    assert.equal(done.ai_model, 'e2e-haiku');
    assert.equal(
      plain
        .filter((f) => f.event === 'token')
        .map((f) => JSON.parse(f.data).text)
        .join(''),
      done.code,
    );

    fake.queue({ text: fenced(LOOKAHEAD), chunk: 40 }, { text: fenced(GOOD), chunk: 40 });
    const repaired = await stream(key, { description: 'trend', ai_model: 'sonnet-haiku' });
    const events = repaired.map((f) => f.event).filter((e) => e !== 'heartbeat');
    assert.equal(events.filter((e) => e === 'reset').length, 1, events.join(','));
    const last = lastReset(repaired);
    const final = GenerateResponse.parse(JSON.parse(repaired.find((f) => f.event === 'done')!.data));
    assert.equal(final.ai_model, 'e2e-sonnet', 'Sonnet repaired the Haiku draft');
    assert.equal(
      repaired
        .slice(last)
        .filter((f) => f.event === 'token')
        .map((f) => JSON.parse(f.data).text)
        .join(''),
      final.code,
    );
    assert.equal(fake.requests.at(-2)!.body.model, 'e2e-haiku');
    assert.equal(fake.requests.at(-1)!.body.model, 'e2e-sonnet');
    const c = await caps(key);
    assert.equal(c.caps.generate_haiku.used, 2, 'sonnet-haiku counts as Haiku');
    assert.equal(c.caps.generate_sonnet.used, 0);
    assert.equal(final.credits_remaining, 50 - 5 - 7);
  });

  it('streams the offline code after a reset when Claude fails mid-answer', async () => {
    const key = (await sf.mintKey()).api_key;
    fake.queue({ text: fenced(GOOD), chunk: 20, streamErrorAfter: 4 });
    const frames = await stream(key, { description: 'trend', ai_model: 'haiku' });
    const done = GenerateResponse.parse(JSON.parse(frames.find((f) => f.event === 'done')!.data));
    assert.equal(done.generator, 'offline');
    const last = lastReset(frames);
    assert.ok(last > 0, 'the Claude tokens were retracted');
    assert.equal(
      frames
        .slice(last)
        .filter((f) => f.event === 'token')
        .map((f) => JSON.parse(f.data).text)
        .join(''),
      done.code,
    );
  });

  it('goes offline at once, without calling Claude or counting a cap, when the platform AI budget is spent', async () => {
    const key = (await sf.mintKey()).api_key;
    await sf.service.domain.accounts.metering.recordAiSpend(1_000_000);
    const before = fake.requests.length;
    const res = await generate(key, { description: 'anything', ai_model: 'opus' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.generator, 'offline');
    assert.equal(res.body.credits_remaining, 49);
    assert.equal(fake.requests.length, before);
    const c = await caps(key);
    assert.equal(c.caps.generate_opus.used, 0);
    assert.equal(c.cost_guard.status, 'exhausted');
  });
});
