import assert from 'node:assert/strict';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { finished } from 'node:stream/promises';
import { createGzip, gzipSync } from 'node:zlib';
import { UnprocessableError } from '../../../src/errors.ts';
import { isGzipFile, readLineBatches, readLines, type Line } from '../../../src/market/import/index.ts';
import { OANDA_EURUSD, tempDir } from './fixtures.ts';

const tmp = tempDir();
after(() => tmp.remove());

const collect = async (path: string, chunkBytes?: number): Promise<Line[]> => {
  const out: Line[] = [];
  for await (const line of readLines(path, { chunkBytes })) out.push(line);
  return out;
};
const texts = (lines: Line[]): string[] => lines.map((l) => l.text);

describe('readLines', () => {
  it('detects gzip by its magic bytes, not by the file name', async () => {
    const lines = ['a,b', 'c,d'];
    const gzNamedCsv = join(tmp.dir, 'looks-plain.csv');
    writeFileSync(gzNamedCsv, gzipSync('a,b\nc,d\n'));
    const plainNamedGz = tmp.write('looks-gzipped.csv.gz', lines);
    assert.equal(await isGzipFile(gzNamedCsv), true);
    assert.equal(await isGzipFile(plainNamedGz), false);
    assert.deepEqual(texts(await collect(gzNamedCsv)), lines);
    assert.deepEqual(texts(await collect(plainNamedGz)), lines);
  });

  it('numbers lines from 1, keeps blank ones, strips CR, a BOM and copes with no final line end', async () => {
    const path = join(tmp.dir, 'crlf.csv');
    writeFileSync(path, '\ufeffh1,h2\r\n\r\nx,1\r\ny,2');
    assert.deepEqual(await collect(path), [
      { lineNo: 1, text: 'h1,h2' },
      { lineNo: 2, text: '' },
      { lineNo: 3, text: 'x,1' },
      { lineNo: 4, text: 'y,2' },
    ]);
    const empty = join(tmp.dir, 'empty.csv');
    writeFileSync(empty, '');
    assert.deepEqual(await collect(empty), []);
  });

  it('splits lines and multi-byte UTF-8 correctly across any chunk boundary', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => `${i},€${'é'.repeat(i % 7)},ü`);
    for (const gzip of [false, true]) {
      const path = tmp.write(`utf8${gzip ? '.gz' : ''}`, lines, { gzip, eol: '\r\n' });
      for (const chunkBytes of [1, 3, 7, 64]) {
        const got = await collect(path, chunkBytes);
        assert.deepEqual(texts(got), lines, `gzip=${gzip} chunk=${chunkBytes}`);
        assert.deepEqual(
          got.map((l) => l.lineNo),
          lines.map((_, i) => i + 1),
        );
      }
    }
  });

  it('reads concatenated gzip members (cat a.gz b.gz) as one file', async () => {
    const path = join(tmp.dir, 'multi.gz');
    writeFileSync(path, Buffer.concat([gzipSync('1\n2\n'), gzipSync('3\n')]));
    assert.deepEqual(texts(await collect(path)), ['1', '2', '3']);
  });

  it('matches a whole-file read of the real OANDA gzip file', async () => {
    const { gunzipSync } = await import('node:zlib');
    const whole = gunzipSync(readFileSync(OANDA_EURUSD)).toString('utf8').split('\n');
    whole.pop(); // the file ends with a line end
    let n = 0;
    for await (const batch of readLineBatches(OANDA_EURUSD)) {
      assert.equal(batch.firstLineNo, n + 1);
      for (const line of batch.lines) assert.equal(line, whole[n++]);
    }
    assert.equal(n, whole.length);
  });

  it('streams: memory stays flat on a file far larger than one chunk', async () => {
    // ~120 MB of text once decompressed; holding it whole would need far more than the bound.
    const path = join(tmp.dir, 'big.csv.gz');
    const gz = createGzip({ level: 1 });
    const done = finished(gz.pipe(createWriteStream(path)));
    const line = '2014-05-01T00:00:00.292Z,1.38676,1.38686\n';
    for (let block = 0; block < 100; block++) gz.write(line.repeat(30_000));
    gz.end();
    await done;
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    let n = 0;
    for await (const batch of readLineBatches(path)) {
      n += batch.lines.length;
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
    assert.equal(n, 3_000_000);
    assert.ok(peak - before < 60 * 2 ** 20, `heap grew by ${Math.round((peak - before) / 2 ** 20)} MB`);
  });

  it('fails with what to do: truncated gzip, binary or UTF-16 content, endless lines, missing files', async () => {
    const truncated = join(tmp.dir, 'truncated.csv.gz');
    const full = gzipSync(Buffer.from('2014-05-01T00:00:00.292Z,1.1,1.2\n'.repeat(50_000)));
    writeFileSync(truncated, full.subarray(0, full.length >> 1));
    await assert.rejects(collect(truncated), (err: unknown) => {
      assert.ok(err instanceof UnprocessableError);
      assert.match(err.message, /gzip data is corrupt or truncated.*re-download/);
      return true;
    });

    const utf16 = join(tmp.dir, 'utf16.csv');
    writeFileSync(utf16, Buffer.from('\ufeffts_utc,bid,ask\n', 'utf16le'));
    await assert.rejects(collect(utf16), /not a UTF-8 text file.*save it as UTF-8/);

    const oneLine = join(tmp.dir, 'no-newlines.bin');
    writeFileSync(oneLine, 'x'.repeat(3000));
    await assert.rejects(
      (async () => {
        for await (const _ of readLines(oneLine, { maxLineLength: 1000, chunkBytes: 512 })) void _;
      })(),
      /line 1 is longer than 1000 characters/,
    );

    await assert.rejects(collect(join(tmp.dir, 'nope.csv')), /nope\.csv: no such file: check the path/);
    await assert.rejects(collect(tmp.dir), /is a directory/);
  });
});
