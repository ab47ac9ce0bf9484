/** color.from_gradient and the parts of a color (color.r/g/b/t); colors are '#rrggbb' or '#rrggbbaa' strings. */
import { num, type Builtin } from '../runtime/ctx.ts';
import type { Value } from '../runtime/values.ts';

interface Rgbt {
  r: number;
  g: number;
  b: number;
  /** Transparency 0–100, as Pine counts it. */
  t: number;
}

function parts(v: Value | undefined): Rgbt | null {
  if (typeof v !== 'string' || !/^#[0-9a-f]{6}([0-9a-f]{2})?$/i.test(v)) return null;
  const byte = (i: number) => parseInt(v.slice(i, i + 2), 16);
  return { r: byte(1), g: byte(3), b: byte(5), t: v.length === 9 ? Math.round((1 - byte(7) / 255) * 100) : 0 };
}

const hex2 = (x: number) =>
  Math.max(0, Math.min(255, Math.round(x)))
    .toString(16)
    .padStart(2, '0');
const colorOf = (c: Rgbt): string => `#${hex2(c.r)}${hex2(c.g)}${hex2(c.b)}${hex2(((100 - c.t) * 255) / 100)}`;

const part = (key: keyof Rgbt): Builtin => ({ params: ['color'], fn: (_c, a) => parts(a[0])?.[key] ?? NaN });

export const COLOR_FUNCTIONS: Record<string, Builtin> = {
  'color.r': part('r'),
  'color.g': part('g'),
  'color.b': part('b'),
  'color.t': part('t'),
  'color.from_gradient': {
    // The color at `value` between bottom_color (at bottom_value) and top_color (at top_value), clamped.
    params: ['value', 'bottom_value', 'top_value', 'bottom_color', 'top_color'],
    fn: (_c, a) => {
      const [x, lo, hi] = [num(a[0]), num(a[1]), num(a[2])];
      const from = parts(a[3]);
      const to = parts(a[4]);
      if (x !== x || lo !== lo || hi !== hi || !from || !to) return null;
      const f = hi === lo ? 1 : Math.min(1, Math.max(0, (x - lo) / (hi - lo)));
      const mix = (k: keyof Rgbt) => from[k] + (to[k] - from[k]) * f;
      return colorOf({ r: mix('r'), g: mix('g'), b: mix('b'), t: mix('t') });
    },
  },
};
