/**
 * ClickHouse over NATS on a real nats-server and a real chdb: the repos run unchanged on the
 * remote client — JSON queries and inserts, commands, RowBinary selects, binary inserts (ticks in
 * a Native block, bars in RowBinary), a frame far above NATS's message size (through the object
 * store) — errors come back as errors, and without an owner the client says what to start.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UnavailableError } from '../../src/errors.ts';
import { BarsRepo, selectRows, TicksRepo, type ClickHouseClient } from '../../src/store/index.ts';
import { remoteClickHouse, serveStore } from '../../src/store-link/index.ts';
import type { Tick } from '../../schemas/market.ts';
import { log, startNats, type TestNats } from '../helpers/nats.ts';
import { tempStore } from '../store/temp-store.ts';

const store = tempStore('store-link');
const T0 = Date.UTC(2024, 4, 1, 10);

describe('ClickHouse over NATS', () => {
  let nats: TestNats;
  let remote: ClickHouseClient;
  let serving: { stop(): void };

  before(async () => {
    nats = await startNats('store-link');
    serving = await serveStore(nats.bus, store.client, log);
    remote = await remoteClickHouse(nats.bus);
  });
  after(async () => {
    serving?.stop();
    await nats?.close();
  });

  it('runs queries, commands and JSON inserts on the owner’s store', async () => {
    await remote.command({ query: 'CREATE TABLE IF NOT EXISTS link_test (id UInt32, name String) ENGINE = MergeTree ORDER BY id' });
    await remote.insert({
      table: 'link_test',
      values: [
        { id: 1, name: 'one' },
        { id: 2, name: 'two' },
      ],
      format: 'JSONEachRow',
    });
    assert.deepEqual(await selectRows(remote, 'SELECT id, name FROM link_test WHERE id >= {min:UInt32} ORDER BY id', { min: 1 }), [
      { id: 1, name: 'one' },
      { id: 2, name: 'two' },
    ]);
    assert.deepEqual(await selectRows(store.client, 'SELECT count() AS n FROM link_test'), [{ n: 2 }], 'written where the owner reads');
  });

  it('stores ticks and bars through the repos (binary inserts), and reads them back in RowBinary', async () => {
    const ticks: Tick[] = Array.from({ length: 600 }, (_, i) => ({
      symbol: 'GBPUSD',
      ts: T0 + i * 1000,
      seq: 0,
      bid: 1.25 + i / 1e5,
      ask: 1.2501 + i / 1e5,
      volume: 1,
    }));
    await new TicksRepo(remote).insert(ticks, 'live');
    const bars = new BarsRepo(remote);
    await bars.insert([
      {
        symbol: 'GBPUSD',
        timeframe: '1min',
        ts: T0,
        open: 1.25,
        high: 1.26,
        low: 1.24,
        close: 1.255,
        volume: 60,
        ticks: 60,
        spread: 0.0001,
        source: 'live',
      },
    ]);
    const series = await bars.load('GBPUSD', '1min');
    assert.deepEqual([...series.ts], [T0]);
    assert.equal(series.close[0], 1.255);
    assert.deepEqual(await selectRows(store.client, "SELECT count() AS n FROM ticks WHERE symbol = 'GBPUSD'"), [{ n: 600 }]);
  });

  it('carries a request and a reply far above one message through the object store', async () => {
    const big = 'x'.repeat(1500);
    const values = Array.from({ length: 2000 }, (_, i) => ({ id: 1000 + i, name: big }));
    await remote.insert({ table: 'link_test', values, format: 'JSONEachRow' });
    const rows = await selectRows<{ id: number; name: string }>(remote, 'SELECT id, name FROM link_test WHERE id >= 1000 ORDER BY id');
    assert.equal(rows.length, 2000);
    assert.ok(rows.every((r) => r.name === big));
  });

  it('answers an error as an error', async () => {
    await assert.rejects(selectRows(remote, 'SELECT nope FROM nowhere'), /store: .*nowhere/is);
  });

  it('says what to start when no process owns the store', async () => {
    serving.stop();
    try {
      await assert.rejects(
        selectRows(remote, 'SELECT 1'),
        (err: unknown) => err instanceof UnavailableError && /signalforge store/.test((err as Error).message),
      );
    } finally {
      serving = await serveStore(nats.bus, store.client, log);
    }
  });
});
