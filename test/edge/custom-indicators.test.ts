/**
 * POST /api/v1/indicators/custom over the real service: key required; a Pine script or a
 * plain-language description run over our bars; overlays, panels with hline levels, signals,
 * features per fe_mode, inputs; 1 credit per call, refunded with a 422 naming line:column when
 * the script is at fault (kept when the run used up its budget); hostile scripts fail fast while
 * the service keeps answering; a key flooding the workers gets 429 with Retry-After.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { UNSUPPORTED } from '../pine/unsupported-cases.ts';

const RSI = `//@version=5
indicator("RSI levels", overlay=false)
len = input.int(14, "Length", minval=2)
r = ta.rsi(close, len)
plot(r, "RSI", color=color.purple)
hline(70, "Overbought", color=color.red)
hline(30, "Oversold", color=color.green)
plotshape(ta.crossover(r, 30), "Leaving oversold", style=shape.triangleup, location=location.bottom)
`;

describe('POST /api/v1/indicators/custom', () => {
  let sf: TestService;
  let key: string;
  const balance = async () => (await sf.api('GET', '/api/v1/key/usage', { key })).body.balance as number;
  const post = (body: Record<string, unknown>) => sf.api('POST', '/api/v1/indicators/custom', { key, body });

  before(async () => {
    sf = await startTestService({ HISTORY_DAYS: '20' });
    key = (await sf.mintKey()).api_key;
  });
  after(() => sf.stop());

  it('refuses a call without a key (401)', async () => {
    const res = await sf.api('POST', '/api/v1/indicators/custom', { body: { source: RSI } });
    assert.equal(res.status, 401);
  });

  it('refuses unknown fields and a limit over the maximum (400)', async () => {
    assert.equal((await post({ source: RSI, script: 'x' })).status, 400);
    assert.equal((await post({ source: RSI, limit: 5001 })).status, 400);
    assert.equal((await post({ source: RSI, provider: 'gpt' })).status, 400);
    // Blank text is neither a script nor a description: refused before any charge.
    const before = await balance();
    const blank = await post({ source: ' \n\t ' });
    assert.equal(blank.status, 400);
    assert.match(blank.body.error, /blank/);
    assert.equal(await balance(), before);
  });

  it('runs a Pine oscillator: one panel with its levels, RSI equal to POST /indicators, inputs, signals, 1 credit', async () => {
    const before = await balance();
    const res = await post({ source: RSI, limit: 300, fe_mode: 'full' });
    assert.equal(res.status, 200, res.text);
    const b = res.body;
    assert.equal(b.source_kind, 'pine');
    assert.equal(b.generated_pine, null);
    assert.equal(b.count, 300);
    assert.equal(b.timestamps.length, 300);
    assert.deepEqual(b.overlays, []);
    assert.equal(b.panels.length, 1);
    const panel = b.panels[0];
    assert.deepEqual(
      panel.levels.map((l: { price: number }) => l.price),
      [70, 30],
    );
    assert.equal(panel.series[0].name, 'rsi');
    assert.deepEqual(b.inputs, [{ name: 'len', title: 'Length', type: 'int', default: 14, min: 2 }]);
    // The registry's RSI over the same bars (the built-in endpoint computes over the whole history).
    const ref = await sf.api('POST', '/api/v1/indicators', { key, body: { indicators: { rsi_period: 14 }, limit: 300 } });
    assert.deepEqual(ref.body.data.timestamp, b.timestamps);
    const mine: number[] = panel.series[0].values;
    ref.body.data.rsi_14.forEach((v: number, i: number) => assert.ok(Math.abs(v - mine[i]!) <= 1e-8, `bar ${i}: ${v} vs ${mine[i]}`));
    // Signals: exactly the bars where RSI crosses above 30.
    const crosses = b.timestamps.filter((_: string, i: number) => i > 0 && mine[i - 1]! <= 30 && mine[i]! > 30);
    assert.deepEqual(
      b.signals
        .filter((s: { kind: string }) => s.kind === 'plotshape')
        .map((s: { ts: string }) => s.ts)
        .filter((t: string) => t > b.timestamps[0]),
      crosses,
    );
    // fe_mode full: the series, its slope, one column per level, one per signal title.
    assert.deepEqual(
      Object.keys(b.features).sort(),
      ['rsi', 'rsi_above_30', 'rsi_above_70', 'rsi_slope', 'signal_leaving_oversold'].sort(),
    );
    assert.equal(b.features.rsi_above_70[5], mine[5]! > 70 ? 1 : 0);
    assert.ok(b.run.steps > 0 && b.run.run_ms >= 0 && b.run.parse_ms >= 0);
    assert.equal(b.credits_charged, 1);
    assert.equal(await balance(), before - 1);
    assert.equal(b.credits_remaining, before - 1);
  });

  it('gives features per fe_mode: none gives none, basic the plotted series only', async () => {
    const none = await post({ source: RSI, limit: 50, fe_mode: 'none' });
    assert.deepEqual(none.body.features, {});
    const basic = await post({ source: RSI, limit: 50, fe_mode: 'basic' });
    assert.deepEqual(Object.keys(basic.body.features), ['rsi']);
  });

  it('sends a large answer whole: its Content-Length is the bytes sent, and they parse', async () => {
    const res = await post({ source: RSI, limit: 2000, timeframe: '1min', fe_mode: 'full' });
    assert.equal(res.status, 200, res.text);
    // One buffer made of the parts the answer is built in (ours, the worker's bytes, ours).
    assert.ok(res.text.length > 150_000, `${res.text.length} bytes`);
    assert.equal(Number(res.headers.get('content-length')), Buffer.byteLength(res.text));
    assert.equal(res.body.count, 2000);
    assert.equal(res.body.panels[0].series[0].values.length, 2000);
    assert.equal(res.body.credits_charged, 1);
    // Where the call's time went: every stage named once, the worker's run within its hand-off.
    const stages = new Map(
      (res.headers.get('server-timing') ?? '').split(', ').map((s) => [s.split(';dur=')[0], Number(s.split(';dur=')[1])]),
    );
    assert.deepEqual([...stages.keys()], ['pre', 'bars', 'queue', 'worker', 'run', 'charge', 'total']);
    for (const [name, ms] of stages) assert.ok(Number.isFinite(ms) && ms >= 0, `${name}: ${ms}`);
    assert.ok(stages.get('run')! <= stages.get('worker')! + 0.1 && stages.get('worker')! <= stages.get('total')! + 0.1);
  });

  it('draws an overlay script on the price pane and records strategy entries', async () => {
    const source = `//@version=5
strategy("MA cross", overlay=true)
fast = ta.ema(close, 9)
slow = ta.sma(close, 21)
plot(fast, "Fast")
plot(slow, "Slow")
if ta.crossover(fast, slow)
    strategy.entry("L", strategy.long)
if ta.crossunder(fast, slow)
    strategy.close("L")
`;
    const res = await post({ source, limit: 400, fe_mode: 'full' });
    assert.equal(res.status, 200, res.text);
    const b = res.body;
    assert.equal(b.script_kind, 'strategy');
    assert.deepEqual(
      b.overlays.map((o: { name: string }) => o.name),
      ['fast', 'slow'],
    );
    assert.deepEqual(b.panels, []);
    const [fast, slow] = b.overlays.map((o: { values: number[] }) => o.values);
    const ups = b.timestamps.filter((_: string, i: number) => i > 0 && fast[i - 1] <= slow[i - 1] && fast[i] > slow[i]);
    assert.deepEqual(
      b.signals
        .filter((s: { kind: string }) => s.kind === 'strategy.entry')
        .map((s: { ts: string }) => s.ts)
        .filter((t: string) => t > b.timestamps[0]),
      ups,
    );
    assert.ok(b.signals.every((s: { kind: string; direction?: string }) => s.kind !== 'strategy.entry' || s.direction === 'long'));
    assert.ok('fast_dist' in b.features && 'fast_cross' in b.features && 'slow_slope' in b.features);
  });

  it('turns a description into Pine (the offline generator) and runs it', async () => {
    const res = await post({ source: 'a 20-period Keltner channel with 2 ATR bands, and mark where price closes outside it', limit: 200 });
    assert.equal(res.status, 200, res.text);
    const b = res.body;
    assert.equal(b.source_kind, 'text');
    assert.equal(b.generator, 'offline');
    assert.match(b.generated_pine, /ta\.ema\(close, 20\)/);
    assert.deepEqual(
      b.overlays.map((o: { name: string }) => o.name),
      ['keltner_upper', 'keltner_middle', 'keltner_lower'],
    );
    const [up, , lo] = b.overlays.map((o: { values: number[] }) => o.values);
    assert.ok(up.every((u: number, i: number) => u > lo[i]));
  });

  it('answers an unsupported construct 422 with line and column, and refunds the credit', async () => {
    const before = await balance();
    const res = await post({ source: '//@version=5\nindicator("x")\nplot(close)\ns = request.security("EURUSD", "D", close)\n' });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.line, 4);
    assert.equal(res.body.column, 5);
    assert.equal(res.body.construct, 'request.security()');
    assert.match(res.body.error, /line 4:5/);
    assert.equal(await balance(), before);
  });

  it('answers each of twenty unsupported constructs 422 at its line:column, refunded', async () => {
    const before = await balance();
    for (const c of UNSUPPORTED) {
      const res = await post({ source: c.source, limit: 50 });
      assert.equal(res.status, 422, `${c.construct}: ${res.text}`);
      assert.equal(`${res.body.line}:${res.body.column}`, `${c.line}:${c.col}`, c.construct);
      assert.ok(String(res.body.construct).includes(c.construct), `${res.body.construct} for ${c.construct}`);
    }
    assert.equal(await balance(), before);
  });

  it('is described in /openapi.json with its request and 422 shapes', async () => {
    const spec = (await sf.api('GET', '/openapi.json')).body;
    const op = spec.paths['/api/v1/indicators/custom'].post;
    assert.ok(op.requestBody && op.responses['200'] && op.responses['422']);
    assert.match(op.description, /1 credit per call/);
    assert.match(op.description, /Server-Timing/);
  });

  it('refuses a key flooding the workers with 429 and Retry-After, keeps the credit of runs that used up their budget, and serves another key', async () => {
    const flooder = (await sf.mintKey()).api_key;
    const credits = async (k: string) => (await sf.api('GET', '/api/v1/key/usage', { key: k })).body.balance as number;
    const start = await credits(flooder);
    // Nested loops within the per-loop bound: each run goes to the step budget or the time limit.
    const spin = '//@version=5\nindicator("spin")\ns = 0.0\nfor i = 0 to 9999\n    for j = 0 to 9999\n        s := s + j\nplot(s)\n';
    const flood = Array.from({ length: 8 }, () =>
      sf.api('POST', '/api/v1/indicators/custom', { key: flooder, body: { source: spin, limit: 50 } }),
    );
    const neighbour = await post({ source: RSI, limit: 50 });
    assert.equal(neighbour.status, 200, neighbour.text);
    const answers = await Promise.all(flood);
    const refused = answers.filter((r) => r.status === 429);
    const spent = answers.filter((r) => r.status === 422);
    assert.equal(refused.length + spent.length, 8, answers.map((r) => r.status).join(' '));
    assert.ok(refused.length >= 3, `one running and four waiting per key: ${refused.length} refused`);
    for (const r of refused) assert.ok(Number(r.headers.get('retry-after')) >= 1, 'Retry-After in seconds');
    for (const r of spent) assert.match(r.body.error, /charged/);
    assert.equal(await credits(flooder), start - spent.length, 'budget runs are charged, refused calls are not');
  });

  it('stops an endless loop and a 10^7-element array fast, while the service keeps answering', async () => {
    const before = await balance();
    const loop = post({ source: '//@version=5\nindicator("spin")\nx = 0\nwhile true\n    x := x + 1\nplot(x)\n' });
    const huge = post({ source: '//@version=5\nindicator("big")\na = array.new_float(10000000, 0)\nplot(array.size(a))\n' });
    const who = await sf.api('GET', '/api/v1/whoami-key', { key });
    assert.equal(who.status, 200);
    const [l, h] = await Promise.all([loop, huge]);
    assert.equal(l.status, 422, l.text);
    assert.equal(l.body.line, 4);
    assert.equal(h.status, 422, h.text);
    assert.equal(h.body.line, 3);
    assert.match(h.body.error, /10000000 elements/);
    assert.equal(await balance(), before);
  });
});
