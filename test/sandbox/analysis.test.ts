/**
 * The analyze job on real EURUSD 1-minute bars: a clean strategy passes with the warm-up its
 * windows imply, and each broken one is reported by the right check, naming the right column.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { StrategyRuntime, type AnalysisCheck, type AnalysisResult } from '../../src/sandbox/runtime-pool.ts';
import type { OhlcColumns } from '../../src/lib/bar-columns.ts';
import { loadBars as resampledBars } from '../helpers/strategy-bars.ts';

const FX_FILE = '../shared/data/fx/histdata_m1/normalized/histdata_EURUSD_m1_2017-01_2017-09.csv.gz';

/** The first `rows` bars of the file, with their timestamps (ts_utc,bid_open,bid_high,bid_low,bid_close). */
function loadBars(rows: number): OhlcColumns {
  const lines = gunzipSync(readFileSync(FX_FILE))
    .toString('utf8')
    .split('\n', rows + 1);
  assert.equal(lines[0]!.trim(), 'ts_utc,bid_open,bid_high,bid_low,bid_close');
  const bars: OhlcColumns = {
    ts: new Float64Array(rows),
    open: new Float64Array(rows),
    high: new Float64Array(rows),
    low: new Float64Array(rows),
    close: new Float64Array(rows),
  };
  for (let r = 0; r < rows; r++) {
    const f = lines[r + 1]!.split(',');
    bars.ts[r] = Date.parse(f[0]!);
    bars.open[r] = Number(f[1]);
    bars.high[r] = Number(f[2]);
    bars.low[r] = Number(f[3]);
    bars.close[r] = Number(f[4]);
  }
  return bars;
}

/** SMA 20, RSI 14 (Wilder's smoothing as an EWM) and 1-bar returns: causal, bounded warm-up. */
const CLEAN_BODY = `
df['sma_20'] = close.rolling(20).mean()
delta = close.diff()
gain = delta.clip(lower=0).ewm(alpha=1 / 14, adjust=False, min_periods=14).mean()
loss = (-delta.clip(upper=0)).ewm(alpha=1 / 14, adjust=False, min_periods=14).mean()
df['rsi_14'] = 100 - 100 / (1 + gain / loss)
df['ret_1'] = close.pct_change()`;

/** A strategy: the clean features, then `extra`, then the contract's fill (unless `fill` is replaced). */
const strategy = (extra: string, fill = 'df = df.bfill().ffill()', base = CLEAN_BODY) =>
  `import numpy as np\nimport pandas as pd\n\ndef feature_engineering(df, close, open_, high, low):\n${`${base}\n${extra}\n${fill}\nreturn df`
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n\ndef strategy_config():\n    return {'model_type': 'RandomForestClassifier'}\n`;

/** Each broken strategy, the check that must report it and the column it must name (null: none). */
const BROKEN: Array<[string, string, AnalysisCheck, string | null]> = [
  ['dropping rows', strategy('', 'df = df.dropna()'), 'rows', null],
  ['overwriting close', strategy("df['close'] = close.rolling(3).mean()"), 'ohlc', 'close'],
  ['a string column', strategy("df['side'] = np.where(close > df['sma_20'], 'up', 'down')"), 'numeric', 'side'],
  ['a NaN left after the fill', strategy("df['gap'] = np.nan", "df = df.bfill().ffill()\ndf['gap'] = np.nan"), 'finite', 'gap'],
  ['an inf left after the fill', strategy("df['ratio'] = df['ret_1'] / 0.0"), 'finite', 'ratio'],
  ['a centred rolling window', strategy("df['cma_20'] = close.rolling(20, center=True).mean()"), 'lookahead', 'cma_20'],
  ['a whole-series z-score', strategy("df['z'] = (close - close.mean()) / close.std()"), 'lookahead', 'z'],
  ['global min-max scaling', strategy("df['mm'] = (close - close.min()) / (close.max() - close.min())"), 'lookahead', 'mm'],
  ['rank over the full series', strategy("df['rank'] = close.rank(pct=True)"), 'lookahead', 'rank'],
  ['a whole-series quantile flag', strategy("df['top'] = (close > close.quantile(0.9)).astype(float)"), 'lookahead', 'top'],
  ['an interior bfill leak', strategy("df['up_close'] = close.where(close > close.shift(1)).bfill()"), 'lookahead', 'up_close'],
  [
    'a sparse interior bfill leak (the contract fill)',
    strategy("df['calm'] = close.where(close.diff().abs() < 0.0005)"),
    'lookahead',
    'calm',
  ],
  ['an expanding mean', strategy("df['em'] = close.expanding().mean()"), 'warmup_unbounded', 'em'],
];

/** Bars the train job gets in the tests below: the analysis gets them all; the fit ends at FIT_ROWS (the rest is post-cutoff). */
const N = 6000;
const FIT_ROWS = 5000;
const CUTS = { fitRows: FIT_ROWS, trainSplit: 0.7, horizon: 3 };

/** Ways plain pandas reads the close 3 bars ahead without a literal negative shift (the static check's blind spot). */
const PEEKS: Array<[string, string]> = [
  ['a computed shift', 'fut = close.shift(3 - 6)'],
  ['.iloc arithmetic', 'fut = close.copy()\nfut.iloc[:len(close) - 3] = close.iloc[3:].to_numpy()\nfut.iloc[len(close) - 3:] = np.nan'],
  ['np.roll', 'fut = pd.Series(np.roll(close.to_numpy(), 3 - 6), index=close.index)'],
];

/** The red team's forged strategy: the clean features, and `peek` (the return 3 bars ahead) only when `when` holds. */
const forged = (peek: string, when: string) =>
  strategy(
    `fut = close.shift(1)\nif ${when}:\n${peek
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n')}\ndf['peek'] = fut / close - 1`,
  );

describe('StrategyRuntime.analyze (dynamic checks, look-ahead test, warm-up)', () => {
  let runtime: StrategyRuntime;
  let bars: OhlcColumns;

  before(async () => {
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 2 });
    bars = loadBars(N);
  });
  after(() => runtime.stop());

  it('passes a clean strategy, with the warm-up its EWM smoothing implies', async () => {
    const result = await runtime.analyze(strategy(''), bars);
    assert.deepEqual(result.problems, []);
    assert.deepEqual(result.featureColumns, ['sma_20', 'rsi_14', 'ret_1']);
    // Wilder's alpha 1/14 forgets the start as (13/14)^W: about 280 bars to reach 1e-9.
    assert.ok(result.warmup !== null && result.warmup >= 150 && result.warmup <= 600, `warmup ${result.warmup}`);
  });

  it('finds a 20-bar warm-up for an SMA 20 and 2 bars for returns', async () => {
    const sma = await runtime.analyze(strategy('', undefined, "df['sma_20'] = close.rolling(20).mean()"), bars);
    assert.deepEqual(sma.problems, []);
    assert.equal(sma.warmup, 20);
    const ret = await runtime.analyze(strategy('', undefined, "df['ret_1'] = close.pct_change()"), bars);
    assert.deepEqual(ret.problems, []);
    assert.equal(ret.warmup, 2);
  });

  for (const [name, code, check, column] of BROKEN) {
    it(`reports ${name} (${check}${column ? `: ${column}` : ''})`, async () => {
      const result: AnalysisResult = await runtime.analyze(code, bars);
      const found = result.problems.find((p) => p.check === check);
      assert.ok(found, `no ${check} problem in ${JSON.stringify(result.problems)}`);
      if (column) assert.deepEqual(found.columns, [column], found.message);
      // The clean columns are never blamed alongside the broken one.
      for (const p of result.problems) for (const c of ['sma_20', 'rsi_14', 'ret_1']) assert.ok(!p.columns.includes(c), p.message);
    });
  }

  // K = 1000: every length the old analysis used; FIT_ROWS: the trained span, all the old analysis saw;
  // N - 2: just below the full span; N - 1: only the full span reads ahead.
  for (const [how, peek] of PEEKS) {
    for (const k of [1000, FIT_ROWS, N - 2, N - 1]) {
      it(`refuses the forged backtest: ${how}, reading 3 bars ahead only when len(df) > ${k} (lookahead: peek)`, async () => {
        const result = await runtime.analyze(forged(peek, `len(df) > ${k}`), bars, {}, CUTS);
        const found = result.problems.find((p) => p.check === 'lookahead');
        assert.ok(found, `no lookahead problem in ${JSON.stringify(result.problems)}`);
        assert.deepEqual(found.columns, ['peek'], found.message);
        assert.match(found.message, /full history of 6000 bars/);
        assert.deepEqual(result.columnSha256, [], 'no digests for a refused strategy');
      });
    }
  }

  it('refuses a strategy that reads ahead only at the exact length the train job gets (len(df) == N)', async () => {
    const result = await runtime.analyze(forged(PEEKS[0]![1], `len(df) == ${N}`), bars, {}, CUTS);
    assert.deepEqual(result.problems.find((p) => p.check === 'lookahead')?.columns, ['peek'], JSON.stringify(result.problems));
  });

  it('refuses a strategy that keeps the bars of earlier calls and reads ahead from them (prefixes run shortest first, before the full run)', async () => {
    // State kept on the numpy module (plain code, no bypass): a truncated run after the full one
    // would find the future there; a prefix run before any longer one finds only its own past.
    const memory = strategy(
      "seen = getattr(np, 'seen_bars', None)\nseen = close.copy() if seen is None else pd.concat([seen, close])\n" +
        "seen = seen[~seen.index.duplicated(keep='last')].sort_index()\nnp.seen_bars = seen\ndf['peek'] = seen.shift(3 - 6).reindex(df.index) / close - 1",
    );
    const result = await runtime.analyze(memory, bars, {}, CUTS);
    assert.deepEqual(result.problems.find((p) => p.check === 'lookahead')?.columns, ['peek'], JSON.stringify(result.problems));
  });

  it('refuses a sparse look-ahead: 3 bars ahead on one row in 60 (minute 0), an honest 3-bar return on the others', async () => {
    // Only a cut (or a moved bar) within 3 bars after a leaking row shows it: the uniform cuts
    // mostly miss one row in 60; the moved-bar passes find it, a window confirms it.
    const sparse = strategy(
      "ahead = 0 - 3\ndf['peek'] = np.where(df.index.minute == 0, close.shift(ahead) / close - 1, close.pct_change(3))",
      undefined,
      "df['ret_1'] = close.pct_change()",
    );
    for (const seed of [1, 2, 3]) {
      const result = await runtime.analyze(sparse, bars, {}, { ...CUTS, seed });
      assert.deepEqual(
        result.problems.find((p) => p.check === 'lookahead')?.columns,
        ['peek'],
        `seed ${seed}: ${JSON.stringify(result.problems)}`,
      );
    }
  });

  it('refuses a sparse look-ahead replayed from bars kept in a module-level dict or on numpy (past the static check)', async () => {
    // The bars of every call are kept, the kept ones preferred: after a long run, a truncated or
    // moved run would read the true future from memory. The analysis puts both stores back
    // before every call, so each run is a first one.
    const keep = (store: string) =>
      strategy(
        `seen = ${store === 'dict' ? "CACHE.get('seen')" : "getattr(np, 'seen_bars', None)"}\nseen = close.copy() if seen is None else pd.concat([close, seen])\n` +
          `seen = seen[~seen.index.duplicated(keep='last')].sort_index()\n${store === 'dict' ? "CACHE['seen'] = seen" : 'np.seen_bars = seen'}\n` +
          "ahead = 0 - 3\ndf['peek'] = np.where(df.index.minute == 0, seen.shift(ahead).reindex(df.index) / close - 1, close.pct_change(3))",
        undefined,
        "df['ret_1'] = close.pct_change()",
      ).replace('import pandas as pd\n', 'import pandas as pd\n\nCACHE = {}\n');
    for (const store of ['dict', 'numpy']) {
      const result = await runtime.analyze(keep(store), bars, {}, { ...CUTS, seed: 1 });
      assert.deepEqual(
        result.problems.find((p) => p.check === 'lookahead')?.columns,
        ['peek'],
        `${store}: ${JSON.stringify(result.problems)}`,
      );
    }
  });

  it('refuses a column that appears only on long histories', async () => {
    const result = await runtime.analyze(strategy(`if len(df) > ${FIT_ROWS}:\n    df['late'] = close.pct_change(5)`), bars, {}, CUTS);
    assert.deepEqual(result.problems.find((p) => p.check === 'lookahead')?.columns, ['late'], JSON.stringify(result.problems));
  });

  it('still finds the look-ahead when the strategy rebinds numpy’s comparison (np.isclose)', async () => {
    const result = await runtime.analyze(
      strategy(
        "np.isclose = lambda a, b, **k: np.ones(np.broadcast(a, b).shape, dtype=bool)\ndf['z'] = (close - close.mean()) / close.std()",
      ),
      bars,
      {},
      CUTS,
    );
    assert.deepEqual(result.problems.find((p) => p.check === 'lookahead')?.columns, ['z'], JSON.stringify(result.problems));
  });

  it('passes honest long warm-ups on the train job’s bars: rolling 500 needs exactly 500 bars, EMA 200 about 1,400', async () => {
    const rolling = await runtime.analyze(strategy('', undefined, "df['sma_500'] = close.rolling(500).mean()"), bars, {}, CUTS);
    assert.deepEqual(rolling.problems, []);
    assert.equal(rolling.warmup, 500);
    // adjust=False from the first bar: the start is forgotten as (199/201)^W, below 1e-9 of the price after ~1,400 bars.
    const ema = await runtime.analyze(
      strategy('', undefined, "df['ema_200'] = close.ewm(span=200, adjust=False).mean()\ndf['sma_500'] = close.rolling(500).mean()"),
      bars,
      {},
      CUTS,
    );
    assert.deepEqual(ema.problems, []);
    assert.ok(ema.warmup !== null && ema.warmup >= 1000 && ema.warmup <= 2500, `warm-up ${ema.warmup}`);
    assert.equal(ema.columnSha256.length, 2);
  });

  for (const file of readdirSync(new URL('corpus/', import.meta.url))
    .filter((f) => f.startsWith('valid_'))
    .sort()) {
    it(`passes the honest corpus strategy ${file} on the train job’s bars`, async () => {
      const result = await runtime.analyze(readFileSync(new URL(`corpus/${file}`, import.meta.url), 'utf8'), bars, {}, CUTS);
      assert.deepEqual(result.problems, []);
      assert.ok(result.warmup !== null && result.warmup < FIT_ROWS / 2, `warm-up ${result.warmup}`);
      assert.equal(result.columnSha256.length, result.featureColumns.length);
    });
  }

  it('measures a level of the previous UTC day by its hungriest bar: no look-ahead, a whole day and more of warm-up', async () => {
    // GBPUSD 5-minute bars from 2017-01-02 to a Monday afternoon. The previous day's high, low and
    // close need, at a day's last bar, that day and the one before; windows ending early in a day
    // or holding the day's extremes by luck measured less, and a longer window then differed: it
    // was refused as look-ahead, and a live window of that warm-up would compute other levels.
    const five = resampledBars('GBPUSD', '5min', 3000);
    const level = (f: string) =>
      `pd.Series(pd.Series(${f}.to_numpy()).groupby(day).${f === 'close' ? 'last' : f === 'high' ? 'max' : 'min'}().shift(1).reindex(day).to_numpy(), index=df.index)`;
    const code = strategy(
      '',
      undefined,
      `day = np.asarray(df.index.view('int64')) // 86400000000000\ndf['pivot'] = (${level('high')} + ${level('low')} + ${level('close')}) / 3\ndf['pivot_dist'] = close / df['pivot'] - 1`,
    );
    const result = await runtime.analyze(code, five);
    assert.deepEqual(result.problems, []);
    assert.ok(result.warmup !== null && result.warmup >= 288, `warm-up ${result.warmup}: a full day is 288 five-minute bars`);
  });

  it('reports an expanding mean as having no warm-up', async () => {
    const result = await runtime.analyze(strategy("df['em'] = close.expanding().mean()"), bars);
    assert.equal(result.warmup, null);
  });

  it('analyzes ~25,000 bars (one year of 15-minute bars) — wall time printed, not asserted', async (t) => {
    const big = loadBars(25_000);
    const started = performance.now();
    const result = await runtime.analyze(strategy(''), big);
    const ms = performance.now() - started;
    t.diagnostic(`analyze on ${big.ts.length} bars: ${ms.toFixed(0)} ms (goal ≤ 1000 ms), warmup ${result.warmup}`);
    console.log(`analyze on ${big.ts.length} bars: ${ms.toFixed(0)} ms, warmup ${result.warmup}`);
    assert.deepEqual(result.problems, []);
  });
});
