/**
 * Shared test material: the real OANDA EURUSD ticks from ../shared/data/fx, read here with
 * plain zlib + Date.parse (independently of the importer), an in-memory TickSink, and temp files.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Tick } from '../../../schemas/market.ts';
import type { TickSink } from '../../../src/market/tick-sink.ts';

export const FX = '../shared/data/fx';
export const OANDA_EURUSD = `${FX}/lean_quotes_2014-05-01_09/normalized/oanda_EURUSD_ticks_2014-05-01_2014-05-09.csv.gz`;
export const OANDA_MANIFEST = `${FX}/lean_quotes_2014-05-01_09/MANIFEST.tsv`;
export const TRUEFX_ORIGINAL = `${FX}/fxcm_m1_bidask_2012-2013/original/truefx-usdjpy-ticks.csv.gz`;
export const TRUEFX_NORMALIZED = `${FX}/fxcm_m1_bidask_2012-2013/normalized/truefx_USDJPY_ticks_sample.csv.gz`;
export const TRUEFX_MANIFEST = `${FX}/fxcm_m1_bidask_2012-2013/MANIFEST.tsv`;
export const HISTDATA_M1_ORIGINAL = `${FX}/histdata_m1/original/DAT_ASCII_EURUSD_M1_2017-01_2017-09.csv.gz`;

/** A row of a normalized tick file, prices kept as the source text. */
export interface SourceTick {
  ts: number;
  bid: string;
  ask: string;
}

/** Data rows of a normalized `ts_utc,bid,ask` file. */
export function readNormalizedTicks(path: string): SourceTick[] {
  const lines = gunzipSync(readFileSync(path)).toString('utf8').split('\n');
  assertEq(lines[0], 'ts_utc,bid,ask');
  return lines
    .slice(1)
    .filter((l) => l.length > 0)
    .map((l) => {
      const [ts, bid, ask] = l.split(',');
      return { ts: Date.parse(ts!), bid: bid!, ask: ask! };
    });
}

let oanda: SourceTick[] | undefined;
export const oandaTicks = (): SourceTick[] => (oanda ??= readNormalizedTicks(OANDA_EURUSD));

/** Ticks whose UTC day (YYYY-MM-DD) is in `days`. */
export const onDays = (ticks: SourceTick[], ...days: string[]): SourceTick[] =>
  ticks.filter((t) => days.includes(new Date(t.ts).toISOString().slice(0, 10)));

/** data_rows of one file in a MANIFEST.tsv. */
export function manifestRows(manifest: string, file: string): number {
  const row = readFileSync(manifest, 'utf8')
    .split('\n')
    .map((l) => l.split('\t'))
    .find((c) => c[0] === file);
  if (!row) throw new Error(`${file} not in ${manifest}`);
  return Number(row[3]);
}

/** What the importer must produce for these source ticks: seq counted here, independently of TickSequencer. */
export function expectedTicks(ticks: readonly SourceTick[], symbol: Tick['symbol'], volumes?: readonly number[]): Tick[] {
  let prevTs = Number.NaN;
  let seq = 0;
  return ticks.map((t, i) => {
    seq = t.ts === prevTs ? seq + 1 : 0;
    prevTs = t.ts;
    return { symbol, ts: t.ts, seq, bid: Number(t.bid), ask: Number(t.ask), volume: volumes?.[i] ?? 0 };
  });
}

/** The sink interface itself, kept in memory; records every batch so tests can check batching. */
export class MemorySink implements TickSink {
  ticks: Tick[] = [];
  batchSizes: number[] = [];
  async write(ticks: readonly Tick[]): Promise<void> {
    this.batchSizes.push(ticks.length);
    for (const t of ticks) this.ticks.push(t);
  }
}

export interface TempDir {
  dir: string;
  /** Writes lines joined by `eol` (with a final line end), gzipped when `gzip`. Returns the path. */
  write(name: string, lines: readonly string[], options?: { gzip?: boolean; eol?: string }): string;
  remove(): void;
}

export function tempDir(): TempDir {
  const dir = mkdtempSync(join(tmpdir(), 'sf-import-'));
  return {
    dir,
    write(name, lines, { gzip = false, eol = '\n' } = {}) {
      const path = join(dir, name);
      const text = Buffer.from(lines.map((l) => l + eol).join(''), 'utf8');
      writeFileSync(path, gzip ? gzipSync(text) : text);
      return path;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Calendar fields of an epoch-ms instant in a time zone, via Intl (the tz database), cached per UTC hour. */
const offsetCache = new Map<number, number>();
export function wallClock(
  ts: number,
  timeZone: 'UTC' | 'America/New_York',
): { y: string; mo: string; d: string; h: string; mi: string; s: string; ms: string } {
  let offset = 0;
  if (timeZone !== 'UTC') {
    const hour = Math.floor(ts / 3_600_000);
    let cached = offsetCache.get(hour);
    if (cached === undefined) {
      const parts = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      }).formatToParts(hour * 3_600_000);
      const get = (type: string): number => Number(parts.find((p) => p.type === type)!.value);
      cached = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - hour * 3_600_000;
      offsetCache.set(hour, cached);
    }
    offset = cached;
  }
  const w = new Date(ts + offset);
  return {
    y: String(w.getUTCFullYear()),
    mo: pad(w.getUTCMonth() + 1),
    d: pad(w.getUTCDate()),
    h: pad(w.getUTCHours()),
    mi: pad(w.getUTCMinutes()),
    s: pad(w.getUTCSeconds()),
    ms: pad(w.getUTCMilliseconds(), 3),
  };
}

function assertEq(actual: unknown, expected: unknown): void {
  if (actual !== expected) throw new Error(`fixture: expected ${String(expected)}, got ${String(actual)}`);
}
