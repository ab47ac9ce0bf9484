/**
 * The bulk path on real ticks: import (parse + store) rate and the SQL rebuild rate of all four
 * timeframes, in ticks/s, on the vendor tick files of ../shared/data/fx (OANDA and FXCM,
 * EURUSD and NZDUSD: ~2 million ticks). Also the streaming resampler alone, for comparison.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createLogger } from '../../src/log.ts';
import { importTickFile } from '../../src/market/import/index.ts';
import { StreamingResampler } from '../../src/market/resampler.ts';
import { BarsRepo, openClickHouse, TicksRepo } from '../../src/store/index.ts';
import type { Tick } from '../../schemas/market.ts';
import type { Benchmark } from './lib/types.ts';
import { REPO_ROOT } from './lib/service.ts';

const DATA = resolve(REPO_ROOT, '../shared/data/fx/lean_quotes_2014-05-01_09/normalized');
const FILES = [
  ['EURUSD', 'oanda_EURUSD_ticks_2014-05-01_2014-05-09.csv.gz'],
  ['EURUSD', 'fxcm_EURUSD_ticks_2014-05-01_2014-05-09.csv.gz'],
  ['NZDUSD', 'oanda_NZDUSD_ticks_2014-05-01_2014-05-09.csv.gz'],
  ['NZDUSD', 'fxcm_NZDUSD_ticks_2014-05-01_2014-05-09.csv.gz'],
] as const;

export const benchmark: Benchmark = {
  name: 'market-rebuild',
  description: 'Real vendor ticks: import rate, SQL bulk rebuild rate, streaming resampler rate (ticks/s)',
  async run(ctx) {
    const dir = mkdtempSync(join(tmpdir(), 'sf-bench-rebuild-'));
    ctx.defer(() => rmSync(dir, { recursive: true, force: true }));
    const clickhouse = await openClickHouse({ path: dir, log: createLogger('silent') });
    ctx.defer(() => clickhouse.close());
    const ticksRepo = new TicksRepo(clickhouse);
    const bars = new BarsRepo(clickhouse);
    const all: Tick[] = [];
    let imported = 0;
    const t0 = performance.now();
    const spans = new Map<string, { from: number; to: number }>();
    for (const [symbol, file] of FILES) {
      const report = await importTickFile({
        path: join(DATA, file),
        format: 'csv',
        symbol,
        batchSize: 50_000,
        sink: {
          write: async (batch) => {
            for (const t of batch) all.push(t);
            await ticksRepo.insert(batch, 'import');
          },
        },
      });
      imported += report.imported;
      const span = spans.get(symbol) ?? { from: Infinity, to: -Infinity };
      spans.set(symbol, { from: Math.min(span.from, report.firstTs!), to: Math.max(span.to, report.lastTs!) });
    }
    const importS = (performance.now() - t0) / 1000;
    ctx.log(`market-rebuild: imported ${imported} ticks in ${importS.toFixed(1)} s`);

    const t1 = performance.now();
    for (const [symbol, span] of spans) await bars.rebuildFromTicks(symbol as 'EURUSD' | 'NZDUSD', span.from, span.to);
    const rebuildS = (performance.now() - t1) / 1000;

    // The same ticks through the streaming resampler, one vendor file after another per symbol
    // (the FXCM and OANDA files overlap in time, so each file gets its own resampler).
    let streamed = 0;
    const t2 = performance.now();
    let resampler = new StreamingResampler(() => undefined);
    let previous: Tick | undefined;
    for (const t of all) {
      if (previous && (t.symbol !== previous.symbol || t.ts < previous.ts)) resampler = new StreamingResampler(() => undefined);
      if (resampler.push(t, 'import')) streamed++;
      previous = t;
    }
    const streamS = (performance.now() - t2) / 1000;
    return [
      {
        name: 'import-csv-gz',
        ticks: imported,
        ticks_per_s: Math.round(imported / importS),
        note: 'gunzip + parse + validate + RowBinary insert into chdb',
      },
      {
        name: 'bulk-rebuild-sql',
        ticks: imported,
        ticks_per_s: Math.round(imported / rebuildS),
        seconds: Math.round(rebuildS * 100) / 100,
        note: 'INSERT … SELECT over ticks FINAL, 4 timeframes',
      },
      {
        name: 'streaming-resampler',
        ticks: streamed,
        ticks_per_s: Math.round(streamed / streamS),
        note: 'TS resampler alone, 4 timeframes',
      },
    ];
  },
};
