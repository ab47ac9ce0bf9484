/**
 * The WebSocket `ticks` channel on a real nats-server hears every way a feed's ticks travel: a
 * feed (FeedPublisher, stored by the TICKS stream on `ticks.<SYMBOL>`, in `serve` as in `ingest`)
 * and an outside feed on core `ticks.<SYMBOL>`; each batch conflated to its last tick, the ticks
 * before it counted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ensureStream } from '../../../src/bus/index.ts';
import { openChannel } from '../../../src/edge/ws/channels.ts';
import { Fanout } from '../../../src/edge/ws/fanout.ts';
import { FeedPublisher } from '../../../src/market/index.ts';
import type { Symbol } from '../../../schemas/common.ts';
import type { Tick } from '../../../schemas/market.ts';
import { Streams, Topics } from '../../../schemas/messages.ts';
import type { ServerMessage } from '../../../schemas/stream.ts';
import { startNats, until, type TestNats } from '../../helpers/nats.ts';

const T0 = 1_700_000_000_000;
const tick = (symbol: Symbol, ts: number): Tick => ({ symbol, ts, seq: 0, bid: 1.1 + (ts - T0) / 1e6, ask: 1.1002, volume: 0 });
type TickFrame = Extract<ServerMessage, { type: 'tick' }>;

describe('WebSocket ticks channel (real nats-server)', () => {
  let nats: TestNats;
  before(async () => {
    nats = await startNats('ws-ticks');
    await ensureStream(nats.bus, Streams.ticks);
  });
  after(async () => {
    await nats?.close();
  });

  /** A subscription to one symbol's ticks, as a connection opens it; its frames kept. */
  const subscribeTicks = async (symbol: Symbol) => {
    const frames: TickFrame[] = [];
    const deps = {
      fanout: new Fanout(nats.bus),
      bus: nats.bus,
      bars: { get: () => Promise.reject(new Error('no bars here')) },
      deployments: { find: () => Promise.reject(new Error('no deployments here')) },
      watches: { watch: () => Promise.reject(new Error('no predictions here')) },
      // One frame per batch at most in this test: the batches come seconds apart in machine terms.
      ticksPerSecond: 1000,
    };
    const stop = await openChannel(deps, { channel: 'ticks', symbol }, { key: `ticks:${symbol}`, deployment: null }, undefined, {
      send: (frame) => frames.push((Buffer.isBuffer(frame) ? JSON.parse(frame.toString()) : frame) as TickFrame),
      ready: () => undefined,
    });
    await nats.bus.nc.flush();
    return { frames, stop };
  };

  it('ingest’s feed publisher: its batch’s last tick, the others counted as conflated', async () => {
    const { frames, stop } = await subscribeTicks('GBPUSD');
    await new FeedPublisher({ bus: nats.bus, feed: 'test' }).write([
      tick('GBPUSD', T0 + 1),
      tick('GBPUSD', T0 + 2),
      tick('GBPUSD', T0 + 3),
    ]);
    await until('a tick frame', () => frames.length > 0);
    stop();
    assert.deepEqual(frames, [
      { type: 'tick', symbol: 'GBPUSD', tick: { ts: T0 + 3, bid: tick('GBPUSD', T0 + 3).bid, ask: 1.1002 }, conflated: 2 },
    ]);
  });

  it('an outside feed on core NATS', async () => {
    const { frames, stop } = await subscribeTicks('AUDUSD');
    nats.bus.nc.publish(Topics.ticks.subject('AUDUSD'), JSON.stringify({ ts: T0 + 20, bid: 1.2, ask: 1.2002 }));
    await until('the outside tick', () => frames.length === 1);
    stop();
    assert.deepEqual([frames[0]!.tick.ts, frames[0]!.conflated], [T0 + 20, 0]);
  });
});
