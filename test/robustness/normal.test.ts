/** The standard normal CDF and quantile against reference values, and sample moments by hand. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { moments, normalCdf, normalQuantile } from '../../src/robustness/index.ts';

// Reference values: scipy.stats.norm.cdf / ppf (double precision).
const CDF: [number, number][] = [
  [0, 0.5],
  [0.5, 0.6914624612740131],
  [1, 0.8413447460685429],
  [-1.96, 0.024997895148220435],
  [2.326347874040841, 0.99],
  [3, 0.9986501019683699],
  [-5, 2.866515718791939e-7],
  [-8, 6.22096057427178e-16],
  [-40, 0],
  [40, 1],
];

test('Φ matches reference values to 1e-12 absolute, and the far tail to 1e-9 relative', () => {
  for (const [x, p] of CDF) {
    assert.ok(Math.abs(normalCdf(x) - p) < 1e-12, `Φ(${x}) = ${normalCdf(x)}, expected ${p}`);
    if (p > 0 && p < 1e-6) assert.ok(Math.abs(normalCdf(x) / p - 1) < 1e-9, `Φ(${x}) relative error`);
  }
  for (let x = -6; x <= 6; x += 0.37) assert.ok(Math.abs(normalCdf(x) + normalCdf(-x) - 1) < 1e-15, `Φ(${x}) + Φ(−${x}) = 1`);
});

const QUANTILE: [number, number][] = [
  [0.5, 0],
  [0.95, 1.6448536269514722],
  [0.975, 1.959963984540054],
  [0.99, 2.3263478740408408],
  [0.01, -2.3263478740408408],
  [0.001, -3.090232306167813],
  [1e-10, -6.361340902404056],
];

test('Φ⁻¹ matches reference values to 1e-9 and inverts Φ across (0, 1)', () => {
  for (const [p, x] of QUANTILE) assert.ok(Math.abs(normalQuantile(p) - x) < 1e-9, `Φ⁻¹(${p}) = ${normalQuantile(p)}, expected ${x}`);
  for (const p of [1e-12, 1e-6, 0.0242, 0.02425, 0.0243, 0.2, 0.5, 0.77, 0.97575, 0.999999]) {
    const x = normalQuantile(p);
    assert.ok(Math.abs(normalCdf(x) - p) < 1e-9 * Math.max(p, 1e-3), `Φ(Φ⁻¹(${p})) = ${normalCdf(x)}`);
  }
  assert.equal(normalQuantile(0), -Infinity);
  assert.equal(normalQuantile(1), Infinity);
  assert.throws(() => normalQuantile(1.5), /p must be in \[0, 1\]/);
});

test('moments by hand: mean, sample sd, skewness m3/m2^1.5, Pearson kurtosis m4/m2²', () => {
  // 1, 2, 3, 10: mean 4; deviations −3, −2, −1, 6; Σd² 50, Σd³ 180, Σd⁴ 1394
  const m = moments([1, 2, 3, 10]);
  assert.equal(m.n, 4);
  assert.equal(m.mean, 4);
  assert.ok(Math.abs(m.sd - Math.sqrt(50 / 3)) < 1e-12);
  assert.ok(Math.abs(m.skewness - 180 / 4 / (50 / 4) ** 1.5) < 1e-12);
  assert.ok(Math.abs(m.kurtosis - 1394 / 4 / (50 / 4) ** 2) < 1e-12);
  // symmetric two-point: skew 0, kurtosis 1
  const two = moments([-1, 1, -1, 1]);
  assert.deepEqual([two.skewness, two.kurtosis], [0, 1]);
});

test('moments of no spread: sd 0, skewness 0, kurtosis 3 (no evidence against normality)', () => {
  assert.deepEqual(moments([0.5, 0.5, 0.5]), { n: 3, mean: 0.5, sd: 0, skewness: 0, kurtosis: 3 });
  assert.deepEqual(moments([]), { n: 0, mean: 0, sd: 0, skewness: 0, kurtosis: 3 });
});
