/**
 * POST /generate, /generate/stream, /generate/from-template and GET /presets, /examples over real
 * HTTP on the real service, without Claude (no ANTHROPIC_API_KEY): the offline generator writes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkStrategyCode, checkStrategyConfig } from '../../src/sandbox/static-check.ts';
import { CapsResponse } from '../../schemas/accounts.ts';
import { GenerateResponse } from '../../schemas/generation.ts';
import { readSse, startTestService, type SseFrame, type TestService } from '../helpers/service.ts';

describe('strategy generation over HTTP (offline generator)', () => {
  let sf: TestService;
  before(async () => {
    sf = await startTestService({ TRUST_PROXY: '1' });
  });
  after(() => sf.stop());

  const balance = async (key: string): Promise<number> => (await sf.api('GET', '/api/v1/key/usage', { key })).body.balance;
  const caps = async (key: string) => CapsResponse.parse((await sf.api('GET', '/api/v1/caps', { key })).body).caps;
  /** The code passes the static check and its strategy_config() (run in the sandbox) the schema. */
  const assertValid = async (code: string) => {
    const statics = await checkStrategyCode(code);
    assert.deepEqual(statics.violations, [], code);
    const config = await sf.service.domain.runtime.config(code);
    assert.deepEqual(checkStrategyConfig(config).violations, []);
    return config as Record<string, unknown>;
  };
  const postStream = (key: string, body: unknown) =>
    fetch(`${sf.url}/api/v1/generate/stream`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const until = (event: string) => (frames: SseFrame[]) => frames.some((f) => f.event === event || f.event === 'error');

  it('answers 401 without a key on the three generate routes', async () => {
    for (const path of ['/api/v1/generate', '/api/v1/generate/stream', '/api/v1/generate/from-template']) {
      const res = await sf.api('POST', path, { body: { template: 'scalper' } });
      assert.equal(res.status, 401, path);
      assert.equal(res.body.code, 401);
    }
  });

  it('generates valid code for the market asked, costs 1 credit, and says the offline generator wrote it', async () => {
    const { api_key } = await sf.mintKey();
    const res = await sf.api('POST', '/api/v1/generate', {
      key: api_key,
      body: { description: 'RSI mean reversion with a 20 pip stop', symbol: 'USDJPY', timeframe: '1h' },
    });
    assert.equal(res.status, 200, res.text);
    const body = GenerateResponse.parse(res.body);
    assert.equal(body.generator, 'offline');
    assert.equal(body.ai_model, null);
    assert.equal(body.credits_remaining, 49);
    assert.equal(body.code.split('\n')[0], '# signalforge: symbol=USDJPY timeframe=1h');
    await assertValid(body.code);
    assert.equal(await balance(api_key), 49);
    const usage = (await sf.api('GET', '/api/v1/key/usage', { key: api_key })).body;
    assert.equal(usage.history[0].delta, -1);
    assert.equal(usage.history[0].reason, 'generate');
  });

  it('writes the code for the market the text names when the fields are absent; a field still wins; the default only when neither', async () => {
    const { api_key } = await sf.mintKey();
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [
        { description: 'Fade the London open on GBPUSD: if price is more than 2 ATR above the 50 EMA at 08:00 UTC, sell. 15 minute bars.' },
        'GBPUSD',
        '15min',
      ],
      [{ description: 'Trend following on USDJPY hourly: go long when the 20 EMA is above the 100 EMA' }, 'USDJPY', '1h'],
      [{ description: 'Bollinger bands (20, 2.5) and RSI(7) below 20 on EUR/USD 5min' }, 'EURUSD', '5min'],
      [{ description: 'Cable breakout', signals: 'buy a close above the 20-bar high on M1' }, 'GBPUSD', '1min'],
      [{ description: 'Trend following on USDJPY hourly', symbol: 'AUDUSD' }, 'AUDUSD', '1h'],
      [{ description: 'MACD momentum' }, 'EURUSD', '15min'],
    ];
    for (const [body, symbol, timeframe] of cases) {
      const res = await sf.api('POST', '/api/v1/generate', { key: api_key, body });
      assert.equal(res.status, 200, res.text);
      const answer = GenerateResponse.parse(res.body);
      assert.deepEqual([answer.symbol, answer.timeframe], [symbol, timeframe], JSON.stringify(body));
      assert.equal(answer.code.split('\n')[0], `# signalforge: symbol=${symbol} timeframe=${timeframe}`);
    }
    // The answer says how it read the request, setting by setting.
    const fade = GenerateResponse.parse((await sf.api('POST', '/api/v1/generate', { key: api_key, body: cases[0]![0] })).body).understood;
    assert.deepEqual(fade.direction, { value: 'short', from: 'description', phrase: 'sell' });
    assert.ok(fade.indicators.includes('EMA 50'), JSON.stringify(fade.indicators));
    assert.ok(fade.conditions.length > 0);
    assert.equal(fade.model.from, 'default');
    assert.ok(
      fade.remarks.some((r) => r.startsWith('short only')),
      JSON.stringify(fade.remarks),
    );
    const stream = await postStream(api_key, { description: 'Mean reversion on the aussie, 5 minute bars' });
    const done = (await readSse(stream, until('done'))).find((f) => f.event === 'done')!;
    assert.deepEqual(
      [JSON.parse(done.data).symbol, JSON.parse(done.data).timeframe],
      ['AUDUSD', '5min'],
      'the stream reads the text the same way',
    );
  });

  it('answers the roles it read: entries, exits, filters, stops, targets and what it approximated, all in the code', async () => {
    const { api_key } = await sf.mintKey();
    const ask = async (description: string) => {
      const res = await sf.api('POST', '/api/v1/generate', { key: api_key, body: { description } });
      assert.equal(res.status, 200, res.text);
      return GenerateResponse.parse(res.body);
    };
    const trend = await ask(
      'Trend following on USDJPY hourly: go long when the 20 EMA is above the 100 EMA and ADX rises, exit on a close below the 20 EMA, gradient boosting model',
    );
    assert.deepEqual(
      trend.understood.entries.map((e) => e.condition),
      ['EMA 20 above EMA 100', 'ADX(14) rising'],
    );
    // An exit worded as a close beyond a line is its crossing: the state held on most entry bars too, where the engine opens nothing.
    assert.deepEqual(
      trend.understood.exits.map((e) => e.condition),
      ['price crosses below EMA 20'],
    );
    assert.ok(
      trend.code.includes('"exit_long": "exit_long_rule",') && trend.code.includes("df['exit_long_rule'] = "),
      'the exit is in the code',
    );
    const fade = await ask(
      'Fade the London open on GBPUSD: if price is more than 2 ATR above the 50 EMA at 08:00 UTC, sell, target the EMA, stop 1.5 ATR. 15 minute bars.',
    );
    assert.deepEqual(
      fade.understood.entries.map((e) => e.condition),
      ['price more than 2 x ATR(14) above EMA 50'],
    );
    assert.ok(
      fade.understood.targets.some((t) => t.startsWith('target the ema')),
      JSON.stringify(fade.understood.targets),
    );
    assert.ok(fade.understood.approximations.some((a) => a.asked === 'target the ema'));
    assert.ok(fade.code.includes('"take_profit": None,') && fade.code.includes('"exit_short": "exit_short_rule",'));
    const filtered = await ask("RSI 14 below 30 only when ADX is above 25, don't trade on Fridays");
    assert.deepEqual(
      filtered.understood.filters.map((f) => f.filter),
      ['ADX(14) above 25', 'no entries on fri (UTC)'],
    );
    assert.deepEqual(filtered.understood.skip_days.value, ['fri']);
    assert.ok(filtered.code.includes('"skip_days": ["fri"],') && filtered.code.includes('"entry_filter": "entry_gate",'));
    // No default that fights the words: a trailing-stop trend idea gets no fixed take profit, and the answer says what defaults were added.
    const trail = await ask('Donchian 20 breakout, trail the stop by 2 ATR');
    assert.deepEqual(trail.understood.take_profit, { value: null, from: 'description', phrase: 'trail the stop by 2 atr' });
    assert.ok(trail.code.includes('"take_profit": None,'));
    assert.ok(
      trail.understood.remarks.some((r) => r.startsWith('no fixed take profit: ')),
      JSON.stringify(trail.understood.remarks),
    );
    assert.ok(!trail.understood.defaults.some((d) => d.startsWith('take_profit')), JSON.stringify(trail.understood.defaults));
    assert.ok(
      filtered.understood.defaults.some((d) => d.startsWith('take_profit: 1.5 x the stop')),
      JSON.stringify(filtered.understood.defaults),
    );
  });

  it('writes offline (1 credit, no cap counted) when an ai_model is asked for but Claude is not configured', async () => {
    const { api_key } = await sf.mintKey();
    for (const ai_model of ['sonnet', 'sonnet', 'haiku', 'opus', 'sonnet-haiku']) {
      const res = await sf.api('POST', '/api/v1/generate', { key: api_key, body: { description: 'ema crossover', ai_model } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.generator, 'offline');
    }
    assert.equal(await balance(api_key), 45);
    const c = await caps(api_key);
    assert.equal(c.generate_sonnet.used + c.generate_haiku.used + c.generate_opus.used, 0);
  });

  it('answers 402 when the credits are short, and charges nothing', async () => {
    const { api_key, user_id } = await sf.mintKey();
    await sf.service.domain.accounts.metering.charge(user_id, 50, 'test');
    for (const [path, body] of [
      ['/api/v1/generate', { description: 'x' }],
      ['/api/v1/generate/from-template', { template: 'scalper' }],
      ['/api/v1/generate/stream', { description: 'x' }],
    ] as const) {
      const res = await sf.api('POST', path, { key: api_key, body });
      assert.equal(res.status, 402, `${path}: ${res.text}`);
      assert.equal(res.body.code, 402);
      assert.match(res.body.error, /out of credits/);
    }
    assert.equal(await balance(api_key), 0);
  });

  it('answers 400 for a bad body (unknown ai_model, unknown template, train_split out of range)', async () => {
    const { api_key } = await sf.mintKey();
    for (const [path, body] of [
      ['/api/v1/generate', { ai_model: 'gpt' }],
      ['/api/v1/generate', { train_split: 2 }],
      ['/api/v1/generate/from-template', { template: 'nope' }],
      ['/api/v1/generate/from-template', {}],
    ] as const) {
      const res = await sf.api('POST', path, { key: api_key, body });
      assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}: ${res.text}`);
    }
    assert.equal(await balance(api_key), 50);
  });

  it('streams token frames that concatenate to the code of the done frame', async () => {
    const { api_key } = await sf.mintKey();
    const res = await postStream(api_key, { description: 'MACD momentum with a trend filter', symbol: 'EURUSD', timeframe: '15min' });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const frames = await readSse(res, until('done'));
    const tokens = frames.filter((f) => f.event === 'token');
    const done = frames.find((f) => f.event === 'done');
    assert.ok(done, JSON.stringify(frames.slice(-2)));
    assert.ok(tokens.length > 1, 'the code comes in several token frames');
    assert.deepEqual(
      frames.map((f) => f.event).filter((e) => e !== 'heartbeat'),
      [...tokens.map(() => 'token'), 'done'],
    );
    const body = GenerateResponse.parse(JSON.parse(done.data));
    assert.equal(tokens.map((f) => JSON.parse(f.data).text).join(''), body.code);
    assert.equal(body.generator, 'offline');
    assert.equal(body.credits_remaining, 49);
    await assertValid(body.code);
  });

  it('counts the generate stream as the key’s one concurrent SSE stream', async () => {
    const { api_key } = await sf.mintKey();
    const activity = await fetch(`${sf.url}/api/v1/activity/stream`, { headers: { 'x-api-key': api_key } });
    assert.equal(activity.status, 200);
    const refused = await postStream(api_key, { description: 'x' });
    assert.equal(refused.status, 429);
    assert.match((await refused.json()).error, /one concurrent SSE stream/);
    await activity.body!.cancel();
    // The slot is released once the server sees the activity stream close.
    let res: Response | null = null;
    for (let i = 0; i < 50; i++) {
      res = await postStream(api_key, { description: 'x' });
      if (res.status === 200) break;
      await res.body?.cancel();
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(res!.status, 200);
    const frames = await readSse(res!, until('done'));
    assert.ok(frames.some((f) => f.event === 'done'));
    assert.equal(await balance(api_key), 49, 'the refused stream cost nothing');
  });

  it('from-template: merges indicators and pos_rules over the template, costs 1 credit', async () => {
    const { api_key } = await sf.mintKey();
    const res = await sf.api('POST', '/api/v1/generate/from-template', {
      key: api_key,
      body: {
        template: 'macd_momentum',
        symbol: 'GBPUSD',
        timeframe: '1h',
        indicators: { macd_fast: 8 },
        pos_rules: { direction: 'long', cooldown: 7 },
      },
    });
    assert.equal(res.status, 200, res.text);
    const body = GenerateResponse.parse(res.body);
    assert.equal(body.generator, 'offline');
    assert.equal(body.credits_remaining, 49);
    assert.equal(body.code.split('\n')[0], '# signalforge: symbol=GBPUSD timeframe=1h');
    assert.match(body.code, /macd_8_26_9/);
    const config = await assertValid(body.code);
    assert.equal(config.direction, 'long');
    assert.equal(config.cooldown, 7);
  });

  it('every template generates valid code', async () => {
    const { api_key } = await sf.mintKey();
    const presets = (await sf.api('GET', '/api/v1/presets')).body;
    for (const template of presets.templates) {
      const res = await sf.api('POST', '/api/v1/generate/from-template', { key: api_key, body: { template: template.name } });
      assert.equal(res.status, 200, `${template.name}: ${res.text}`);
      await assertValid(res.body.code);
    }
  });

  it('GET /presets (public): chip presets, the pos_rules JSON Schema, the five templates with descriptions', async () => {
    const res = await sf.api('GET', '/api/v1/presets');
    assert.equal(res.status, 200, res.text);
    const body = res.body;
    assert.ok(Array.isArray(body.chips) && body.chips.length > 0);
    assert.deepEqual(Object.keys(body.pos_rules_schema.properties).sort(), ['cooldown', 'direction', 'max_pos', 'on_opposite']);
    assert.deepEqual(body.pos_rules_schema.properties.direction.enum, ['both', 'long', 'short']);
    assert.deepEqual(body.templates.map((t: { name: string }) => t.name).sort(), [
      'conservative_long',
      'macd_momentum',
      'mean_reversion',
      'scalper',
      'trend_following',
    ]);
    for (const t of body.templates) assert.ok(typeof t.description === 'string' && t.description.length > 10, t.name);
  });

  it('GET /examples (public): example prompts, filtered by category', async () => {
    const all = await sf.api('GET', '/api/v1/examples');
    assert.equal(all.status, 200, all.text);
    assert.ok(all.body.count > 0);
    assert.equal(all.body.count, all.body.examples.length);
    assert.ok(all.body.categories.length > 0);
    for (const e of all.body.examples) {
      assert.ok(typeof e.prompt === 'string' && e.prompt.length > 0);
      assert.ok(all.body.categories.includes(e.category));
    }
    const category = all.body.categories[0];
    const some = await sf.api('GET', `/api/v1/examples?category=${encodeURIComponent(category)}`);
    assert.equal(some.status, 200);
    assert.ok(some.body.count > 0);
    assert.ok(some.body.examples.every((e: { category: string }) => e.category === category));
    const none = await sf.api('GET', '/api/v1/examples?category=no-such-category');
    assert.equal(none.status, 200);
    assert.equal(none.body.count, 0);
  });
});
