import type { Symbol } from '../../../schemas/common.ts';

/** The tick file layouts `signalforge import-ticks --format` understands (see FORMATS.md). */
export const TICK_FILE_FORMATS = ['dukascopy', 'histdata', 'truefx', 'csv'] as const;
export type TickFileFormat = (typeof TICK_FILE_FORMATS)[number];

export const isTickFileFormat = (value: string): value is TickFileFormat => (TICK_FILE_FORMATS as readonly string[]).includes(value);

/**
 * One row as a format read it, before validation. Numbers may be NaN or out of range: the
 * importer checks every row the same way whatever the format, so the rules live in one place.
 */
export interface ParsedRow {
  /** epoch milliseconds, UTC */
  ts: number;
  bid: number;
  ask: number;
  /** bid + ask volume where the format has them, else 0 */
  volume: number;
}

/** A row the format could not read, with the reason shown in the import report. */
export interface RowError {
  error: string;
}

/** A row, a row error, or null for a line that carries no tick (blank line, header). */
export type ParseResult = ParsedRow | RowError | null;

/** Reads the lines of one file, in order. Stateful (headers); throws when the whole file is unusable. */
export type TickLineParser = (text: string) => ParseResult;

export interface TickFormatSpec {
  name: TickFileFormat;
  /** One line for help texts and error messages. */
  describe: string;
  /** A fresh parser for one file; `file` names it in file-level errors. */
  createParser(symbol: Symbol, file: string): TickLineParser;
}

export const isRowError = (r: ParsedRow | RowError): r is RowError => 'error' in r;
