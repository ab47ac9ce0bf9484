/** USD conversion, contract sizes and the distance each risk unit stands for. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contractSize, levelDistance, usdLeg, usdPnl } from '../../src/backtest/index.ts';
import { INSTRUMENTS } from '../../src/lib/instruments.ts';

const near = (a: number, b: number, eps = 1e-9) => assert.ok(Math.abs(a - b) <= eps, `${a} ≠ ${b}`);

test('contract size: 100,000 units a lot, BTCUSD 1', () => {
  assert.equal(contractSize(INSTRUMENTS.EURUSD), 100_000);
  assert.equal(contractSize(INSTRUMENTS.USDJPY), 100_000);
  assert.equal(contractSize(INSTRUMENTS.BTCUSD), 1);
});

test('USD leg: quote USD as is, base USD ÷ exit price, crosses refused', () => {
  for (const s of ['EURUSD', 'GBPUSD', 'AUDUSD', 'NZDUSD', 'BTCUSD'] as const) assert.equal(usdLeg(INSTRUMENTS[s]), 'quote');
  for (const s of ['USDJPY', 'USDCHF', 'USDCAD'] as const) assert.equal(usdLeg(INSTRUMENTS[s]), 'base');
  assert.throws(() => usdLeg({ ...INSTRUMENTS.EURUSD, base: 'EUR', quote: 'GBP' }), /neither currency is USD/);
});

test('usdPnl: units × move × side, ÷ exit for USD-based', () => {
  near(usdPnl('quote', 1, 100_000, 1.1, 1.105), 500, 1e-6);
  near(usdPnl('quote', -1, 100_000, 1.1, 1.105), -500, 1e-6);
  // USDCHF short 0.9000 → 0.8900: 100,000 × 0.0100 = 1,000 CHF ÷ 0.89 = 1,123.5955… USD
  near(usdPnl('base', -1, 100_000, 0.9, 0.89), 1000 / 0.89, 1e-6);
});

test('levelDistance: pips × pip size, pct × entry, usd solved exactly', () => {
  const eur = INSTRUMENTS.EURUSD;
  const jpy = INSTRUMENTS.USDJPY;
  near(levelDistance({ unit: 'pips', value: 12 }, 'stop', 1, 1.1, 100_000, eur, 'quote'), 0.0012);
  near(levelDistance({ unit: 'pips', value: 12 }, 'stop', 1, 150, 100_000, jpy, 'base'), 0.12);
  near(levelDistance({ unit: 'pct', value: 0.005 }, 'take', -1, 1.2, 100_000, eur, 'quote'), 0.006);
  // usd, USD-quoted: 30 USD over 50,000 units = 0.0006, either side, stop or take
  near(levelDistance({ unit: 'usd', value: 30 }, 'stop', -1, 1.1, 50_000, eur, 'quote'), 0.0006);
  // usd, USD-based: the P&L at entry ∓ d is exactly ∓V
  for (const side of [1, -1]) {
    for (const kind of ['stop', 'take'] as const) {
      const d = levelDistance({ unit: 'usd', value: 250 }, kind, side, 150, 100_000, jpy, 'base');
      const exit = 150 + (kind === 'take' ? side : -side) * d;
      near(usdPnl('base', side, 100_000, 150, exit), kind === 'take' ? 250 : -250, 1e-8);
    }
  }
  // a USD-based long can never earn as much as its units: unreachable take
  assert.equal(levelDistance({ unit: 'usd', value: 2000 }, 'take', 1, 150, 1000, jpy, 'base'), Infinity);
});
