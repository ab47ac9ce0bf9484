import { open, type FileHandle } from 'node:fs/promises';
import { pipeline, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { UnprocessableError } from '../../errors.ts';

/** One line of a file: 1-based line number and its text without the line end. */
export interface Line {
  lineNo: number;
  text: string;
}

/** Consecutive lines from one read chunk: lines[i] is line firstLineNo + i. */
export interface LineBatch {
  firstLineNo: number;
  lines: string[];
}

export interface ReadOptions {
  /** A longer line aborts the read: it means a binary or wrong file, and would otherwise grow without bound. */
  maxLineLength?: number;
  /** Bytes read from disk at a time. */
  chunkBytes?: number;
}

const GZIP_MAGIC_0 = 0x1f;
const GZIP_MAGIC_1 = 0x8b;

/** Whether the file starts with the gzip magic bytes (the extension is not trusted: `.csv` files are often gzipped and vice versa). */
export async function isGzipFile(path: string): Promise<boolean> {
  const fh = await openOrExplain(path);
  try {
    return await startsWithGzipMagic(fh);
  } catch (err) {
    throw explainOpenError(path, err);
  } finally {
    await fh.close();
  }
}

async function startsWithGzipMagic(fh: FileHandle): Promise<boolean> {
  const head = Buffer.alloc(2);
  const { bytesRead } = await fh.read(head, 0, 2, 0);
  return bytesRead === 2 && head[0] === GZIP_MAGIC_0 && head[1] === GZIP_MAGIC_1;
}

/**
 * Streams a plain or gzip file as batches of lines, never holding more than one chunk plus one
 * partial line in memory, so files of many GB work. Handles `\n` and `\r\n`, a missing final line
 * end, a UTF-8 BOM, and concatenated gzip members. Batches (not single lines) because one await
 * per line costs more than parsing the line.
 */
export async function* readLineBatches(path: string, options: ReadOptions = {}): AsyncGenerator<LineBatch> {
  const maxLineLength = options.maxLineLength ?? 1 << 20;
  const fh = await openOrExplain(path);
  let gzip: boolean;
  try {
    gzip = await startsWithGzipMagic(fh);
  } catch (err) {
    await fh.close();
    throw explainOpenError(path, err);
  }
  const raw = fh.createReadStream({ start: 0, highWaterMark: options.chunkBytes ?? 1 << 20 });
  // pipeline (not pipe) so a corrupt gzip or read error surfaces in the loop below.
  const source: Readable = gzip ? pipeline(raw, createGunzip({ chunkSize: 1 << 18 }), () => {}) : raw;
  const decoder = new StringDecoder('utf8');
  let carry = '';
  let lineNo = 1;
  let first = true;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      let text = carry + decoder.write(chunk);
      if (first && text.length > 0) {
        first = false;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        checkNotBinary(path, text);
      }
      const lines = text.split('\n');
      carry = lines.pop() ?? '';
      if (carry.length > maxLineLength) throw longLine(path, lineNo + lines.length, maxLineLength);
      if (lines.length === 0) continue;
      stripCr(lines);
      yield { firstLineNo: lineNo, lines };
      lineNo += lines.length;
    }
  } catch (err) {
    throw explainReadError(path, err, gzip);
  }
  carry += decoder.end();
  if (first && carry.charCodeAt(0) === 0xfeff) carry = carry.slice(1);
  if (carry.length > 0) {
    if (first) checkNotBinary(path, carry);
    const lines = [carry];
    stripCr(lines);
    yield { firstLineNo: lineNo, lines };
  }
}

/** Line by line, for callers that prefer it; see readLineBatches. */
export async function* readLines(path: string, options: ReadOptions = {}): AsyncGenerator<Line> {
  for await (const batch of readLineBatches(path, options)) {
    for (let i = 0; i < batch.lines.length; i++) yield { lineNo: batch.firstLineNo + i, text: batch.lines[i]! };
  }
}

function stripCr(lines: string[]): void {
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.charCodeAt(l.length - 1) === 13) lines[i] = l.slice(0, -1);
  }
}

async function openOrExplain(path: string): Promise<FileHandle> {
  try {
    return await open(path, 'r');
  } catch (err) {
    throw explainOpenError(path, err);
  }
}

function explainOpenError(path: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return new UnprocessableError(`${path}: no such file: check the path`);
  if (code === 'EISDIR') return new UnprocessableError(`${path}: is a directory: pass the tick files inside it`);
  if (code === 'EACCES') return new UnprocessableError(`${path}: permission denied: make the file readable`);
  return err;
}

function checkNotBinary(path: string, head: string): void {
  // NUL bytes in text mean UTF-16 (e.g. a spreadsheet export) or a binary/archive file.
  if (head.slice(0, 4096).includes('\0')) {
    throw new UnprocessableError(
      `${path}: not a UTF-8 text file (NUL bytes at the start): if it is UTF-16 save it as UTF-8; if it is a zip, unzip it first (gzip is read directly)`,
    );
  }
}

function longLine(path: string, lineNo: number, max: number): UnprocessableError {
  return new UnprocessableError(
    `${path}: line ${lineNo} is longer than ${max} characters: this is not a line-based tick file (a zip or binary file? unzip it first)`,
  );
}

function explainReadError(path: string, err: unknown, gzip: boolean): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (gzip && typeof code === 'string' && code.startsWith('Z_')) {
    return new UnprocessableError(
      `${path}: the gzip data is corrupt or truncated (${(err as Error).message}): re-download or re-compress the file; rows before the damage were read`,
    );
  }
  return err;
}
