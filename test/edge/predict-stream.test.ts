/**
 * GET /api/v1/predict, the WebSocket stream, on the real service: the three ways to authenticate
 * and their refusals, limits, malformed frames, the bars channel (subscribed series only, resume
 * from the bar cache), a slow client cut off while a normal one goes on, and shutdown (1001).
 * Predictions of a deployed model: test/e2e/predict-stream.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { publish } from '../../src/bus/index.ts';
import { Topics } from '../../schemas/messages.ts';
import type { BarMessage, TickMessage } from '../../schemas/market.ts';
import { CloseCodes } from '../../schemas/stream.ts';
import { WIRE_BYTES } from '../../src/edge/ws/client-socket.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { connectStream, wsUrl, type StreamClient } from '../helpers/ws-client.ts';

// No synthetic feed: every bar and tick a client sees here is one the test published.
const LIMITS = { MARKET_FEED: 'none', WS_PER_KEY: '3', WS_SUBSCRIPTIONS: '2', WS_SEND_BUFFER_BYTES: '65536', WS_AUTH_TIMEOUT_MS: '1000' };
const HOUR = 3_600_000;

/** A bar as the bar builder publishes it (after storing it). */
const bar = (symbol: BarMessage['symbol'], ts: number, close: number): BarMessage => ({
  symbol,
  timeframe: '1h',
  ts,
  open: close,
  high: close,
  low: close,
  close,
  volume: 1,
  ticks: 1,
  spread: 0.0001,
  source: 'live',
});

describe('GET /api/v1/predict (WebSocket)', () => {
  let sf: TestService;
  let key: string;
  let username: string;
  const open: StreamClient[] = [];
  const connect = async (headers: Record<string, string> = {}) => {
    const client = await connectStream(sf.url, headers);
    open.push(client);
    return client;
  };

  /** Called with each warning the service logs (the slow-client test waits for the edge's decision to close). */
  let onWarning: (line: string) => void = () => {};

  before(async () => {
    sf = await startTestService({ LOG_LEVEL: 'warn', ...LIMITS }, { logSink: (line) => onWarning(line) });
    const minted = await sf.mintKey('ws_watcher');
    key = minted.api_key;
    username = minted.username;
  });
  after(async () => {
    for (const c of open) c.ws.terminate();
    await sf.stop();
  });

  it('authenticates by the X-API-Key header: welcome names the user and the limits', async () => {
    const client = await connect({ 'x-api-key': key });
    const welcome = await client.next('welcome');
    assert.equal(welcome.user, username);
    assert.equal(welcome.protocol, 1);
    assert.deepEqual(welcome.limits, { subscriptions: 2, message_bytes: 16_384, ticks_per_second: 10, send_buffer_bytes: 65_536 });
    client.close();
  });

  it('authenticates by the sf_session cookie; the same cookie from another site’s page is closed with 4403', async () => {
    const res = await fetch(`${sf.url}/api/v1/key/trial`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.7.7.7' },
      body: '{"username":"ws_browser"}',
    });
    assert.equal(res.status, 200);
    const cookie = res.headers
      .getSetCookie()
      .find((c) => c.startsWith('sf_session='))!
      .split(';')[0]!;
    const client = await connect({ cookie, origin: sf.url });
    assert.equal((await client.next('welcome')).user, 'ws_browser');
    client.close();

    const foreign = await connect({ cookie, origin: 'https://evil.example' });
    const closed = await foreign.closed;
    assert.equal(closed.code, CloseCodes.foreignOrigin);
    assert.match(closed.reason, /another site/);
    assert.equal(foreign.messages.length, 0, 'no welcome');
  });

  it('authenticates by an auth first message; without one the socket closes with 4401', async () => {
    const client = await connect();
    client.send({ type: 'auth', api_key: key });
    assert.equal((await client.next('welcome')).user, username);
    client.close();

    const silent = await connect();
    assert.equal((await silent.closed).code, CloseCodes.unauthorized);

    const wrongFirst = await connect();
    wrongFirst.send({ type: 'subscribe', channel: { channel: 'ticks', symbol: 'EURUSD' } });
    assert.equal((await wrongFirst.closed).code, CloseCodes.unauthorized);

    const badKey = await connect();
    badKey.send({ type: 'auth', api_key: 'sf_not_a_key' });
    assert.equal((await badKey.closed).code, CloseCodes.unauthorized);

    const badHeader = await connect({ 'x-api-key': 'sf_not_a_key' });
    const closed = await badHeader.closed;
    assert.equal(closed.code, CloseCodes.unauthorized);
    assert.match(closed.reason, /not valid/);
  });

  it('never takes a key from the URL: a key in the query string authenticates nobody', async () => {
    const ws = new WebSocket(`${wsUrl(sf.url)}?api_key=${key}`);
    const code = await new Promise<number>((resolve) => ws.on('close', (c) => resolve(c)));
    assert.equal(code, CloseCodes.unauthorized);
  });

  it('a plain GET is 426 and the stream is documented in /openapi.json', async () => {
    const res = await sf.api('GET', '/api/v1/predict', { key });
    assert.equal(res.status, 426);
    assert.equal(res.body.code, 426);
    assert.equal(res.body.error_code, 'SF_UPGRADE_REQUIRED');
    const doc = (await sf.api('GET', '/openapi.json')).body;
    const op = doc.paths['/api/v1/predict'].get;
    assert.match(op.description, /4413/);
    assert.ok(op.responses['101'].content['application/json'].schema, 'the server messages are described');
    assert.ok(doc.paths['/api/v1/predict'].post, 'POST /predict is still there');
  });

  it('answers a malformed frame with an error message and stays usable', async () => {
    const client = await connect({ 'x-api-key': key });
    await client.next('welcome');
    client.send('{not json');
    const notJson = await client.next('error');
    assert.equal(notJson.code, 400);
    client.send({ type: 'subscribe', ref: 'r1', channel: { channel: 'bars', symbol: 'XXXYYY', timeframe: '1h' } });
    const invalid = await client.next('error', (m) => m.ref === 'r1');
    assert.equal(invalid.code, 400);
    assert.match(invalid.error, /symbol/);
    client.send({ type: 'frobnicate', ref: 'r2' });
    assert.equal((await client.next('error', (m) => m.ref === 'r2')).code, 400);
    client.send({ type: 'ping', ref: 'still-there' });
    await client.next('pong', (m) => m.ref === 'still-there');
    client.close();
  });

  it('limits subscriptions per connection (429) and connections per key (4429); frames above the size limit close with 1009', async () => {
    const client = await connect({ 'x-api-key': key });
    await client.next('welcome');
    client.send({ type: 'subscribe', channel: { channel: 'ticks', symbol: 'EURUSD' } });
    client.send({ type: 'subscribe', channel: { channel: 'ticks', symbol: 'GBPUSD' } });
    client.send({ type: 'subscribe', ref: 'third', channel: { channel: 'ticks', symbol: 'USDJPY' } });
    assert.equal((await client.next('error', (m) => m.ref === 'third')).code, 429);
    client.send({ type: 'subscribe', ref: 'again', channel: { channel: 'ticks', symbol: 'EURUSD' } });
    assert.equal((await client.next('error', (m) => m.ref === 'again')).code, 409);

    const more = [await connect({ 'x-api-key': key }), await connect({ 'x-api-key': key })];
    await Promise.all(more.map((c) => c.next('welcome')));
    const fourth = await connect({ 'x-api-key': key });
    assert.equal((await fourth.closed).code, CloseCodes.tooManyConnections);
    for (const c of more) c.close();
    await Promise.all(more.map((c) => c.closed));

    client.send(JSON.stringify({ type: 'ping', ref: 'x'.repeat(20_000) }));
    assert.equal((await client.closed).code, CloseCodes.tooBig);
  });

  it('bars: frames come for the subscribed series only; a late subscriber resumes from a bar time', async () => {
    // The edge's bar cache holds the series (as after any /ohlc read): the bars published below join it.
    assert.equal((await sf.api('GET', '/api/v1/ohlc?symbol=AUDUSD&timeframe=1h&limit=1', { key })).status, 200);
    const client = await connect({ 'x-api-key': key });
    await client.next('welcome');
    client.send({ type: 'subscribe', ref: 's', channel: { channel: 'bars', symbol: 'AUDUSD', timeframe: '1h' } });
    assert.equal((await client.next('subscribed', (m) => m.ref === 's')).resumed, 0);
    const t0 = Math.floor(Date.now() / HOUR) * HOUR + 1000 * HOUR;
    // Published in this order on one connection: the other series' bar would arrive first.
    await publish(sf.service.bus, Topics.bars, ['USDCAD', '1h'], bar('USDCAD', t0, 1.5));
    await publish(sf.service.bus, Topics.bars, ['AUDUSD', '1h'], bar('AUDUSD', t0, 0.7));
    await publish(sf.service.bus, Topics.bars, ['AUDUSD', '1h'], bar('AUDUSD', t0 + HOUR, 0.71));
    const last = await client.next('bar', (m) => m.bar.ts === t0 + HOUR);
    assert.deepEqual(last.bar, bar('AUDUSD', t0 + HOUR, 0.71));
    const bars = client.messages.flatMap((m) => (m.type === 'bar' ? [m.bar] : []));
    assert.deepEqual(
      bars.filter((b) => b.ts >= t0),
      [bar('AUDUSD', t0, 0.7), bar('AUDUSD', t0 + HOUR, 0.71)],
    );
    assert.ok(
      bars.every((b) => b.symbol === 'AUDUSD' && b.timeframe === '1h'),
      'nothing of another series',
    );

    // Resume after the first of the two: the second comes from the bar cache, once, then live ones.
    const late = await connect({ 'x-api-key': key });
    await late.next('welcome');
    late.send({
      type: 'subscribe',
      ref: 'r',
      channel: { channel: 'bars', symbol: 'AUDUSD', timeframe: '1h' },
      since: new Date(t0).toISOString(),
    });
    assert.equal((await late.next('subscribed', (m) => m.ref === 'r')).resumed, 1);
    await publish(sf.service.bus, Topics.bars, ['AUDUSD', '1h'], bar('AUDUSD', t0 + HOUR, 0.71)); // a repeat: dropped
    await publish(sf.service.bus, Topics.bars, ['AUDUSD', '1h'], bar('AUDUSD', t0 + 2 * HOUR, 0.72));
    await late.next('bar', (m) => m.bar.ts === t0 + 2 * HOUR);
    const seen = late.messages.flatMap((m) => (m.type === 'bar' ? [m.bar.ts] : []));
    assert.deepEqual(seen, [t0 + HOUR, t0 + 2 * HOUR]);

    client.send({ type: 'unsubscribe', ref: 'u', channel: { channel: 'bars', symbol: 'AUDUSD', timeframe: '1h' } });
    await client.next('unsubscribed', (m) => m.ref === 'u');
    await publish(sf.service.bus, Topics.bars, ['AUDUSD', '1h'], bar('AUDUSD', t0 + 3 * HOUR, 0.73));
    client.send({ type: 'ping', ref: 'after' });
    await late.next('bar', (m) => m.bar.ts === t0 + 3 * HOUR);
    await client.next('pong', (m) => m.ref === 'after');
    assert.ok(!client.messages.some((m) => m.type === 'bar' && m.bar.ts === t0 + 3 * HOUR), 'nothing after unsubscribe');
    client.close();
    late.close();
  });

  it('ticks: a burst is conflated to its latest tick, the dropped ones counted', async () => {
    const client = await connect({ 'x-api-key': key });
    await client.next('welcome');
    client.send({ type: 'subscribe', channel: { channel: 'ticks', symbol: 'USDCAD' } });
    await client.next('subscribed');
    const t0 = Date.now();
    const burst = (from: number): TickMessage[] =>
      Array.from({ length: 200 }, (_, i) => ({ ts: t0 + from + i, bid: 1.3 + i / 1e5, ask: 1.3002 + i / 1e5 }));
    const first = burst(0);
    sf.service.bus.nc.publish(Topics.ticks.subject('USDCAD'), JSON.stringify(first));
    const one = await client.next('tick');
    assert.deepEqual(one, { type: 'tick', symbol: 'USDCAD', tick: first.at(-1), conflated: 199 });
    const second = burst(1000);
    sf.service.bus.nc.publish(Topics.ticks.subject('USDCAD'), JSON.stringify(second));
    const two = await client.next('tick', (m) => m.tick.ts === second.at(-1)!.ts);
    assert.equal(two.conflated, 199);
    assert.equal(client.messages.filter((m) => m.type === 'tick').length, 2);
    client.close();
  });

  it('a client that does not read is told it lags, then closed with 4413, while a normal client keeps receiving', async () => {
    const other = (await sf.mintKey('ws_slow')).api_key;
    const normal = await connect({ 'x-api-key': key });
    const slow = await connect({ 'x-api-key': other });
    await Promise.all([normal.next('welcome'), slow.next('welcome')]);
    for (const c of [normal, slow]) c.send({ type: 'subscribe', channel: { channel: 'bars', symbol: 'USDJPY', timeframe: '1h' } });
    await Promise.all([normal.next('subscribed'), slow.next('subscribed')]);
    const socket = (slow.ws as unknown as { _socket: import('node:net').Socket })._socket;
    socket.pause();
    // Once the edge decides to close the slow client, it reads again: the close frame comes after
    // what was queued, and a client still stuck past the grace period would be cut off (1006) instead.
    const cutOff = new Promise<void>((resolve) => {
      onWarning = (line) => {
        if (line.includes('websocket client too slow')) resolve();
      };
    }).then(() => socket.resume());
    // Enough for the kernel's buffers on both ends and then the edge's limit, several times over.
    const N = 80_000;
    const t0 = Math.floor(Date.now() / HOUR) * HOUR + 2000 * HOUR;
    // At the pace of the normal client (which reads in this process, beside the edge): batches of
    // 2,000, each once it has the previous one.
    for (let i = 0; i < N; i++) {
      sf.service.bus.nc.publish(Topics.bars.subject('USDJPY', '1h'), JSON.stringify(bar('USDJPY', t0 + i * HOUR, 150 + i / 1e6)));
      if (i % 2000 === 1999) await normal.next('bar', (m) => m.bar.ts === t0 + i * HOUR, 60_000);
    }
    await normal.next('bar', (m) => m.bar.ts === t0 + (N - 1) * HOUR, 60_000);
    await cutOff;
    onWarning = () => {};
    const closed = await slow.closed;
    assert.equal(closed.code, CloseCodes.tooSlow);
    assert.match(closed.reason, /too slow/);
    const lagging = slow.messages.findIndex((m) => m.type === 'lagging');
    assert.ok(lagging >= 0, 'the lagging warning came before the close');
    // The warning and the close pass the frames the edge holds: what comes between them is at most
    // the one write window the socket had (not the limit's worth queued behind the warning), so a
    // client that reads again at all reads both at once.
    const between = slow.messages.slice(lagging + 1).reduce((n, m) => n + Buffer.byteLength(JSON.stringify(m)), 0);
    assert.ok(between <= WIRE_BYTES + 1024, `${between} bytes came between lagging and the close`);
    assert.ok(between < Number(LIMITS.WS_SEND_BUFFER_BYTES) / 2);
    assert.ok(slow.messages.filter((m) => m.type === 'bar').length < N, 'the slow client did not get everything');
    const got = normal.messages.flatMap((m) => (m.type === 'bar' && m.bar.ts >= t0 ? [m.bar.ts] : []));
    assert.equal(got.length, N, 'the normal client got every bar');
    assert.ok(
      got.every((ts, i) => ts === t0 + i * HOUR),
      'in order',
    );
    normal.send({ type: 'ping', ref: 'alive' });
    await normal.next('pong', (m) => m.ref === 'alive');
    normal.close();
    await normal.closed;
  });

  it('closes with 4408 a socket with nothing subscribed that stays silent, and one that stops answering pings', async () => {
    // Heartbeats every 500 ms and a 3 s idle timeout from here on (a restart with them).
    await sf.restart({ WS_PING_MS: '500', WS_IDLE_MS: '3000' });
    const idle = await connect({ 'x-api-key': key });
    await idle.next('welcome');
    const closed = await idle.closed;
    assert.equal(closed.code, CloseCodes.idle);
    assert.match(closed.reason, /idle/);

    const deaf = new WebSocket(wsUrl(sf.url), { headers: { 'x-api-key': key }, autoPong: false });
    deaf.on('message', (data) => {
      if (JSON.parse(data.toString()).type === 'welcome')
        deaf.send(JSON.stringify({ type: 'subscribe', channel: { channel: 'ticks', symbol: 'NZDUSD' } }));
    });
    const [code, reason] = await new Promise<[number, string]>((resolve) => deaf.on('close', (c, r) => resolve([c, r.toString()])));
    assert.equal(code, CloseCodes.idle);
    assert.match(reason, /pong/);
  });

  it('a shutdown closes every socket with 1001 (going away); the restarted service takes new ones', async () => {
    const client = await connect({ 'x-api-key': key });
    await client.next('welcome');
    client.send({ type: 'subscribe', channel: { channel: 'ticks', symbol: 'EURUSD' } });
    await client.next('subscribed');
    await sf.restart();
    const closed = await client.closed;
    assert.equal(closed.code, CloseCodes.goingAway);
    const again = await connect({ 'x-api-key': key });
    assert.equal((await again.next('welcome')).user, username);
    again.close();
  });
});

describe('GET /api/v1/predict: connections per client address', () => {
  let sf: TestService;
  const open: StreamClient[] = [];
  before(async () => {
    sf = await startTestService({ MARKET_FEED: 'none', WS_PER_ADDRESS: '3', WS_PER_KEY: '10' });
  });
  after(async () => {
    for (const c of open) c.ws.terminate();
    await sf.stop();
  });

  it('refuses the connection past the address’s limit with 4429, whatever key it brings; a closed one frees its place', async () => {
    const keys = await Promise.all(Array.from({ length: 5 }, async () => (await sf.mintKey()).api_key));
    const connect = async (key: string) => {
      const client = await connectStream(sf.url, { 'x-api-key': key });
      open.push(client);
      return client;
    };
    const first = await Promise.all(keys.slice(0, 3).map(connect));
    await Promise.all(first.map((c) => c.next('welcome')));
    const fourth = await connect(keys[3]!);
    assert.equal((await fourth.closed).code, CloseCodes.tooManyConnections, 'a fourth key from the same address');
    first[0]!.close();
    await first[0]!.closed;
    const again = await connect(keys[4]!);
    assert.ok((await again.next('welcome')).user, 'room again once one closed');
  });
});
