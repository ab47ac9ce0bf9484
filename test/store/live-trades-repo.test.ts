/**
 * The live trades of tracked community entries in ClickHouse (chdb): stored and read back exactly
 * (every float as it was), in trade order per entry; storing a trade again (a bar replayed after a
 * crash) replaces it; P&L of many entries in one read, for entries resuming.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LiveTradesRepo } from '../../src/store/index.ts';
import type { LiveTrade } from '../../schemas/tracker.ts';
import { tempStore } from './temp-store.ts';

const store = tempStore('live-trades');

/** A trade with awkward floats (not representable in short decimals). */
const trade = (communityId: number, seq: number, pnl: number): LiveTrade => ({
  community_id: communityId,
  seq,
  side: seq % 2 ? -1 : 1,
  entryTs: Date.UTC(2017, 1, 13, 9, 15 * seq),
  exitTs: Date.UTC(2017, 1, 13, 10, 15 * seq),
  entryPrice: 1.06123 + seq / 3e5,
  exitPrice: 1.06431 - seq / 7e5,
  lots: 0.1,
  units: 10_000,
  reason: (['SL', 'TP', 'signal'] as const)[seq % 3]!,
  pips: 30.80000000000101 * (seq % 2 ? -1 : 1),
  grossPnl: pnl + 0.7,
  commission: 0.7,
  swap: seq ? -0.13 * seq : 0,
  pnl,
  barsHeld: 4 + seq,
  nights: seq % 2,
  notional: 10_612.3 + seq / 3,
  // A stop on every trade, a take-profit on every other one (none: null, stored as NULL).
  stopLoss: 1.05923 + seq / 3e5,
  takeProfit: seq % 2 ? null : 1.06623 + seq / 7e5,
});

describe('LiveTradesRepo', () => {
  it('reads an entry’s trades back exactly, in trade order', async () => {
    const repo = new LiveTradesRepo(store.client);
    const trades = [trade(1, 0, 30.1 / 3), trade(1, 1, -12.345678901234567), trade(1, 2, 1e-9 / 7)];
    // Written out of order, and another entry's at once: one INSERT for both callers.
    await Promise.all([repo.insert([trades[2]!, trades[0]!]), repo.insert([trades[1]!]), repo.insert([trade(2, 0, 5)])]);
    assert.deepEqual(await repo.ofEntry(1), trades);
    assert.deepEqual(await repo.ofEntry(3), []);
  });

  it('a trade stored again under its number replaces itself', async () => {
    const repo = new LiveTradesRepo(store.client);
    const again = [trade(4, 0, 2.5), trade(4, 1, -1.25)];
    await repo.insert(again);
    await repo.insert(again);
    await repo.insert([again[1]!]);
    assert.deepEqual(await repo.ofEntry(4), again);
  });

  it('gives the P&L of many entries in one read, each in trade order; none for an entry without trades', async () => {
    const repo = new LiveTradesRepo(store.client);
    await repo.insert([trade(5, 1, -3.3), trade(6, 0, 0.1 + 0.2), trade(5, 0, 7.7)]);
    const pnls = await repo.pnls([5, 6, 7]);
    assert.deepEqual(
      [...pnls.entries()],
      [
        [5, [7.7, -3.3]],
        [6, [0.1 + 0.2]],
        [7, []],
      ],
    );
    assert.deepEqual([...(await repo.pnls([])).entries()], []);
  });
});
