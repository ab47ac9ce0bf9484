import type { RowError } from './types.ts';

/** A numeric cell; NaN for an empty one (Number('') would be 0 and pass as a price of zero). */
export const num = (cell: string | undefined): number => (cell === undefined || cell.length === 0 ? NaN : Number(cell));

/** Blank or whitespace-only lines carry no tick and are skipped, not reported. */
export const isBlank = (text: string): boolean => text.length === 0 || (text.charCodeAt(0) <= 32 && text.trim().length === 0);

/** A header line compared loosely: case and spaces around commas do not matter. */
export const headerKey = (text: string): string =>
  text
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .join(',');

export const wrongColumnCount = (expected: number, layout: string, found: number): RowError => ({
  error: `expected ${expected} columns (${layout}), found ${found}`,
});

/** Keeps a cell short enough to quote in a reason. */
export const quote = (cell: string | undefined): string => {
  const c = cell ?? '';
  return `'${c.length > 40 ? `${c.slice(0, 40)}…` : c}'`;
};

/** Checks each volume column on its own before they are summed (a sum would hide −1 + 1); null when all are fine. */
export function badVolume(volumes: readonly number[], names: readonly string[]): RowError | null {
  for (let i = 0; i < volumes.length; i++) {
    const v = volumes[i]!;
    if (!(v >= 0 && v < Infinity)) return { error: `${names[i]} ${v} is not a non-negative finite number` };
  }
  return null;
}
