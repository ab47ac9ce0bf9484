/**
 * A built-in over columns: called once per bar in bar order, as the bar-by-bar run calls it, with
 * its call site's state in a frame of column evaluation's own, so its values are the same numbers.
 */
import type { Builtin, CallExpr } from '../runtime/ctx.ts';
import type { Frame } from '../runtime/slots.ts';
import type { Value } from '../runtime/values.ts';
import { giveUp, valueAt, type Col, type Column, type Steps } from './col.ts';
import type { ColumnHost } from './host.ts';

/** A built-in run on every bar in order, as the bar-by-bar run calls it, with its state in `frame`. */
export function builtinColumn(
  host: ColumnHost,
  b: Builtin,
  e: CallExpr,
  frame: Frame,
  args: Col[],
  named: (readonly [number, Col])[],
  steps: Steps,
): Column {
  const n = host.n;
  const ctx = host.ctx;
  const a = new Array<Value>(b.params.length);
  const v = new Float64Array(n);
  let items: Float64Array[] | null = null;
  let bools = false;
  let numbers = false;
  host.site(e, frame);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < args.length; k++) a[k] = valueAt(args[k]!, i);
    for (let k = 0; k < named.length; k++) {
      const [place, c] = named[k]!;
      if (place >= 0) a[place] = valueAt(c, i);
    }
    ctx.bar = i;
    const r = b.fn(ctx, a, e);
    if (typeof r === 'number') {
      if (items) giveUp();
      v[i] = r;
      numbers ||= r === r;
    } else if (typeof r === 'boolean') {
      if (items) giveUp();
      v[i] = r ? 1 : 0;
      bools = true;
    } else if (Array.isArray(r) && (items !== null || i === 0)) {
      items ??= r.map(() => new Float64Array(n));
      if (r.length !== items.length) giveUp();
      for (let k = 0; k < r.length; k++) {
        const x = r[k];
        items[k]![i] = typeof x === 'number' ? x : giveUp();
      }
    } else giveUp();
  }
  if (performance.now() > host.deadline) giveUp();
  if (items) return { items: items.map((x) => ({ v: x, bool: false, steps: 0 })), steps };
  if (bools && numbers) giveUp();
  return { v, bool: bools, steps };
}
