/**
 * TicksRepo on a real chdb store: columns go in as one Native block (symbol as a code, time as
 * Float64 ms, source a constant) and come back as the same ticks; tick objects take the same
 * path; keys replace rather than double.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { SYMBOLS } from '../../schemas/common.ts';
import type { Tick } from '../../schemas/market.ts';
import { selectRows, TicksRepo, type ClickHouseClient } from '../../src/store/index.ts';
import { TickColumns } from '../../src/store/tick-columns.ts';
import { tempStore } from './temp-store.ts';

const T0 = Date.UTC(2024, 2, 4, 9, 0, 0);
const store = tempStore('ticks-repo');
let clickhouse: ClickHouseClient;
let repo: TicksRepo;

describe('TicksRepo', () => {
  // Inside the suite: runs after the store has opened.
  before(() => {
    clickhouse = store.client;
    repo = new TicksRepo(clickhouse);
  });

  it('stores batches of columns of every symbol in one insert and reads the same ticks back', async () => {
    const batches: TickColumns[] = [];
    const expected = new Map<string, Tick[]>();
    // Two batches per symbol, handed over interleaved (as the lanes do), with shared milliseconds.
    for (let part = 0; part < 2; part++) {
      for (const [k, symbol] of SYMBOLS.entries()) {
        const c = new TickColumns(symbol, 8);
        for (let i = 0; i < 500; i++) {
          const n = part * 500 + i;
          c.push(T0 + Math.floor(n / 2), n % 2, 1 + k + n * 1e-5, 1 + k + n * 1e-5 + 0.0002, n % 5 === 0 ? 2.5 : 0);
        }
        batches.push(c);
        expected.set(symbol, [...(expected.get(symbol) ?? []), ...c.toTicks()]);
      }
    }
    await repo.insertColumns([...batches, new TickColumns('EURUSD', 1)], 'live');
    for (const symbol of SYMBOLS) {
      const got = await repo.range(symbol, T0, T0 + 60_000, 5000, false);
      assert.deepEqual(
        got,
        expected.get(symbol)!.map((t) => ({ ...t, source: 'live' })),
        symbol,
      );
    }
    const [row] = await selectRows<{ n: number }>(clickhouse, "SELECT toUInt64(count()) AS n FROM ticks WHERE source = 'live'");
    assert.equal(row!.n, 8000);
  });

  it('stores tick objects the same way, with their source; the same keys again replace, not double', async () => {
    const ticks: Tick[] = [
      { symbol: 'BTCUSD', ts: T0 + 3_600_000, seq: 0, bid: 62_000.5, ask: 62_010.25, volume: 0.75 },
      { symbol: 'USDCHF', ts: T0 + 3_600_000, seq: 0, bid: 0.88123, ask: 0.88131, volume: 0 },
      { symbol: 'BTCUSD', ts: T0 + 3_600_001, seq: 0, bid: 62_001, ask: 62_011, volume: 1 },
    ];
    await repo.insert(ticks, 'import');
    await repo.insert(ticks, 'import');
    const btc = await repo.range('BTCUSD', T0 + 3_600_000, T0 + 3_700_000, 10, false);
    assert.deepEqual(
      btc,
      [ticks[0], ticks[2]].map((t) => ({ ...t, source: 'import' })),
    );
    assert.equal(await repo.count('BTCUSD', T0 + 3_600_000, T0 + 3_700_000), 2);
    assert.equal(await repo.count('USDCHF', T0 + 3_600_000, T0 + 3_700_000), 1);
  });

  it('does nothing for no rows', async () => {
    await repo.insertColumns([], 'live');
    await repo.insert([], 'live');
  });
});
