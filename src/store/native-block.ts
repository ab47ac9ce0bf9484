/**
 * One block in ClickHouse's Native format — the engine's own columnar layout: a varint column
 * count and row count, then per column its name, its type and its values back to back (for
 * fixed-width numbers: the little-endian array itself). Typed arrays go in as they are, without
 * a pass over the rows, so encoding a million ticks costs a few memory copies at most.
 */
export class NativeBlock {
  private readonly parts: Uint8Array[] = [];
  private columnsLeft: number;

  constructor(
    columns: number,
    private readonly rows: number,
  ) {
    this.columnsLeft = columns;
    this.parts.push(Buffer.concat([varint(columns), varint(rows)]));
  }

  /** Adds a column of a fixed-width type; `chunks` hold exactly `rows` values between them. */
  column(name: string, type: string, chunks: readonly ArrayBufferView[]): this {
    if (this.columnsLeft-- <= 0) throw new Error('NativeBlock: more columns than declared');
    let bytes = 0;
    this.parts.push(Buffer.concat([text(name), text(type)]));
    for (const c of chunks) {
      this.parts.push(new Uint8Array(c.buffer, c.byteOffset, c.byteLength));
      bytes += c.byteLength;
    }
    const width = bytes / Math.max(1, this.rows);
    if (this.rows > 0 && !Number.isInteger(width))
      throw new Error(`NativeBlock: column ${name} holds ${bytes} bytes for ${this.rows} rows`);
    return this;
  }

  /** The encoded block, as pieces to write one after another (no copy made). */
  pieces(): Uint8Array[] {
    if (this.columnsLeft !== 0) throw new Error('NativeBlock: fewer columns than declared');
    return this.parts;
  }
}

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

function text(s: string): Buffer {
  const bytes = Buffer.from(s, 'utf8');
  return Buffer.concat([varint(bytes.length), bytes]);
}
