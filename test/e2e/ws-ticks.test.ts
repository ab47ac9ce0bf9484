/**
 * The WebSocket `ticks` channel on the default install (`serve` with its synthetic feed): the
 * feed's own ticks reach a subscriber, though in `serve` they go straight to the bar builder and
 * never travel on `ticks.<SYMBOL>`. Nothing is published by hand here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { connectStream, type StreamClient } from '../helpers/ws-client.ts';

describe('WebSocket ticks of the synthetic feed (serve)', () => {
  let sf: TestService;
  let client: StreamClient | null = null;
  before(async () => {
    sf = await startTestService({ MARKET_FEED: 'synthetic' });
  });
  after(async () => {
    client?.ws.terminate();
    await sf.stop();
  });

  it('a subscriber to BTCUSD (trading every day) receives the feed’s ticks, newer each time', async () => {
    const { api_key } = await sf.mintKey('tick_watcher');
    client = await connectStream(sf.url, { 'x-api-key': api_key });
    await client.next('welcome');
    const subscribedAt = Date.now();
    client.send({ type: 'subscribe', channel: { channel: 'ticks', symbol: 'BTCUSD' } });
    await client.next('subscribed');
    // The synthetic market ticks every few seconds; a minute bounds the wait (a guard, not a measure).
    const first = await client.next('tick', () => true, 60_000);
    assert.equal(first.symbol, 'BTCUSD');
    assert.ok(first.tick.bid > 0 && first.tick.ask > 0);
    assert.ok(first.tick.ts >= subscribedAt - 60_000, 'a live tick, not history');
    const second = await client.next('tick', (m) => m.tick.ts > first.tick.ts, 60_000);
    assert.ok(second.conflated >= 0);
  });
});
