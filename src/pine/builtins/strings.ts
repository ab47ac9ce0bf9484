/** str.* beyond the basics in core.ts: format, replace, pos, tonumber, split, substring, trim, repeat, starts/ends. */
import { pineToString } from './core.ts';
import { num, str, type Builtin, type Ctx } from '../runtime/ctx.ts';
import { NA, type Value } from '../runtime/values.ts';

/** str.format's "{0}", "{1,number,#.##}": the argument as str.tostring gives it (with the pattern, when one is given). */
function format(ctx: Ctx, a: Value[]): string {
  const args = a.slice(1);
  return str(a[0]).replace(/\{(\d+)(?:,([^}]*))?\}/g, (_m, i: string, spec: string | undefined) => {
    const v = args[Number(i)];
    if (v === undefined) ctx.fail(`str.format has no argument {${i}}`);
    if (spec === undefined) return pineToString(v, undefined, ctx.mintick);
    const m = /^number,([#0.,]+)$/.exec(spec.trim());
    if (!m)
      return ctx.fail(`str.format pattern {${i},${spec}} is not supported: use {${i}} or {${i},number,#.##}`, `str.format {${i},${spec}}`);
    return pineToString(v, m[1]!.replace(/,/g, ''), ctx.mintick);
  });
}

export const STRING_FUNCTIONS: Record<string, Builtin> = {
  'str.format': { params: ['formatString', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9'], fn: (ctx, a) => format(ctx, a) },
  'str.replace_all': { params: ['source', 'target', 'replacement'], fn: (_c, a) => str(a[0]).split(str(a[1])).join(str(a[2])) },
  'str.replace': {
    // Replaces the occurrence-th (from 0) appearance of target.
    params: ['source', 'target', 'replacement', 'occurrence'],
    fn: (_c, a) => {
      const [s, target, by] = [str(a[0]), str(a[1]), str(a[2])];
      let at = -1;
      for (let k = 0, from = 0; k <= num(a[3] ?? 0); k++, from = at + 1) if ((at = s.indexOf(target, from)) < 0) return s;
      return s.slice(0, at) + by + s.slice(at + target.length);
    },
  },
  'str.pos': {
    params: ['source', 'str'],
    fn: (_c, a) => {
      const i = str(a[0]).indexOf(str(a[1]));
      return i < 0 ? NA : i;
    },
  },
  'str.tonumber': {
    params: ['string'],
    fn: (_c, a) => {
      const s = str(a[0]).trim();
      return s === '' || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s) ? NA : Number(s);
    },
  },
  'str.split': {
    params: ['string', 'separator'],
    fn: (ctx, a) => {
      const items = str(a[0]).split(str(a[1]));
      ctx.grow(items.length);
      return { kind: 'array', items };
    },
  },
  'str.substring': {
    params: ['source', 'begin_pos', 'end_pos'],
    fn: (_c, a) => str(a[0]).substring(num(a[1]), a[2] === undefined ? undefined : num(a[2])),
  },
  'str.startswith': { params: ['source', 'str'], fn: (_c, a) => str(a[0]).startsWith(str(a[1])) },
  'str.endswith': { params: ['source', 'str'], fn: (_c, a) => str(a[0]).endsWith(str(a[1])) },
  'str.trim': { params: ['source'], fn: (_c, a) => str(a[0]).trim() },
  'str.repeat': {
    params: ['source', 'repeat', 'separator'],
    fn: (ctx, a) => {
      const n = num(a[1]);
      if (!(n >= 0 && n <= 10_000)) ctx.fail(`str.repeat takes a count from 0 to 10000, got ${n}`);
      return Array.from({ length: Math.trunc(n) }, () => str(a[0])).join(str(a[2]));
    },
  },
};
