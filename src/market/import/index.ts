/** Tick file import (`signalforge import-ticks`): formats in FORMATS.md. */
export { importTickFile, type BadRow, type ImportReport, type ImportTickFileOptions } from './import-file.ts';
export { TICK_FORMATS } from './formats.ts';
export { readLineBatches, readLines, isGzipFile, type Line, type LineBatch, type ReadOptions } from './reader.ts';
export { TICK_FILE_FORMATS, isTickFileFormat, type TickFileFormat, type TickFormatSpec } from './types.ts';
