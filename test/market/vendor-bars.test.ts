/**
 * Our bars against the vendors' own: the real OANDA and FXCM tick files (EURUSD, NZDUSD,
 * 2014-05-01 … 09) go through the product's importer and StreamingResampler, and the 1-minute
 * bars must equal the vendor's published M1 bid bars; the same rule at 1 second must equal the
 * vendor's S1 bars. The data README says both agree exactly; so must we. We also check our
 * `spread` (ask − bid of the opening tick) against the vendor's ask_open − bid_open.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { BarMessage, Tick } from '../../schemas/market.ts';
import { importTickFile } from '../../src/market/import/index.ts';
import { StreamingResampler } from '../../src/market/resampler.ts';
import { VENDOR_TICK_CASES } from '../helpers/vendor-ticks.ts';

const DATA = '../shared/data/fx/lean_quotes_2014-05-01_09';

/** A bar reduced to what the vendor files have: bid OHLC and the opening spread. */
interface VendorBar {
  ts: number;
  open: number;
  high: number;
  low: number;
  close: number;
  spread: number;
}

/** Data rows of a file, from the data set's MANIFEST.tsv. */
function manifestRows(file: string): number {
  const row = readFileSync(`${DATA}/MANIFEST.tsv`, 'utf8')
    .split('\n')
    .map((l) => l.split('\t'))
    .find((c) => c[0] === `normalized/${file}`);
  assert.ok(row, `${file} in the manifest`);
  return Number(row[3]);
}

/** A vendor bar file: `ts_utc,bid_open,bid_high,bid_low,bid_close,ask_open,ask_high,ask_low,ask_close`. */
function readVendorBars(file: string): VendorBar[] {
  const lines = gunzipSync(readFileSync(`${DATA}/normalized/${file}`))
    .toString('utf8')
    .split('\n');
  assert.equal(lines[0], 'ts_utc,bid_open,bid_high,bid_low,bid_close,ask_open,ask_high,ask_low,ask_close');
  const bars: VendorBar[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    const [ts, bo, bh, bl, bc, ao] = line.split(',');
    bars.push({
      ts: Date.parse(ts!),
      open: Number(bo),
      high: Number(bh),
      low: Number(bl),
      close: Number(bc),
      spread: Number(ao) - Number(bo),
    });
  }
  assert.equal(bars.length, manifestRows(file));
  return bars;
}

/**
 * The resampler's rule at a width the product has no timeframe for (1 s): bid price, stamped at
 * the interval start, open/close = first/last tick in arrival order, high/low = extremes,
 * spread = ask − bid of the opening tick; an interval without ticks has no bar.
 */
function aggregate(ticks: readonly Tick[], widthMs: number): VendorBar[] {
  const bars: VendorBar[] = [];
  let bar: VendorBar | undefined;
  for (const t of ticks) {
    const ts = Math.floor(t.ts / widthMs) * widthMs;
    if (bar && bar.ts === ts) {
      if (t.bid > bar.high) bar.high = t.bid;
      if (t.bid < bar.low) bar.low = t.bid;
      bar.close = t.bid;
    } else {
      bar = { ts, open: t.bid, high: t.bid, low: t.bid, close: t.bid, spread: t.ask - t.bid };
      bars.push(bar);
    }
  }
  return bars;
}

interface Agreement {
  ours: number;
  theirs: number;
  /** Bars at the same timestamp in both. */
  common: number;
  /** Of those, with identical open, high, low and close. */
  ohlc: number;
  /** Of those, with our spread = their ask_open − bid_open. */
  spread: number;
  firstMismatch: string | null;
}

function compare(ours: readonly VendorBar[], theirs: readonly VendorBar[]): Agreement {
  const byTs = new Map(theirs.map((b) => [b.ts, b]));
  const result: Agreement = { ours: ours.length, theirs: theirs.length, common: 0, ohlc: 0, spread: 0, firstMismatch: null };
  for (const b of ours) {
    const v = byTs.get(b.ts);
    if (!v) {
      result.firstMismatch ??= `${new Date(b.ts).toISOString()}: only ours`;
      continue;
    }
    result.common++;
    if (b.open === v.open && b.high === v.high && b.low === v.low && b.close === v.close) result.ohlc++;
    else result.firstMismatch ??= `${new Date(b.ts).toISOString()}: ours ${JSON.stringify(b)} vs theirs ${JSON.stringify(v)}`;
    if (b.spread === v.spread) result.spread++;
  }
  return result;
}

const pct = (n: number, of: number): string => `${((100 * n) / of).toFixed(2)} %`;
const describeAgreement = (a: Agreement): string =>
  `bars ours ${a.ours} / theirs ${a.theirs}, same timestamps ${a.common}, exact OHLC ${a.ohlc} (${pct(a.ohlc, a.theirs)}), opening spread ${a.spread} (${pct(a.spread, a.theirs)})`;

const CASES = VENDOR_TICK_CASES;

describe("our bars vs the vendor's own M1 and S1 bars (real ticks, 2014-05-01 … 09)", () => {
  for (const { vendor, symbol } of CASES) {
    const stem = `${vendor}_${symbol}`;
    const days = '2014-05-01_2014-05-09.csv.gz';

    it(`${vendor.toUpperCase()} ${symbol}: 100 % of M1 and S1 bars agree exactly`, async (t) => {
      // The product's path: the file importer, then the streaming resampler.
      const ticks: Tick[] = [];
      const bars: BarMessage[] = [];
      const resampler = new StreamingResampler((bar) => bars.push(bar));
      const report = await importTickFile({
        path: `${DATA}/normalized/${stem}_ticks_${days}`,
        format: 'csv',
        symbol,
        batchSize: 50_000,
        sink: {
          write: async (batch) => {
            for (const tick of batch) {
              resampler.push(tick, 'import');
              ticks.push(tick);
            }
          },
        },
      });
      resampler.flush();
      assert.equal(report.badCount, 0, 'every tick imported, crossed quotes included');
      assert.equal(resampler.stats().late, 0);

      const ourM1 = bars
        .filter((b) => b.timeframe === '1min')
        .map(({ ts, open, high, low, close, spread }) => ({ ts, open, high, low, close, spread }));
      // The 1-s helper is the resampler's rule: at 60 s it gives the resampler's own 1-min bars.
      assert.deepEqual(aggregate(ticks, 60_000), ourM1);
      const m1 = compare(ourM1, readVendorBars(`${stem}_m1_${days}`));
      const s1 = compare(aggregate(ticks, 1_000), readVendorBars(`${stem}_s1_${days}`));
      t.diagnostic(`${vendor} ${symbol} M1: ${describeAgreement(m1)}`);
      t.diagnostic(`${vendor} ${symbol} S1: ${describeAgreement(s1)}`);

      for (const [name, a] of [
        ['M1', m1],
        ['S1', s1],
      ] as const) {
        assert.equal(a.firstMismatch, null, `${name}: ${a.firstMismatch}`);
        assert.equal(a.ours, a.theirs, `${name}: bar count`);
        assert.equal(a.common, a.theirs, `${name}: every vendor bar has ours at the same time`);
        assert.equal(a.ohlc, a.theirs, `${name}: exact OHLC`);
        assert.equal(a.spread, a.theirs, `${name}: opening spread = ask_open − bid_open`);
      }
    });
  }
});
