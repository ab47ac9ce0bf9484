/**
 * Encodes rows in ClickHouse's RowBinary format: little-endian numbers, strings as a varint
 * length and bytes. Writing binary costs a few nanoseconds a field, where printing doubles as
 * text costs over a hundred — for millions of ticks, the difference is the ingestion rate.
 */
export class RowBinaryWriter {
  private buf: Buffer;
  private o = 0;

  constructor(initialBytes = 1 << 16) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  private ensure(bytes: number): void {
    if (this.o + bytes <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.o + bytes));
    this.buf.copy(next, 0, 0, this.o);
    this.buf = next;
  }

  /** A short ASCII string (symbols, enums): varint length < 128, one byte per character. */
  ascii(value: string): this {
    this.ensure(1 + value.length);
    this.buf[this.o++] = value.length;
    this.o += this.buf.write(value, this.o, 'latin1');
    return this;
  }

  /** Any string, as UTF-8 (a user's model name, a stem): a varint byte length, then the bytes. */
  string(value: string): this {
    const bytes = Buffer.byteLength(value, 'utf8');
    this.ensure(5 + bytes);
    let n = bytes;
    while (n >= 0x80) {
      this.buf[this.o++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    this.buf[this.o++] = n;
    this.o += this.buf.write(value, this.o, bytes, 'utf8');
    return this;
  }

  /** Nullable(Float64): a null flag byte, then the value when there is one. */
  nullableFloat64(value: number | null): this {
    this.ensure(1);
    if (value === null) {
      this.buf[this.o++] = 1;
      return this;
    }
    this.buf[this.o++] = 0;
    return this.float64(value);
  }

  /** Int64 / DateTime64(3) from a safe integer (epoch ms). */
  int64(value: number): this {
    this.ensure(8);
    const lo = value % 4294967296;
    this.buf.writeUInt32LE(lo < 0 ? lo + 4294967296 : lo, this.o);
    this.buf.writeInt32LE(Math.floor(value / 4294967296), this.o + 4);
    this.o += 8;
    return this;
  }

  uint32(value: number): this {
    this.ensure(4);
    this.buf.writeUInt32LE(value, this.o);
    this.o += 4;
    return this;
  }

  uint64(value: number): this {
    return this.int64(value);
  }

  float64(value: number): this {
    this.ensure(8);
    this.buf.writeDoubleLE(value, this.o);
    this.o += 8;
    return this;
  }

  get length(): number {
    return this.o;
  }

  /** The encoded rows (a view: valid until the writer is used again). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.o);
  }
}
