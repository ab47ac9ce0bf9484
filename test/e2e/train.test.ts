/**
 * POST /train → GET /train/{id} → /models, /results, /predict, /signals, DELETE /models over real
 * HTTP, with the real trainer (JetStream work queue, sandboxed Python, ONNX, position engine).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { codeHeader } from '../../src/sandbox/code-header.ts';
import type { TradeStats } from '../../schemas/backtest.ts';
import { Results, PredictResponse, ModelList, TrainStart, type JobView } from '../../schemas/training.ts';
import { RobustnessReport } from '../../schemas/robustness.ts';
import { ActivityList } from '../../schemas/activity.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { lastTwoTradingDays, waitForJob } from '../helpers/training.ts';

// Four days of synthetic history: ~4,000 one-minute bars whatever the weekday the suite runs on.
const ENV = { HISTORY_DAYS: '4' };

/**
 * TradeStats summed here from the trades, field by field as schemas/backtest.ts defines them
 * (not with tradeStats, the function that produced the served ones).
 */
function summed(trades: readonly { pnl: number }[], capital: number): TradeStats {
  const pnl = trades.map((t) => t.pnl);
  const n = pnl.length;
  if (n === 0) return { n: 0, wins: 0, losses: 0, wr: 0, ret: 0, pf: 0, rr: 0, expect: 0, mdd: 0, np: 0, avg: 0, best: 0, worst: 0 };
  const winners = pnl.filter((p) => p > 0);
  const losers = pnl.filter((p) => p < 0);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const np = sum(pnl);
  const noLoss = winners.length > 0 ? 999 : 0;
  // Closed-trade equity E_k = capital + the first k P&Ls; drawdown (E_k − max E_0..E_k) / capital.
  const equity = pnl.map((_, k) => capital + sum(pnl.slice(0, k + 1)));
  const mdd = Math.min(0, ...equity.map((e, k) => (e - Math.max(capital, ...equity.slice(0, k + 1))) / capital));
  return {
    n,
    wins: winners.length,
    losses: losers.length,
    wr: winners.length / n,
    ret: np / capital,
    pf: losers.length ? sum(winners) / -sum(losers) : noLoss,
    rr: losers.length ? (winners.length ? sum(winners) / winners.length : 0) / (-sum(losers) / losers.length) : noLoss,
    expect: np / n,
    mdd,
    np,
    avg: np / n / capital,
    best: Math.max(...pnl) / capital,
    worst: Math.min(...pnl) / capital,
  };
}

/** Every field equal, up to the rounding of summing in another order. */
function assertStats(actual: TradeStats, expected: TradeStats, what: string): void {
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), what);
  for (const [field, value] of Object.entries(expected) as [keyof TradeStats, number][]) {
    assert.ok(
      Math.abs(actual[field] - value) <= 1e-9 * Math.max(1, Math.abs(value)),
      `${what} ${field}: served ${actual[field]}, summed ${value}`,
    );
  }
}

describe('training over HTTP', () => {
  let sf: TestService;
  let key: string;
  let userId: number;
  let other: string;
  let stem: string;
  let trained: JobView;
  /** The last trading day in the history (the post-cutoff) and the one before it (end_date). */
  let lastDay: string;
  let endDay: string;

  before(async () => {
    sf = await startTestService(ENV);
    const a = await sf.mintKey('trader_one');
    key = a.api_key;
    userId = a.user_id;
    other = (await sf.mintKey('trader_two')).api_key;
    [endDay, lastDay] = await lastTwoTradingDays(sf, key);
  });
  after(() => sf.stop());

  it('POST /train answers at once with a queued job, then the job runs to done with its stats', async () => {
    const res = await sf.api('POST', '/api/v1/train', {
      key,
      body: {
        code: strategyCode(),
        symbol: 'EURUSD',
        timeframe: '1min',
        end_date: endDay,
        commission: 3.5,
        swap_long: -6,
        swap_short: 1.5,
      },
    });
    assert.equal(res.status, 200, res.text);
    const start = TrainStart.parse(res.body);
    assert.equal(start.status, 'queued');
    assert.equal(start.model_name, 'Model 1');
    assert.equal(start.model_stem, `${userId}_EURUSD_1min_Model 1`);
    assert.deepEqual(start.market, { symbol: 'EURUSD', timeframe: '1min', symbol_from: 'request', timeframe_from: 'request' });
    stem = start.model_stem;

    const job = await waitForJob(sf, key, start.job_id);
    assert.equal(job.status, 'done', job.error);
    for (const s of [job.train_stats, job.test_stats, job.long_stats, job.short_stats]) assert.ok(s);
    assert.ok(job.test_stats!.n > 0, 'an always-in-the-market strategy trades on the test span');
    assert.equal(job.long_stats!.n + job.short_stats!.n, job.test_stats!.n);
    assert.ok(job.started_at && job.finished_at && job.finished_at >= job.started_at);
    const report = RobustnessReport.parse(job.robustness);
    assert.equal(report.walk_forward?.k, 5, 'the default five walk-forward folds');
    trained = job;
  });

  it('results: metrics agree with the trade log, costs are charged, nothing enters before its signal', async () => {
    const res = await sf.api('GET', `/api/v1/results/${encodeURIComponent(stem)}`, { key });
    assert.equal(res.status, 200, res.text);
    const r = Results.parse(res.body);
    assert.equal(r.model, stem);
    assert.equal(r.source, 'synthetic');
    assert.deepEqual(RobustnessReport.parse(r.robustness), trained.robustness, 'the report the job showed when done');
    const test = r.trade_log.filter((t) => t.period === 'test');
    const train = r.trade_log.filter((t) => t.period === 'train');
    assert.ok(test.length > 0 && train.length > 0);
    assertStats(r.metrics.test, summed(test, r.settings.capital), 'test');
    assertStats(r.metrics.train, summed(train, r.settings.capital), 'train');
    assertStats(
      r.metrics.long,
      summed(
        test.filter((t) => t.side === 'long'),
        r.settings.capital,
      ),
      'long',
    );
    assertStats(
      r.metrics.short,
      summed(
        test.filter((t) => t.side === 'short'),
        r.settings.capital,
      ),
      'short',
    );

    // Every post-cutoff trade (the span whose signals the results list) enters at the open of the
    // bar after a signal of its side: never on the signal's own bar, never without one.
    assert.ok(r.pred_trade_log.length > 0, 'trades after the cutoff');
    assertStats(r.pred_stats!, summed(r.pred_trade_log, r.settings.capital), 'post-cutoff');
    const candles = (await sf.api('GET', `/api/v1/ohlc?symbol=EURUSD&timeframe=1min&start=${endDay}&limit=5000`, { key })).body.candles as {
      timestamp: string;
    }[];
    const bars = candles.map((c) => Date.parse(c.timestamp));
    const signalAt = new Map(r.pred_signals.map((x) => [Date.parse(x.time), x.signal]));
    for (const t of r.pred_trade_log) {
      const entry = bars.indexOf(Date.parse(t.entry_time));
      assert.ok(entry > 0, `the entry bar ${t.entry_time} is a bar with one before it`);
      const signalBar = bars[entry - 1]!;
      assert.equal(
        signalAt.get(signalBar),
        t.side === 'long' ? 1 : -1,
        `${t.side} entry at ${t.entry_time}: the bar before (${new Date(signalBar).toISOString()}) signalled it`,
      );
    }
    for (const t of r.trade_log) {
      assert.ok(Math.abs(t.commission - 3.5 * t.lots * 2) < 1e-9, 'commission per lot per side');
      assert.ok(Math.abs(t.pnl - (t.gross_pnl - t.commission + t.swap)) < 1e-6);
      assert.ok(t.exit_time >= t.entry_time);
    }
    // Train trades live in the train span, test trades in the test span (after the purge gap).
    assert.ok(train.every((t) => t.entry_time >= r.spans.train.from && t.exit_time <= r.spans.train.to));
    assert.ok(test.every((t) => t.entry_time > r.spans.test.from && t.exit_time <= r.spans.test.to));
    assert.ok(r.spans.train.to < r.spans.test.from);
    // Equity ends where the test trades' P&L says.
    const last = r.equity_curve.at(-1)!;
    const np = test.reduce((s, t) => s + t.pnl, 0);
    assert.ok(Math.abs(last.equity - (r.settings.capital + np)) < 1e-6, `${last.equity} vs ${r.settings.capital + np}`);
    assert.equal(r.equity_curve.length, r.drawdown.length);
    assert.ok(r.drawdown.every((d) => d.drawdown <= 0));
    const cm = r.confusion_matrix.matrix.flat().reduce((a, b) => a + b, 0);
    assert.ok(cm > 0 && cm <= r.spans.test.bars);
    assert.deepEqual(r.feature_importance.map((f) => f.feature).sort(), [...r.features].sort());
    assert.ok(r.warmup >= 20, `warm-up covers the 20-bar windows (got ${r.warmup})`);
    assert.equal(r.settings.commission, 3.5);
    assert.equal(r.settings.confidence_threshold, 0.5);
  });

  it('a model is reachable by stem or display name, never by another user', async () => {
    const list = ModelList.parse((await sf.api('GET', '/api/v1/models', { key })).body);
    assert.equal(list.count, 1);
    assert.equal(list.models[0]!.name, stem);
    const byName = await sf.api('GET', '/api/v1/results/Model%201', { key });
    assert.equal(byName.status, 200);
    assert.equal(byName.body.model, stem);

    const code = await sf.api('GET', '/api/v1/models/Model%201/code', { key });
    assert.equal(code.status, 200, code.text);
    assert.deepEqual(code.body, { model: stem, model_name: 'Model 1', code: strategyCode() }, 'the code it was trained from, as sent');

    assert.equal((await sf.api('GET', `/api/v1/results/${encodeURIComponent(stem)}`, { key: other })).status, 404);
    assert.equal(
      (await sf.api('GET', `/api/v1/models/${encodeURIComponent(stem)}/code`, { key: other })).status,
      404,
      'nobody else reads the code',
    );
    assert.equal((await sf.api('GET', `/api/v1/models/${encodeURIComponent(stem)}/code`)).status, 401);
    assert.equal((await sf.api('GET', '/api/v1/train/1', { key: other })).status, 404);
    assert.equal((await sf.api('DELETE', `/api/v1/models/${encodeURIComponent(stem)}`, { key: other })).status, 404);
    assert.equal((await sf.api('POST', '/api/v1/predict', { key: other, body: { model_name: stem } })).status, 404);
    assert.equal((await sf.api('GET', `/api/v1/signals/${encodeURIComponent(stem)}`, { key: other })).status, 404);
    assert.equal(ModelList.parse((await sf.api('GET', '/api/v1/models', { key: other })).body).count, 0);
  });

  it("POST /predict over the post-cutoff bars gives the results' pred_signals and pred_trade_log", async () => {
    const results = Results.parse((await sf.api('GET', `/api/v1/results/${encodeURIComponent(stem)}`, { key })).body);
    const post = results.spans.post_cutoff;
    assert.ok(post && post.from.startsWith(lastDay), `post-cutoff starts on ${lastDay}`);
    assert.ok(results.pred_signals.length > 0);
    assertStats(results.pred_stats!, summed(results.pred_trade_log, 10_000), 'post-cutoff');

    const res = await sf.api('POST', '/api/v1/predict', { key, body: { model_name: 'Model 1', start_date: lastDay } });
    assert.equal(res.status, 200, res.text);
    const p = PredictResponse.parse(res.body);
    assert.equal(p.start, post.from);
    assert.equal(p.n_signals, p.signals.length);
    assert.ok(Math.abs(p.pnl - p.trades.reduce((s, t) => s + t.pnl, 0)) < 1e-6);
    assertStats(p.stats, summed(p.trades, 10_000), 'predict');
    // Same bars, same model, same engine: identical signals and trades over the post-cutoff span
    // (the live feed may have added bars since; a trade still open at the span end differs).
    const within = <T extends { time: string }>(xs: T[]) => xs.filter((x) => x.time <= post.to);
    assert.deepEqual(
      within(p.signals).map((x) => [x.time, x.signal]),
      within(results.pred_signals).map((x) => [x.time, x.signal]),
    );
    const closed = (ts: typeof p.trades) => ts.filter((t) => t.exit_reason !== 'end' && t.exit_time <= post.to);
    assert.deepEqual(closed(p.trades), closed(results.pred_trade_log));

    const signals = await sf.api('GET', '/api/v1/signals/Model%201', { key });
    assert.equal(signals.status, 200);
    assert.equal(signals.body.count, p.n_signals);
  });

  it('training emits TRAINED and BACKTEST_DONE without code', async () => {
    const res = await sf.api('GET', '/api/v1/activity?limit=50');
    const events = ActivityList.parse(res.body).events.filter((e) => e.model?.stem === stem);
    assert.deepEqual(events.map((e) => e.kind).sort(), ['BACKTEST_DONE', 'TRAINED']);
    assert.ok(events.every((e) => e.bot === 'trader_one'));
    assert.ok(!res.text.includes('feature_engineering'));
  });

  it('refuses bad code with every violation, a symbol the code was not written for, and too few bars', async () => {
    const bad = await sf.api('POST', '/api/v1/train', {
      key,
      body: { code: strategyCode().replace('import numpy as np', 'import numpy as np\nimport os\nimport xgboost'), timeframe: '1min' },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 400);
    assert.ok(bad.body.violations.length >= 2, bad.text);
    assert.ok(bad.body.violations.every((v: { line: number; hint: string }) => v.line > 0 && v.hint.length > 0));

    const wrongSymbol = await sf.api('POST', '/api/v1/train', {
      key,
      body: { code: strategyCode({ header: codeHeader('GBPUSD', '1min') }), symbol: 'EURUSD', timeframe: '1min' },
    });
    assert.equal(wrongSymbol.status, 400);
    assert.match(
      wrongSymbol.body.error,
      /symbol EURUSD does not match the code, which was generated for GBPUSD: train it on GBPUSD \(or leave symbol out/,
    );

    const few = await sf.api('POST', '/api/v1/train', { key, body: { code: strategyCode(), timeframe: '1h' } });
    assert.equal(few.status, 400);
    assert.match(few.body.error, /at least 300/);

    const money = await sf.api('POST', '/api/v1/train', { key, body: { code: strategyCode(), capital: -5 } });
    assert.equal(money.status, 400);
    assert.match(money.body.error, /capital/);
  });

  it('a strategy that fails at run time fails its job with the reason', async () => {
    const code = strategyCode().replace(
      'df["range"] = (high - low) / close',
      'df["range"] = (high - low) / close\n    df["leak"] = close.rolling(9, center=True).mean()',
    );
    const start = await sf.api('POST', '/api/v1/train', {
      key,
      body: { code: code.replace('center=True', 'center=bool(1)'), timeframe: '1min', model_name: 'leaky' },
    });
    assert.equal(start.status, 200, start.text);
    // Neither the body nor the code (no header line) names a symbol: the default.
    assert.deepEqual(start.body.market, { symbol: 'EURUSD', timeframe: '1min', symbol_from: 'default', timeframe_from: 'request' });
    const job = await waitForJob(sf, key, start.body.job_id);
    assert.equal(job.status, 'failed');
    assert.match(job.error!, /leak/);
    assert.equal((await sf.api('GET', '/api/v1/results/leaky', { key })).status, 404, 'a failed job leaves no model');
  });

  it('the red team’s forged backtest (3 bars ahead only when the bars reach past end_date) fails its job as look-ahead', async () => {
    // Plain pandas past the static check (no literal negative shift). The peek is on only when the
    // bars end after end_date: in the train job, which also scores the post-cutoff day. The
    // analysis used to see the trained span alone, and never saw it.
    const peek = [
      'fut = close.shift(1)',
      `if df.index[-1] >= pd.Timestamp("${lastDay}", tz="UTC"):`,
      '        ahead = 0 - len(close.iloc[:3])',
      '        fut = close.shift(ahead)',
      'df["peek"] = fut / close - 1',
    ].join('\n    ');
    const start = await sf.api('POST', '/api/v1/train', {
      key,
      body: { code: strategyCode({ prelude: peek }), timeframe: '1min', end_date: endDay, model_name: 'forged' },
    });
    assert.equal(start.status, 200, start.text);
    const job = await waitForJob(sf, key, start.body.job_id);
    assert.equal(job.status, 'failed');
    assert.match(
      job.error!,
      /features on a truncated history differ from the same rows on the full history of \d+ bars, so they use future bars.*\(columns: peek\)/,
    );
    assert.equal((await sf.api('GET', '/api/v1/results/forged', { key })).status, 404, 'no model, no backtest to share');
  });

  it('a body that names no market trains on the code header’s, and says so; one that names the same symbol is the request’s', async () => {
    const code = strategyCode({ header: codeHeader('GBPUSD', '5min') });
    const fromHeader = await sf.api('POST', '/api/v1/train', { key: other, body: { code, model_name: 'from header' } });
    assert.equal(fromHeader.status, 200, fromHeader.text);
    const a = TrainStart.parse(fromHeader.body);
    assert.deepEqual(a.market, { symbol: 'GBPUSD', timeframe: '5min', symbol_from: 'code header', timeframe_from: 'code header' });
    assert.match(a.model_stem, /_GBPUSD_5min_from header$/);
    const agreed = await sf.api('POST', '/api/v1/train', { key: other, body: { code, symbol: 'GBPUSD', model_name: 'agreed' } });
    assert.equal(agreed.status, 200, agreed.text);
    const b = TrainStart.parse(agreed.body);
    assert.deepEqual(b.market, { symbol: 'GBPUSD', timeframe: '5min', symbol_from: 'request', timeframe_from: 'code header' });
    for (const start of [a, b]) {
      const job = await waitForJob(sf, other, start.job_id);
      assert.equal(job.status, 'done', job.error);
      assert.deepEqual([job.symbol, job.timeframe], ['GBPUSD', '5min'], 'the job trained on the header’s market');
    }
  });

  it('the daily training-compute cap answers 429 with Retry-After', async () => {
    const capped = await sf.mintKey('capped_user');
    for (let i = 0; i < 100; i++) await sf.service.domain.accounts.metering.useCap(capped.user_id, 'free', 'train_compute');
    const res = await sf.api('POST', '/api/v1/train', { key: capped.api_key, body: { code: strategyCode(), timeframe: '1min' } });
    assert.equal(res.status, 429);
    assert.ok(Number(res.headers.get('retry-after')) > 0);
  });

  it('models and jobs survive a restart; DELETE removes the model and its files', async () => {
    await sf.restart();
    const list = ModelList.parse((await sf.api('GET', '/api/v1/models', { key })).body);
    assert.equal(list.count, 1);
    assert.equal((await sf.api('GET', '/api/v1/train/1', { key })).body.status, 'done');

    const del = await sf.api('DELETE', '/api/v1/models/Model%201', { key });
    assert.equal(del.status, 200, del.text);
    assert.deepEqual(del.body, { deleted: true, model: stem, undeployed: false });
    assert.equal((await sf.api('GET', '/api/v1/models', { key })).body.count, 0);
    assert.equal((await sf.api('GET', `/api/v1/results/${encodeURIComponent(stem)}`, { key })).status, 404);
    assert.equal((await sf.api('DELETE', '/api/v1/models/Model%201', { key })).status, 404);
  });
});
