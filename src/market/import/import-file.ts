import { basename } from 'node:path';
import type { Tick } from '../../../schemas/market.ts';
import { SYMBOLS, Symbol } from '../../../schemas/common.ts';
import { BadRequestError } from '../../errors.ts';
import { TickSequencer, type TickSink } from '../tick-sink.ts';
import { TICK_FORMATS } from './formats.ts';
import { readLineBatches } from './reader.ts';
import { iso } from './timestamps.ts';
import { TICK_FILE_FORMATS, isRowError, isTickFileFormat, type ParsedRow, type TickFileFormat } from './types.ts';
import { liveClock, type Clock } from '../../lib/clock.ts';

export interface ImportTickFileOptions {
  /** Plain or gzip (detected from the content, not the name). */
  path: string;
  format: TickFileFormat;
  symbol: Symbol;
  sink: TickSink;
  /** Ticks per sink.write (each awaited before reading on); default 5000. */
  batchSize?: number;
  /** Bad rows listed in the report; all are counted. Default 100. */
  maxBadListed?: number;
  /** The time past which ticks are refused as from the future (liveClock unless a test sets it). */
  clock?: Clock;
}

/** A row that was not imported. */
export interface BadRow {
  /** 1-based line number in the (decompressed) file, header included. */
  line: number;
  reason: string;
  /** The line, cut to 200 characters. */
  text: string;
}

/** What one file import did. rows = imported + badCount. */
export interface ImportReport {
  file: string;
  format: TickFileFormat;
  symbol: Symbol;
  /** Data rows seen (blank lines and headers are not rows). */
  rows: number;
  imported: number;
  badCount: number;
  /** The first maxBadListed bad rows, in file order. */
  bad: BadRow[];
  /** epoch ms UTC of the first and last imported tick; null when none was imported. */
  firstTs: number | null;
  lastTs: number | null;
}

const MAX_TEXT = 200;
/** Ticks later than this far past the clock are refused: they mean a wrong zone or layout, and one would block every later row. */
const FUTURE_SLACK_MS = 86_400_000;

/**
 * Imports one tick file: parses it with the format, validates every row, numbers ticks sharing a
 * millisecond with TickSequencer (0, 1, 2… in file order, so a re-import yields the same
 * (symbol, ts, seq) keys), and writes batches to the sink, awaiting each (back-pressure). Bad
 * rows are skipped and reported; a file that is unusable as a whole (wrong header, wrong
 * format, corrupt gzip) throws. A sink error aborts the import; batches already written stay
 * written, and importing the file again rewrites the same keys.
 */
export async function importTickFile(options: ImportTickFileOptions): Promise<ImportReport> {
  const { path, format, symbol, sink } = options;
  checkOptions(options);
  checkFileNameSymbol(path, symbol);
  const batchSize = options.batchSize ?? 5000;
  const maxBadListed = options.maxBadListed ?? 100;
  const parse = TICK_FORMATS[format].createParser(symbol, path);
  const sequencer = new TickSequencer();
  const maxTs = (options.clock ?? liveClock).now() + FUTURE_SLACK_MS;
  const report: ImportReport = { file: path, format, symbol, rows: 0, imported: 0, badCount: 0, bad: [], firstTs: null, lastTs: null };
  let prevTs = Number.NEGATIVE_INFINITY;
  let batch: Tick[] = [];

  for await (const { firstLineNo, lines } of readLineBatches(path)) {
    for (let i = 0; i < lines.length; i++) {
      const text = lines[i]!;
      const row = parse(text);
      if (row === null) continue;
      report.rows++;
      const reason = isRowError(row) ? row.error : problemWith(row, prevTs, maxTs);
      if (reason !== null) {
        if (report.bad.length < maxBadListed) report.bad.push({ line: firstLineNo + i, reason, text: text.slice(0, MAX_TEXT) });
        report.badCount++;
        continue;
      }
      const tick = row as ParsedRow; // a RowError always has a reason
      prevTs = tick.ts;
      report.firstTs ??= tick.ts;
      batch.push({ symbol, ts: tick.ts, seq: sequencer.next(tick.ts), bid: tick.bid, ask: tick.ask, volume: tick.volume });
      if (batch.length >= batchSize) {
        await sink.write(batch);
        batch = []; // a new array: the sink may keep the one it was given
      }
    }
  }
  if (batch.length > 0) await sink.write(batch);
  report.imported = report.rows - report.badCount;
  if (report.imported > 0) report.lastTs = prevTs;
  return report;
}

/**
 * The one set of row rules, whatever the format; null when the row is good. A crossed quote
 * (ask below bid) is good: vendors publish them (FXCM: 10 % of its ticks) and so do their bars.
 */
function problemWith({ ts, bid, ask, volume }: ParsedRow, prevTs: number, maxTs: number): string | null {
  if (!(bid > 0 && bid < Infinity)) return `bid ${bid} is not a positive finite number`;
  if (!(ask > 0 && ask < Infinity)) return `ask ${ask} is not a positive finite number`;
  if (!(volume >= 0 && volume < Infinity)) return `volume ${volume} is not a non-negative finite number`;
  if (!Number.isSafeInteger(ts) || ts <= 0) return `time ${ts} is not a valid epoch millisecond`;
  if (ts > maxTs) return `time ${iso(ts)} is in the future: check the file's time zone and the --format`;
  // Rows must be in time order (ties keep file order for seq); a row going back is dropped, not reordered.
  if (ts < prevTs) return `time ${iso(ts)} goes backwards (previous tick ${iso(prevTs)}): sort the file by time`;
  return null;
}

function checkOptions({ format, symbol, batchSize, maxBadListed }: ImportTickFileOptions): void {
  if (!isTickFileFormat(format)) {
    throw new BadRequestError(`unknown tick file format "${String(format)}": use one of ${TICK_FILE_FORMATS.join(', ')}`);
  }
  if (!Symbol.safeParse(symbol).success) throw new BadRequestError(`unknown symbol "${String(symbol)}": use one of ${SYMBOLS.join(', ')}`);
  if (batchSize !== undefined && !(Number.isInteger(batchSize) && batchSize >= 1)) {
    throw new BadRequestError(`batchSize must be a whole number ≥ 1, got ${batchSize}`);
  }
  if (maxBadListed !== undefined && !(Number.isInteger(maxBadListed) && maxBadListed >= 0)) {
    throw new BadRequestError(`maxBadListed must be a whole number ≥ 0, got ${maxBadListed}`);
  }
}

/**
 * Formats without a pair column (csv, dukascopy, histdata) cannot catch a file of another pair
 * from its rows, and prices of e.g. USDJPY stored as EURUSD would poison every bar. Vendors put
 * the pair in the file name, so a name that names only another pair is refused.
 */
function checkFileNameSymbol(path: string, symbol: Symbol): void {
  const letters = basename(path)
    .toUpperCase()
    .replace(/[^A-Z]/g, '');
  if (letters.includes(symbol)) return;
  const other = SYMBOLS.find((s) => letters.includes(s));
  if (other) {
    throw new BadRequestError(
      `${path}: the file name names ${other} but --symbol is ${symbol}: pass --symbol ${other}, or rename the file if it really holds ${symbol}`,
    );
  }
}
