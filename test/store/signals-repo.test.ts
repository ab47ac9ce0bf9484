/**
 * Live signals in ClickHouse (chdb): every column stored and read back exactly — a model name in
 * any script, prices that are not short decimals, levels and P&L present or null — and a bar of
 * thousands of signals, written one by one, stored every one once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SignalsRepo, selectRows } from '../../src/store/index.ts';
import type { SignalEvent } from '../../schemas/live.ts';
import { tempStore } from './temp-store.ts';

const store = tempStore('signals');

const BAR = Date.UTC(2024, 4, 1, 12, 15);

function signal(deployment: string, n: number, overrides: Partial<SignalEvent> = {}): SignalEvent {
  return {
    id: `sig_${deployment}_${BAR}_${n}`,
    deployment_id: deployment,
    model: `7_EURUSD_15min_Momentum`,
    model_name: 'Momentum',
    symbol: 'EURUSD',
    timeframe: '15min',
    action: 'open',
    side: 'long',
    price: 1.0851200000000001,
    stop_loss: 1.08312,
    take_profit: 1.08912,
    reason: 'signal',
    p_up: 0.6299999999999999,
    pnl: null,
    bar_time: new Date(BAR).toISOString(),
    created_at: new Date(BAR + 15 * 60_000 + 120).toISOString(),
    ...overrides,
  };
}

interface Row {
  deployment_id: string;
  id: string;
  model: string;
  symbol: string;
  timeframe: string;
  action: string;
  side: string;
  price: number;
  stop_loss: number | null;
  take_profit: number | null;
  reason: string;
  p_up: number | null;
  pnl: number | null;
  bar_time: number;
  created_at: number;
}

const rowsOf = (client: typeof store.client, deployment: string) =>
  selectRows<Row>(
    client,
    `SELECT deployment_id, id, model, symbol, timeframe, action, side, price, stop_loss, take_profit, reason, p_up, pnl,
            toUnixTimestamp64Milli(bar_time) AS bar_time, toUnixTimestamp64Milli(created_at) AS created_at
       FROM signals FINAL WHERE deployment_id = {dep:String} ORDER BY id`,
    { dep: deployment },
  );

describe('SignalsRepo', () => {
  it('stores every column of a signal exactly, in any script, with levels and P&L present or null', async () => {
    const repo = new SignalsRepo(store.client);
    const events = [
      signal('dep_cols', 0, { model: '7_EURUSD_15min_Импульс 動量 🚀', model_name: 'Импульс 動量 🚀' }),
      signal('dep_cols', 1, {
        action: 'close',
        side: 'short',
        stop_loss: null,
        take_profit: null,
        reason: 'SL',
        p_up: null,
        pnl: -12.340000000000002,
        model: `7_EURUSD_15min_${'x'.repeat(300)}`,
      }),
      signal('dep_cols', 2, { action: 'cancel', symbol: 'USDJPY', timeframe: '1h', price: 157.123, pnl: 0 }),
    ];
    await repo.insert(events);
    const rows = await rowsOf(store.client, 'dep_cols');
    assert.deepEqual(
      rows,
      events.map(({ model_name: _name, bar_time, created_at, ...rest }) => ({
        ...rest,
        bar_time: Date.parse(bar_time),
        created_at: Date.parse(created_at),
      })),
    );
  });

  it('stores a bar of thousands of signals, written one by one, every one once', async () => {
    const repo = new SignalsRepo(store.client);
    const events = Array.from({ length: 3_000 }, (_, n) => signal('dep_many', n, { price: 1.08 + n / 1e6 }));
    await Promise.all(events.map((e) => repo.insert([e])));
    // A repeat (a redelivered message) replaces its row rather than adding one.
    await repo.insert([events[5]!]);
    const rows = await rowsOf(store.client, 'dep_many');
    assert.equal(rows.length, 3_000);
    assert.deepEqual(new Set(rows.map((r) => r.id)), new Set(events.map((e) => e.id)));
    assert.equal(rows.find((r) => r.id === events[1234]!.id)!.price, events[1234]!.price);
  });
});
