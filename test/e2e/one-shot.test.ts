/**
 * POST /one_shot over real HTTP: idea → generated code (offline generator) → train job → deploy,
 * streamed as token / step / done | error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CapsResponse } from '../../schemas/accounts.ts';
import { OneShotDone } from '../../schemas/oneshot.ts';
import { summariseRobustness } from '../../schemas/robustness-summary.ts';
import { readSse, startTestService, type TestService } from '../helpers/service.ts';
import { codeHeader } from '../../src/sandbox/code-header.ts';
import { strategyCode } from '../helpers/strategies.ts';

const ENV = { HISTORY_DAYS: '4', ONE_SHOT_FEE: '9', TRUST_PROXY: '1' };

interface Frame {
  event: string;
  data: string;
}

async function oneShot(sf: TestService, key: string, body: unknown): Promise<{ status: number; frames: Frame[]; text?: string }> {
  const res = await fetch(`${sf.url}/api/v1/one_shot`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) return { status: res.status, frames: [], text: await res.text() };
  const frames = await readSse(res, (f) => f.some((x) => x.event === 'done' || x.event === 'error'), 120_000);
  return { status: 200, frames };
}

const balance = async (sf: TestService, key: string) => (await sf.api('GET', '/api/v1/key/usage', { key })).body.balance as number;

describe('POST /one_shot', () => {
  let sf: TestService;

  before(async () => {
    sf = await startTestService(ENV);
  });
  after(() => sf.stop());

  it('turns a prompt into a live model: tokens, honest steps, one done with the test metrics', async () => {
    const { api_key: key } = await sf.mintKey('oneshot_one');
    const credits = await balance(sf, key);
    const res = await oneShot(sf, key, {
      prompt: 'EUR/USD 1 minute: buy when RSI(14) is below 30, sell above 70, stop 10 pips, random forest',
    });
    assert.equal(res.status, 200, res.text);
    const kinds = res.frames.map((f) => f.event).filter((e) => e !== 'heartbeat');
    assert.ok(kinds.includes('token'), 'the code streams as tokens');
    assert.equal(kinds.at(-1), 'done', `ends with done: ${JSON.stringify(res.frames.at(-1))}`);
    assert.equal(kinds.filter((k) => k === 'done' || k === 'error').length, 1, 'exactly one terminal event');
    const steps = res.frames.filter((f) => f.event === 'step').map((f) => JSON.parse(f.data));
    assert.deepEqual([...new Set(steps.map((s) => s.stage))], ['generate', 'train', 'deploy']);
    for (let i = 1; i < steps.length; i++) assert.ok(steps[i].pct >= steps[i - 1].pct, 'progress never goes back');
    assert.equal(steps.at(-1).pct, 100);

    const done = OneShotDone.parse(JSON.parse(res.frames.at(-1)!.data));
    assert.match(done.stem, /_EURUSD_1min_Model 1$/);
    assert.deepEqual(done.channels, ['sse']);
    const results = await sf.api('GET', `/api/v1/results/${encodeURIComponent(done.stem)}`, { key });
    assert.deepEqual(done.metrics, results.body.metrics.test);
    // Is the edge real? The model's own verdict, said in a train step before the deploy and carried by done.
    assert.equal(done.deployed, true);
    assert.deepEqual(done.robustness, summariseRobustness(results.body.robustness));
    const verdictStep = steps.findIndex((s) => s.stage === 'train' && s.msg.includes(done.robustness!.reasons[0]!));
    assert.ok(
      verdictStep >= 0 && verdictStep < steps.findIndex((s) => s.stage === 'deploy'),
      `the verdict is said before the deploy: ${JSON.stringify(steps)}`,
    );
    assert.match(results.body.features.join(','), /rsi/i, 'the generated features follow the prompt');
    const deployed = await sf.api('GET', '/api/v1/deployed', { key });
    assert.equal(deployed.body.deployed[0].model, done.stem);
    const live = await fetch(done.live_url!.replace(/^https?:\/\/[^/]+/, sf.url), { headers: { 'x-api-key': key } });
    assert.equal(live.status, 200, 'live_url is the model’s signal stream');
    await live.body?.cancel();
    assert.equal(done.credits_remaining, await balance(sf, key));
    assert.ok(credits - done.credits_remaining >= 9, 'the fee and the generation were charged');
  });

  it('with your own code: no generation, no credits, only the training-compute run, on the market of the code’s header line', async () => {
    const { api_key: key } = await sf.mintKey('oneshot_code');
    const credits = await balance(sf, key);
    const before = CapsResponse.parse((await sf.api('GET', '/api/v1/caps', { key })).body);
    const code = strategyCode({ header: codeHeader('GBPUSD', '1min') });
    // A symbol other than the header's is refused before anything starts (POST /train's rule).
    const other = await oneShot(sf, key, { prompt: 'my own', code, symbol: 'EURUSD' });
    assert.equal(other.status, 400, other.text);
    assert.match(other.text!, /symbol EURUSD does not match the code, which was generated for GBPUSD/);
    // The body names no market, the prompt none either: the header's.
    const res = await oneShot(sf, key, { prompt: 'my own', code });
    assert.equal(res.status, 200, res.text);
    assert.ok(!res.frames.some((f) => f.event === 'token'));
    assert.equal(res.frames.at(-1)!.event, 'done', res.frames.at(-1)!.data);
    const queued = res.frames
      .filter((f) => f.event === 'step')
      .map((f) => JSON.parse(f.data) as { stage: string; msg: string })
      .find((st) => st.stage === 'train');
    assert.match(queued!.msg, /on GBPUSD 1min, the market of the code’s header line/);
    assert.match(OneShotDone.parse(JSON.parse(res.frames.at(-1)!.data)).stem, /_GBPUSD_1min_/);
    assert.equal(await balance(sf, key), credits);
    const after = CapsResponse.parse((await sf.api('GET', '/api/v1/caps', { key })).body);
    const used = (caps: CapsResponse) => Object.fromEntries(Object.entries(caps.caps).map(([name, cap]) => [name, cap.used]));
    // A UTC midnight between the two reads starts every count again from 0.
    const start = after.date === before.date ? used(before) : { train_compute: 0, generate_sonnet: 0, generate_haiku: 0, generate_opus: 0 };
    assert.deepEqual(used(after), { ...start, train_compute: start.train_compute! + 1 }, 'one training-compute run, no generation counted');
  });

  it('a failure before the deploy ends with one error event and refunds the fee', async () => {
    const { api_key: key } = await sf.mintKey('oneshot_fail');
    const credits = await balance(sf, key);
    // Four days of hourly bars are too few to train on: the train step fails.
    const res = await oneShot(sf, key, { prompt: 'EURUSD hourly MACD momentum' });
    assert.equal(res.status, 200, res.text);
    const last = res.frames.at(-1)!;
    assert.equal(last.event, 'error');
    assert.match(JSON.parse(last.data).error, /300/);
    const spent = credits - (await balance(sf, key));
    assert.ok(spent >= 0 && spent < 9, `only generation is charged (spent ${spent})`);
    assert.equal((await sf.api('GET', '/api/v1/deployed', { key })).body.count, 0);
  });

  it('402 before any stream when credits are short; 400 for webhook: true without a known URL', async () => {
    const minted = await sf.mintKey('oneshot_poor');
    await sf.service.domain.accounts.metering.charge(minted.user_id, minted.credits - 2, 'test');
    const poor = await oneShot(sf, minted.api_key, { prompt: 'anything' });
    assert.equal(poor.status, 402, poor.text);
    assert.equal(await balance(sf, minted.api_key), 2, 'nothing charged');

    const { api_key: key } = await sf.mintKey('oneshot_hook');
    const hook = await oneShot(sf, key, { prompt: 'anything', deliver_to: { webhook: true } });
    assert.equal(hook.status, 400, hook.text);
  });

  it('refuses a Discord or Slack URL off their hosts (400) and a bridge template with an unknown placeholder (422), before charging anything', async () => {
    const { api_key: key } = await sf.mintKey('oneshot_chat');
    const credits = await balance(sf, key);
    const discord = await oneShot(sf, key, { prompt: 'anything', deliver_to: { discord: 'https://discord.example/api/webhooks/1/t' } });
    assert.equal(discord.status, 400, discord.text);
    assert.match(JSON.parse(discord.text!).error, /^deliver_to\.discord must be a Discord webhook URL on discord\.com/);
    const slack = await oneShot(sf, key, { prompt: 'anything', deliver_to: { slack: 'https://hooks.slack.com/triggers/T1/1/x' } });
    assert.equal(slack.status, 400, slack.text);
    assert.match(JSON.parse(slack.text!).error, /^deliver_to\.slack is not a Slack webhook URL/);
    const template = await oneShot(sf, key, {
      prompt: 'anything',
      deliver_to: { webhook: 'https://93.184.216.34/hook', webhook_template: '{"ticker":"{{symbol}}","qty":{{lots}}}' },
    });
    assert.equal(template.status, 422, template.text);
    assert.match(JSON.parse(template.text!).error, /unknown placeholder \{\{lots\}\}/);
    assert.equal(await balance(sf, key), credits, 'nothing charged');
  });

  it('a client that disconnects still gets its model trained and deployed', async () => {
    const { api_key: key } = await sf.mintKey('oneshot_gone');
    const controller = new AbortController();
    const res = await fetch(`${sf.url}/api/v1/one_shot`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'EURUSD 1min EMA 12/26 crossover, long only' }),
      signal: controller.signal,
    });
    assert.equal(res.status, 200);
    await readSse(res, (f) => f.some((x) => x.event === 'step')).catch(() => []);
    controller.abort();
    const deadline = Date.now() + 60_000;
    for (;;) {
      const deployed = await sf.api('GET', '/api/v1/deployed', { key });
      if (deployed.body.count === 1) break;
      assert.ok(Date.now() < deadline, 'the pipeline finished after the disconnect');
      await new Promise((r) => setTimeout(r, 300));
    }
  });
});
