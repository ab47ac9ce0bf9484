/**
 * A shaped run as JSON, UTF-8 encoded: the same bytes as JSON.stringify then a UTF-8 encoder, made
 * with less work. Most of the answer is columns of numbers (and timestamps), and the same column
 * often appears twice (a plotted series is also its `basic`/`full` feature, the same array): each
 * column is printed once. Its text is ASCII, so it is copied into the bytes as it is; only the
 * small rest (titles, texts a script wrote) goes through the UTF-8 encoder. The parts are never
 * joined into one string: a single non-ASCII character would make all of it a two-byte string.
 */
import type { Shaped } from './shape.ts';

type Column = readonly (number | null)[] | readonly string[];

/** JSON text in parts; `ascii` marks the parts known to be ASCII (printed numbers, timestamps). */
class Parts {
  readonly texts: string[] = [];
  readonly ascii: boolean[] = [];
  add(text: string, ascii = false): void {
    this.texts.push(text);
    this.ascii.push(ascii);
  }
  /** The UTF-8 bytes, in a buffer of their own (it is transferred to another thread, so never a pooled slice). */
  bytes(): Uint8Array {
    const sizes = this.texts.map((t, i) => (this.ascii[i] ? t.length : Buffer.byteLength(t, 'utf8')));
    const out = Buffer.allocUnsafeSlow(sizes.reduce((n, k) => n + k, 0));
    let at = 0;
    for (let i = 0; i < this.texts.length; i++) at += out.write(this.texts[i]!, at, sizes[i]!, this.ascii[i] ? 'latin1' : 'utf8');
    return out;
  }
}

export function shapedJsonBytes(shaped: Shaped): Uint8Array {
  const out = new Parts();
  const printed = new Map<Column, string>();
  const column = (xs: Column): void => {
    let text = printed.get(xs);
    if (text === undefined) printed.set(xs, (text = JSON.stringify(xs)));
    out.add(text, true);
  };
  /** An object as JSON.stringify writes it, members for which `special` returns true written by it. */
  const object = (o: object, special: (key: string, v: unknown) => boolean): void => {
    let first = true;
    for (const [key, v] of Object.entries(o)) {
      // JSON.stringify leaves out members that are undefined.
      if (v === undefined) continue;
      out.add(`${first ? '{' : ','}${JSON.stringify(key)}:`);
      first = false;
      if (!special(key, v)) out.add(JSON.stringify(v));
    }
    out.add(first ? '{}' : '}');
  };
  const list = (items: readonly object[], each: (item: object) => void): void => {
    out.add('[');
    items.forEach((item, i) => {
      if (i > 0) out.add(',');
      each(item);
    });
    out.add(']');
  };
  const series = (items: readonly object[]) =>
    list(items, (s) =>
      object(s, (k, v) => {
        if (k !== 'values') return false;
        column(v as Column);
        return true;
      }),
    );
  object(shaped, (key, v) => {
    switch (key) {
      case 'timestamps':
        column(v as Column);
        return true;
      case 'overlays':
        series(v as object[]);
        return true;
      case 'panels':
        list(v as object[], (p) =>
          object(p, (k, x) => {
            if (k !== 'series') return false;
            series(x as object[]);
            return true;
          }),
        );
        return true;
      case 'features':
        object(v as object, (_k, x) => {
          column(x as Column);
          return true;
        });
        return true;
    }
    return false;
  });
  return out.bytes();
}
