import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeIndicators, parseIndicatorsObject } from '../../src/indicators/index.ts';
import { columnJson, indicatorColumns } from '../../src/indicators/series-memo.ts';
import { BarSeries } from '../../src/market/bar-series.ts';
import type { BarMessage } from '../../schemas/market.ts';

const bar = (i: number, close = 1.1 + Math.sin(i / 17) * 0.01 + (i % 7) * 1e-5): BarMessage => ({
  symbol: 'EURUSD',
  timeframe: '1min',
  ts: 1.7e12 + i * 60_000,
  open: close - 1e-5,
  high: close + 3e-4,
  low: close - 3e-4,
  close,
  volume: 10,
  ticks: 10,
  spread: 1e-5,
  source: 'synthetic',
});

function seriesOf(n: number): BarSeries {
  const s = new BarSeries({
    ts: new Float64Array(0),
    open: new Float64Array(0),
    high: new Float64Array(0),
    low: new Float64Array(0),
    close: new Float64Array(0),
    volume: new Float64Array(0),
    spread: new Float64Array(0),
    ticks: new Uint32Array(0),
    source: new Uint8Array(0),
  });
  for (let i = 0; i < n; i++) s.upsert(bar(i));
  return s;
}

const LIST = parseIndicatorsObject({
  sma_enabled: true,
  ema_enabled: true,
  rsi_enabled: true,
  macd_enabled: true,
  atr_enabled: true,
  stoch_enabled: true,
});

function assertMatchesFull(series: BarSeries): void {
  const full = computeIndicators(series.columns(), LIST);
  const memo = indicatorColumns(series, LIST);
  for (const [name, expected] of Object.entries(full)) {
    const got = memo.get(name)!.values;
    for (let i = 0; i < series.length; i++) {
      if (Number.isNaN(expected[i]!)) assert.ok(Number.isNaN(got[i]!), `${name}[${i}] should be NaN`);
      else
        assert.ok(
          Math.abs(got[i]! - expected[i]!) <= 1e-9 * Math.max(1, Math.abs(expected[i]!)),
          `${name}[${i}]: ${got[i]} vs ${expected[i]}`,
        );
    }
  }
}

describe('indicator memo over a bar series', () => {
  it('equals a full-history computation, also after the series grows bar by bar', () => {
    const series = seriesOf(1500);
    assertMatchesFull(series);
    for (let i = 1500; i < 1530; i++) {
      series.upsert(bar(i));
      if (i % 7 === 0) assertMatchesFull(series);
    }
    assertMatchesFull(series);
  });

  it('starts over when an older bar changes', () => {
    const series = seriesOf(800);
    indicatorColumns(series, LIST);
    const version = series.version;
    series.upsert(bar(400, 1.5)); // a rebuilt bar in the middle
    assert.ok(series.version > version);
    assertMatchesFull(series);
  });

  it('serves rounded JSON text, null for warm-up rows', () => {
    const series = seriesOf(100);
    const sma = indicatorColumns(series, parseIndicatorsObject({ sma_enabled: true, sma_period: 20 })).get('sma_20')!;
    const values = JSON.parse(columnJson(sma, 0, 100)) as Array<number | null>;
    assert.equal(values.length, 100);
    assert.equal(values[18], null);
    assert.ok(Math.abs(values[19]! - sma.values[19]!) < 1e-10);
  });
});
