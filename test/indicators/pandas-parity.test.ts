import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { IndicatorRequest } from '../../schemas/indicators.ts';
import {
  computeIndicators,
  featureColumns,
  pandasCode,
  parseIndicatorsObject,
  type NamedColumns,
  type Ohlc,
} from '../../src/indicators/index.ts';
import { loadFxBars } from './fx-data.ts';

/** Debian's interpreter carries python3-pandas; the python3 first on PATH may not. */
const PYTHON = process.env.PYTHON ?? '/usr/bin/python3';
const ROWS = 20_000;
const TOLERANCE = 1e-9;

const DEFAULTS = parseIndicatorsObject(
  Object.fromEntries(['sma', 'ema', 'wma', 'bb', 'rsi', 'macd', 'stoch', 'atr'].map((n) => [`${n}_enabled`, true])),
);
const OTHERS = parseIndicatorsObject({
  sma_period: 7,
  ema_period: 50,
  wma_period: 9,
  bb_period: 30,
  bb_std: 2.5,
  rsi_period: 7,
  macd_fast: 5,
  macd_slow: 35,
  macd_signal: 5,
  stoch_k_period: 5,
  stoch_d_period: 1,
  atr_period: 7,
});
const MORE = parseIndicatorsObject({
  sma_period: 200,
  ema_period: 3,
  bb_period: 5,
  bb_std: 0.5,
  rsi_period: 30,
  macd_fast: 3,
  macd_slow: 4,
  macd_signal: 2,
  stoch_k_period: 60,
  stoch_d_period: 10,
  atr_period: 2,
});

/**
 * Runs the generated snippet inside a real feature_engineering(df, close, open_, high, low) over the
 * bars (raw little-endian float64 in), returning every added column (raw float64 out).
 */
function runPandas(ohlc: Ohlc, list: readonly IndicatorRequest[], dir: string): NamedColumns {
  const names = featureColumns(list);
  const n = ohlc.close.length;
  const input = join(dir, 'ohlc.f64');
  const output = join(dir, 'features.f64');
  const all = new Float64Array(4 * n);
  ['open', 'high', 'low', 'close'].forEach((k, i) => all.set(ohlc[k as keyof Ohlc], i * n));
  writeFileSync(input, all);
  const body = pandasCode(list)
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
  const script = `
import json, sys
import numpy as np
import pandas as pd

def feature_engineering(df, close, open_, high, low):
${body}
    return df

n, names = ${n}, json.loads(${JSON.stringify(JSON.stringify(names))})
raw = np.fromfile(${JSON.stringify(input)}, dtype='<f8').reshape(4, n)
idx = pd.date_range('2017-01-02', periods=n, freq='min', tz='UTC')
df = pd.DataFrame({'open': raw[0], 'high': raw[1], 'low': raw[2], 'close': raw[3]}, index=idx)
out = feature_engineering(df, df['close'], df['open'], df['high'], df['low'])
assert list(out.columns) == ['open', 'high', 'low', 'close'] + names, list(out.columns)
np.ascontiguousarray(out[names].to_numpy(dtype='<f8').T).tofile(${JSON.stringify(output)})
`;
  const res = spawnSync(PYTHON, ['-c', script], { encoding: 'utf8' });
  assert.equal(res.status, 0, `python failed: ${res.stderr}`);
  const buf = readFileSync(output);
  const flat = new Float64Array(buf.buffer, buf.byteOffset, buf.byteLength / 8);
  assert.equal(flat.length, names.length * n);
  return Object.fromEntries(names.map((name, i) => [name, flat.slice(i * n, (i + 1) * n)]));
}

describe('TS indicators equal the pandas snippets on real EURUSD 1-minute bars', () => {
  let ohlc: Ohlc;
  let dir: string;
  before(() => {
    ohlc = loadFxBars(ROWS);
    dir = mkdtempSync(join(tmpdir(), 'sf-ind-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const cases: [string, IndicatorRequest[]][] = [
    ['defaults', DEFAULTS],
    ['non-default parameters', OTHERS],
    ['more parameters (long, short and fractional)', MORE],
  ];
  for (const [label, list] of cases) {
    it(`${label}: every column, NaN at the same bars, |TS − pandas| ≤ ${TOLERANCE}`, (t) => {
      const ts = computeIndicators(ohlc, list);
      const pd = runPandas(ohlc, list, dir);
      assert.deepEqual(Object.keys(pd), Object.keys(ts));
      const worst: string[] = [];
      for (const [name, a] of Object.entries(ts)) {
        const b = pd[name]!;
        let max = 0;
        let valid = 0;
        for (let i = 0; i < a.length; i++) {
          assert.equal(Number.isNaN(a[i]!), Number.isNaN(b[i]!), `${name}[${i}]: TS ${a[i]} vs pandas ${b[i]}`);
          if (Number.isNaN(a[i]!)) continue;
          valid++;
          max = Math.max(max, Math.abs(a[i]! - b[i]!));
        }
        assert.ok(valid > ROWS / 2, `${name}: ${valid} values`);
        assert.ok(max <= TOLERANCE, `${name}: max |TS − pandas| = ${max}`);
        worst.push(`${name} ${max.toExponential(1)}`);
      }
      t.diagnostic(worst.join(', '));
    });
  }
});
