/**
 * echoTicks (a `serve` feed's sink) on a real nats-server: every batch reaches the inner sink as
 * it was given, and the last tick of each symbol in it is told on `feeds.ticks.<SYMBOL>` with the
 * count of the ticks before it (the WebSocket `ticks` channel's way in), by either write path.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { subscribe } from '../../src/bus/index.ts';
import { echoTicks, type TickSink } from '../../src/market/index.ts';
import { TickColumns } from '../../src/store/index.ts';
import type { Tick } from '../../schemas/market.ts';
import { Topics, type TickEcho } from '../../schemas/messages.ts';
import { startNats, until, type TestNats } from '../helpers/nats.ts';

const T0 = 1_700_000_000_000;
const tick = (symbol: Tick['symbol'], ts: number): Tick => ({ symbol, ts, seq: 0, bid: 1.1 + ts / 1e16, ask: 1.1002, volume: 0 });

describe('echoTicks (real nats-server)', () => {
  let nats: TestNats;
  before(async () => {
    nats = await startNats('tick-echo');
  });
  after(async () => {
    await nats?.close();
  });

  it('hands every batch on and tells each symbol’s last tick with the count before it', async () => {
    const heard: { subject: string; echo: TickEcho }[] = [];
    const sub = subscribe(nats.bus, Topics.tickEcho, Topics.tickEcho.all, (echo, subject) => heard.push({ subject, echo }));
    const written: Tick[][] = [];
    const columns: number[] = [];
    const inner: TickSink = {
      write: async (ticks) => void written.push([...ticks]),
      writeColumns: async (c) => void columns.push(c.length),
    };
    const sink = echoTicks(nats.bus, inner);
    const batch = [tick('EURUSD', T0), tick('GBPUSD', T0 + 1), tick('EURUSD', T0 + 2), tick('EURUSD', T0 + 3)];
    await sink.write(batch);
    const [cols] = TickColumns.fromTicks([tick('BTCUSD', T0 + 10), tick('BTCUSD', T0 + 11)]);
    await sink.writeColumns!(cols!);
    await until('three echoes', () => heard.length === 3);
    sub.unsubscribe();
    assert.deepEqual(written, [batch]);
    assert.deepEqual(columns, [2]);
    const by = Object.fromEntries(heard.map((h) => [h.subject, h.echo]));
    assert.deepEqual(by['feeds.ticks.EURUSD'], { tick: { ts: T0 + 3, bid: batch[3]!.bid, ask: 1.1002 }, before: 2 });
    assert.deepEqual(by['feeds.ticks.GBPUSD'], { tick: { ts: T0 + 1, bid: batch[1]!.bid, ask: 1.1002 }, before: 0 });
    assert.equal(by['feeds.ticks.BTCUSD']!.tick.ts, T0 + 11);
    assert.equal(by['feeds.ticks.BTCUSD']!.before, 1);
  });
});
