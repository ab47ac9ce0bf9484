/**
 * The ranking figures as the leaderboard documents them: per-trade Sharpe, composite, the
 * minimum trades of ratio metrics, the order and its tie-break, and which key a request ranks by.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { composite, metricValue, rankingKey, sampleSd, sharpe } from '../../src/community/index.ts';
import { liveRecord, statsOf } from './fixtures.ts';

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} ≈ ${b}`);

describe('ranking figures', () => {
  it('sample standard deviation divides by n − 1, and is 0 below two trades', () => {
    // mean 0.02; squares 0.0001 + 0 + 0.0001 = 0.0002; / 2 = 0.0001; √ = 0.01
    close(sampleSd([0.01, 0.02, 0.03]), 0.01);
    assert.equal(sampleSd([0.05]), 0);
    assert.equal(sampleSd([]), 0);
  });

  it('sharpe = mean per-trade return / sample sd; 0 with under two trades or no dispersion', () => {
    close(sharpe({ n: 3, avg: 0.02 }, 0.01), 2);
    close(sharpe({ n: 4, avg: -0.01 }, 0.02), -0.5);
    assert.equal(sharpe({ n: 1, avg: 0.5 }, 0), 0);
    assert.equal(sharpe({ n: 5, avg: 0.01 }, 0), 0);
    assert.equal(sharpe({ n: 5, avg: 0.01 }, undefined), 0);
    // Ten identical returns: the computed sd is rounding noise, not dispersion.
    const flat = Array(10).fill(0.002);
    assert.ok(sampleSd(flat) < 1e-15);
    assert.equal(sharpe({ n: 10, avg: 0.002 }, sampleSd(flat)), 0);
  });

  it('composite = sharpe × √min(n, 100) / (1 + 10 × |mdd|)', () => {
    close(composite({ n: 16, mdd: -0.05 }, 0.5), (0.5 * 4) / 1.5);
    close(composite({ n: 400, mdd: 0 }, 0.3), 0.3 * 10);
    close(composite({ n: 25, mdd: -0.1 }, -0.2), (-0.2 * 5) / 2);
  });

  it('ratio metrics qualify from 10 test trades; ret, n_trades and forks always', () => {
    const nine = { test: statsOf(Array(9).fill(0.01)), sharpe: 1, composite: 2 };
    const ten = { test: statsOf(Array(10).fill(0.01)), sharpe: 1, composite: 2 };
    for (const metric of ['wr', 'pf', 'sharpe', 'composite'] as const) {
      assert.equal(metricValue(metric, nine, 0, undefined).qualified, false, metric);
      assert.equal(metricValue(metric, ten, 0, undefined).qualified, true, metric);
    }
    for (const metric of ['ret', 'n_trades', 'forks'] as const)
      assert.equal(metricValue(metric, nine, 0, undefined).qualified, true, metric);
    assert.deepEqual(metricValue('pf', ten, 0, undefined), { value: 999, qualified: true });
    assert.deepEqual(metricValue('forks', ten, 7, undefined), { value: 7, qualified: true });
    assert.deepEqual(metricValue('n_trades', nine, 0, undefined), { value: 9, qualified: true });
  });

  it('live metrics: null until a bar is scored; live_wr and live_pf qualify from 5 live trades', () => {
    const entry = { test: statsOf([0.01, 0.02]), sharpe: 0, composite: 0 };
    assert.deepEqual(metricValue('live_ret', entry, 0, undefined), { value: null, qualified: false });
    assert.deepEqual(metricValue('live_ret', entry, 0, liveRecord([], 0)), { value: null, qualified: false });
    const four = liveRecord([0.01, -0.005, 0.01, 0.01]);
    const five = liveRecord([0.01, -0.005, 0.01, 0.01, 0.01]);
    assert.equal(metricValue('live_pf', entry, 0, four).qualified, false);
    assert.equal(metricValue('live_pf', entry, 0, five).qualified, true);
    close(metricValue('live_pf', entry, 0, five).value!, 0.04 / 0.005);
    close(metricValue('live_wr', entry, 0, five).value!, 0.8);
    assert.equal(metricValue('live_ret', entry, 0, liveRecord([])).qualified, true, 'tracked with no trade yet: ranked at 0');
  });

  it('ranks by metric when both are given, by sort alone, and by pf with neither', () => {
    assert.equal(rankingKey({ sort: 'wr', metric: 'sharpe' }), 'sharpe');
    assert.equal(rankingKey({ sort: 'ret' }), 'ret');
    assert.equal(rankingKey({ metric: 'forks' }), 'forks');
    assert.equal(rankingKey({}), 'pf');
  });
});
