/**
 * TickWriter on a real chdb store: ticks gather into few large inserts (by count or by delay),
 * callers are held back only above the high-water mark, everything is stored on flush, and a
 * store that fails for good is counted, not hidden, and told to an owner that can redeliver.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Symbol } from '../../schemas/common.ts';
import type { DataSource } from '../../schemas/market.ts';
import { createLogger } from '../../src/log.ts';
import { TicksRepo } from '../../src/store/index.ts';
import { TickColumns } from '../../src/store/tick-columns.ts';
import { TickWriter } from '../../src/store/tick-writer.ts';
import { tempStore } from './temp-store.ts';

const log = createLogger('silent');
const T0 = Date.UTC(2024, 4, 6, 12, 0, 0);
const store = tempStore('tick-writer');
let repo: TicksRepo;
/** Inserts the real repo ran, with their row counts. */
let inserts: number[] = [];
const counting = () => ({
  insertColumns: async (batches: readonly TickColumns[], source: DataSource) => {
    await repo.insertColumns(batches, source);
    inserts.push(batches.reduce((n, b) => n + b.length, 0));
  },
});

let next = T0;
function batch(symbol: Symbol, n: number): TickColumns {
  const c = new TickColumns(symbol, n);
  for (let i = 0; i < n; i++) c.push(next++, 0, 1.1, 1.1002, 0);
  return c;
}

describe('TickWriter', () => {
  // Inside the suite: runs after the store has opened.
  before(() => {
    repo = new TicksRepo(store.client);
  });

  it('gathers batches into one insert after the delay, and flush() stores what is pending', async () => {
    inserts = [];
    const writer = new TickWriter(counting(), log, { maxDelayMs: 100_000, batchTicks: 1_000_000 });
    for (let i = 0; i < 20; i++) writer.add(batch(i % 2 ? 'EURUSD' : 'GBPUSD', 50), 'live');
    assert.equal(writer.waiting, 1000);
    assert.deepEqual(inserts, [], 'nothing stored before the delay or a full batch');
    await writer.flush();
    assert.deepEqual(inserts, [1000], 'one insert for all twenty batches');
    assert.equal(writer.stored, 1000);
    assert.equal(await repo.count('EURUSD', T0, next), 500);
  });

  it('starts an insert at once on a full batch; what arrives meanwhile goes in the next', async () => {
    inserts = [];
    const writer = new TickWriter(counting(), log, { maxDelayMs: 100_000, batchTicks: 300 });
    writer.add(batch('USDJPY', 200), 'live');
    writer.add(batch('USDJPY', 200), 'live'); // 400 ≥ 300: stored now
    for (let i = 0; i < 5; i++) writer.add(batch('USDJPY', 100), 'live'); // during that insert: the next one
    await writer.flush();
    assert.deepEqual(inserts, [400, 500]);
    assert.equal(writer.stored, 900);
  });

  it('holds callers back only above the high-water mark', async () => {
    inserts = [];
    const writer = new TickWriter(counting(), log, { maxDelayMs: 100_000, batchTicks: 1_000_000, highWater: 1000 });
    writer.add(batch('AUDUSD', 999), 'live');
    await writer.ready();
    assert.deepEqual(inserts, [], 'below the mark: ready without waiting for an insert');
    writer.add(batch('AUDUSD', 1), 'live');
    await writer.ready();
    assert.deepEqual(inserts, [1000], 'at the mark: after an insert');
  });

  it('counts ticks whose insert failed every attempt, and goes on', async () => {
    let calls = 0;
    const failing = {
      insertColumns: async () => {
        calls++;
        throw new Error('clickhouse is down');
      },
    };
    const writer = new TickWriter(failing, log, { maxDelayMs: 100_000, batchTicks: 1_000_000, highWater: 10, attempts: 2 });
    writer.add(batch('NZDUSD', 10), 'live');
    await writer.ready();
    assert.equal(calls, 2);
    assert.equal(writer.failed, 10);
    assert.equal(writer.stored, 0);
    writer.add(batch('NZDUSD', 5), 'live');
    await writer.flush();
    assert.equal(writer.failed, 15);
  });

  it('tells the owner of an insert that failed every attempt, before flush() returns, so it can have the ticks delivered again', async () => {
    let calls = 0;
    const down = {
      insertColumns: async () => {
        calls++;
        throw new Error('clickhouse is down');
      },
    };
    const handedBack: unknown[] = [];
    const writer = new TickWriter(down, log, {
      maxDelayMs: 100_000,
      batchTicks: 1_000_000,
      attempts: 3,
      onFailed: (err) => handedBack.push(err),
    });
    writer.add(batch('USDCHF', 7), 'live');
    await writer.flush();
    assert.equal(calls, 3, 'every attempt first');
    assert.deepEqual(
      handedBack.map((e) => (e as Error).message),
      ['clickhouse is down'],
      'told once, with the last error',
    );
    assert.equal(writer.failed, 7);
  });

  it('a writer shared by several owners tells each of them (onFailure) until it stops listening', async () => {
    const down = {
      insertColumns: async () => {
        throw new Error('clickhouse is down');
      },
    };
    const writer = new TickWriter(down, log, { maxDelayMs: 100_000, batchTicks: 1_000_000, attempts: 1 });
    const told: string[] = [];
    writer.onFailure(() => told.push('EURUSD'));
    const stopListening = writer.onFailure(() => told.push('USDJPY'));
    writer.add(batch('EURUSD', 3), 'live');
    writer.add(batch('USDJPY', 4), 'live');
    await writer.flush();
    assert.deepEqual(told.sort(), ['EURUSD', 'USDJPY'], 'both owners, one insert');
    stopListening();
    writer.add(batch('EURUSD', 2), 'live');
    await writer.flush();
    assert.deepEqual(told.sort(), ['EURUSD', 'EURUSD', 'USDJPY'], 'the one that stopped listening is not told again');
    assert.equal(writer.failed, 9);
  });
});
