/**
 * Reads the import edges of TypeScript sources without a compiler: comments and the insides of
 * strings are blanked first, so only real `import … from`, `export … from`, `import '…'` and
 * `import('…')` specifiers remain (type-only imports included: layering covers types too).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

export interface ImportEdge {
  /** The importing file, relative to the root, with `/` separators. */
  from: string;
  /** The imported file relative to the root, or the bare package name (`@nats-io/kv`). */
  to: string;
  /** The specifier as written. */
  specifier: string;
  line: number;
}

/** Blanks comments and the contents of string/template literals, keeping offsets and line breaks. */
export function blankCommentsAndStrings(src: string): string {
  const out = src.split('');
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    const next = src[i + 1];
    if (c === '/' && next === '/') {
      const end = src.indexOf('\n', i);
      const stop = end < 0 ? src.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end < 0 ? src.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < src.length && src[j] !== c) j += src[j] === '\\' ? 2 : 1;
      // Keeps the quotes, blanks what is between: a specifier is read back from the original.
      blank(i + 1, Math.min(j, src.length));
      i = j + 1;
    } else i++;
  }
  return out.join('');
}

const SPECIFIER = /\b(?:import|export)\b[^;'"`]*?\bfrom\s*(['"])|\bimport\s*(['"])|\bimport\s*\(\s*(['"])/g;

/** The module specifiers of one source text, with their line numbers. */
export function specifiersOf(src: string): { specifier: string; line: number }[] {
  const code = blankCommentsAndStrings(src);
  const found: { specifier: string; line: number }[] = [];
  for (const m of code.matchAll(SPECIFIER)) {
    const quoteAt = m.index + m[0].length - 1;
    const close = src.indexOf(src[quoteAt]!, quoteAt + 1);
    if (close < 0) continue;
    const line = code.slice(0, m.index).split('\n').length;
    found.push({ specifier: src.slice(quoteAt + 1, close), line });
  }
  return found;
}

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
}

const slash = (p: string) => p.split(sep).join('/');

/** Every import edge of the `.ts` files under `dirs` (relative to `root`). */
export function importEdges(root: string, dirs: readonly string[]): ImportEdge[] {
  const files: string[] = [];
  for (const d of dirs) {
    try {
      walk(resolve(root, d), files);
    } catch {
      // A folder that does not exist has no imports.
    }
  }
  const edges: ImportEdge[] = [];
  for (const file of files.sort()) {
    const from = slash(relative(root, file));
    for (const { specifier, line } of specifiersOf(readFileSync(file, 'utf8'))) {
      const to = specifier.startsWith('.') ? slash(relative(root, resolve(dirname(file), specifier))) : packageName(specifier);
      edges.push({ from, to, specifier, line });
    }
  }
  return edges;
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`; `node:fs` stays. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}
