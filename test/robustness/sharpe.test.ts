/**
 * PSR, the expected maximum Sharpe, DSR and MinTRL against the papers' worked example and an
 * independent implementation's reference values, and their edge cases.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SharpeSignificance } from '../../schemas/robustness.ts';
import {
  deflatedSharpe,
  expectedMaxSharpe,
  minTrackRecord,
  minTrackRecordLength,
  probabilisticSharpe,
  sharpeSignificance,
  sharpeVarianceFactor,
} from '../../src/robustness/index.ts';
import { seededRandom } from '../../src/lib/seeded-random.ts';

const close = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual}, expected ${expected} ± ${tolerance}`);

test('the DSR paper’s numerical example: T = 1250 days, N = 100, V = 1/2, SR 2.5, skew −3, kurtosis 10 → SR₀ ≈ 0.1132, DSR ≈ 0.9004', () => {
  // Bailey & López de Prado, "The Deflated Sharpe Ratio" (JPM 2014), section "A numerical
  // example": five years of daily returns (250 a year), annualised figures de-annualised by √250.
  const sample = { sharpe: 2.5 / Math.sqrt(250), observations: 1250, skewness: -3, kurtosis: 10 };
  // The expected maximum annualised: √(1/2)·((1 − γ)Φ⁻¹(0.99) + γΦ⁻¹(1 − 1/(100e))) ≈ 1.7894
  close(expectedMaxSharpe(100, 0.5), 1.7894, 1e-4, 'SR₀ annualised');
  const { expectedMaxSharpe: sr0, dsr } = deflatedSharpe(sample, 100, 0.5 / 250);
  close(sr0, 0.1132, 5e-5, 'SR₀ per day');
  close(dsr, 0.9004, 5e-5, 'DSR');
});

test('PSR and MinTRL agree with an independent implementation (mlfinlab’s tests: SR 1.14 vs 1, T 250, normal)', () => {
  // hudson-and-thames/mlfinlab, tests/test_backtest_statistics.py: PSR 0.95727, MinTRL 228.73497.
  const sample = { sharpe: 1.14, observations: 250, skewness: 0, kurtosis: 3 };
  close(probabilisticSharpe(sample, 1), 0.95727, 1e-4, 'PSR');
  close(minTrackRecordLength(sample, 1)!, 228.73497, 1e-4, 'MinTRL');
});

test('MinTRL is where PSR reaches the confidence: PSR over MinTRL observations = 0.95', () => {
  for (const [sharpe, skewness, kurtosis] of [
    [0.05, -1, 6],
    [0.2, 0.5, 3],
    [0.01, 0, 3],
  ] as const) {
    const bars = minTrackRecordLength({ sharpe, skewness, kurtosis })!;
    // PSR counts √(T − 1); MinTRL = 1 + …, so T = MinTRL gives exactly z = Φ⁻¹(0.95).
    close(probabilisticSharpe({ sharpe, observations: bars, skewness, kurtosis }), 0.95, 1e-9, `PSR at MinTRL (SR ${sharpe})`);
  }
});

test('N = 1: SR₀ = 0, so DSR = PSR', () => {
  assert.equal(expectedMaxSharpe(1, 0.3), 0);
  const sample = { sharpe: 0.03, observations: 2000, skewness: -0.4, kurtosis: 5 };
  const { dsr, expectedMaxSharpe: sr0 } = deflatedSharpe(sample, 1);
  assert.equal(sr0, 0);
  assert.equal(dsr, probabilisticSharpe(sample));
});

test('more trials raise SR₀ and lower DSR', () => {
  const sample = { sharpe: 0.05, observations: 3000, skewness: 0, kurtosis: 3 };
  let last = deflatedSharpe(sample, 1);
  for (const n of [2, 10, 100, 1000]) {
    const next = deflatedSharpe(sample, n);
    assert.ok(next.expectedMaxSharpe > last.expectedMaxSharpe && next.dsr < last.dsr, `N = ${n}`);
    last = next;
  }
});

test('unknown trial variance: the Sharpe estimator variance (1 − γ₃SR + (γ₄−1)/4·SR²)/(T − 1)', () => {
  const sample = { sharpe: 0.04, observations: 1001, skewness: -1, kurtosis: 7 };
  const { variance } = deflatedSharpe(sample, 20);
  close(variance, sharpeVarianceFactor(0.04, -1, 7) / 1000, 1e-18, 'variance');
  close(sharpeVarianceFactor(0.04, -1, 7), 1 + 0.04 + 1.5 * 0.0016, 1e-15, 'factor');
});

test('SR ≤ 0: MinTRL is null (never significant), in bars and in days', () => {
  assert.equal(minTrackRecordLength({ sharpe: 0, skewness: 0, kurtosis: 3 }), null);
  assert.equal(minTrackRecordLength({ sharpe: -0.1, skewness: 0, kurtosis: 3 }), null);
  assert.deepEqual(minTrackRecord({ sharpe: -0.1, skewness: 0, kurtosis: 3 }, 96), { bars: null, days: null });
});

test('MinTRL in days: bars over the bars per calendar day', () => {
  const sample = { sharpe: 0.02, skewness: -0.5, kurtosis: 6 };
  const { bars, days } = minTrackRecord(sample, (96 * 5) / 7);
  assert.equal(bars, minTrackRecordLength(sample));
  close(days!, bars! / ((96 * 5) / 7), 1e-9, 'days');
  assert.throws(() => minTrackRecord(sample, 0), /barsPerDay/);
});

test('sharpeSignificance: a schema-valid answer from bar returns; a constant series has Sharpe 0', () => {
  const random = seededRandom(7);
  const returns = Float64Array.from({ length: 5000 }, () => 0.0002 + (random() - 0.5) * 0.01);
  const s = sharpeSignificance(returns, { trials: 12, barsPerYear: 24_000 });
  assert.deepEqual(SharpeSignificance.parse(s), s);
  assert.equal(s.observations, 5000);
  close(s.sharpe_annualised, s.sharpe * Math.sqrt(24_000), 1e-12, 'annualised');
  close(s.p_value, 1 - s.dsr, 1e-15, 'p-value');
  assert.ok(s.expected_max_sharpe > 0 && s.dsr < s.psr);
  const flat = sharpeSignificance(new Float64Array(100), { trials: 3, barsPerYear: 100 });
  assert.deepEqual([flat.sharpe, flat.skewness, flat.kurtosis, flat.psr], [0, 0, 3, 0.5]);
  assert.ok(flat.dsr < 0.5, 'a flat record is below what 3 unskilled trials show');
});
