/**
 * Writes deploy/docs/configuration.md, the reference of every environment variable, from the one
 * schema that parses them (schemas/config.ts): name, default and description of each, grouped by
 * the schema's own `// ---- group ----` comments. Run it with `npm run docs:config`; a test fails
 * when the committed file differs from what this produces, so the reference cannot drift.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EnvConfig } from '../../schemas/config.ts';

export const SCHEMA_PATH = fileURLToPath(new URL('../../schemas/config.ts', import.meta.url));
export const REFERENCE_PATH = fileURLToPath(new URL('./configuration.md', import.meta.url));

/** The variables before the schema's first group comment. */
const FIRST_GROUP = 'the service, its infrastructure, accounts, markets and the strategy runtime';

interface ZodLike {
  description?: string;
  _zod: { def: { type: string; defaultValue?: unknown; innerType?: ZodLike; entries?: Record<string, string> } };
}

/** Each variable's group, in schema order, read from the group comments of the schema's source. */
export function groupsOf(source: string): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  let group = FIRST_GROUP;
  let inSchema = false;
  // The object's own keys sit at the first key's indentation (whatever the formatter made of it);
  // its closing `})` sits left of them.
  let indent: number | null = null;
  for (const line of source.split('\n')) {
    if (/^export const EnvConfig = /.test(line)) inSchema = true;
    if (!inSchema) continue;
    const close = /^(\s*)\}\)/.exec(line);
    if (close && indent !== null && close[1]!.length < indent) break;
    const heading = /^\s*\/\/ -{2,} (.+?) -{2,}\s*$/.exec(line);
    if (heading) group = heading[1]!;
    const key = /^(\s+)([A-Z][A-Z0-9_]*):/.exec(line);
    if (!key) continue;
    indent ??= key[1]!.length;
    if (key[1]!.length === indent) (groups.get(group) ?? groups.set(group, []).get(group)!).push(key[2]!);
  }
  return groups;
}

/** Defaults computed at start from the machine (their description says what they are). */
function computedDefault(source: string, name: string): boolean {
  const own = new RegExp(`\\n(\\s+)${name}:`).exec(source);
  if (!own) return false;
  // Its text runs to the next key at its indentation, or to the object's end.
  const rest = source.slice(own.index + own[0].length);
  const next = rest.search(new RegExp(`\\n${own[1]}[A-Z][A-Z0-9_]*:|\\n\\s*\\}\\)`));
  return rest.slice(0, next < 0 ? undefined : next).includes('.default(() =>');
}

function shown(value: unknown): string {
  if (Array.isArray(value)) return value.length ? value.join(',') : '(empty)';
  if (value === '') return '(empty)';
  return String(value);
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

/** Default, allowed values and description of one variable, as table cells. */
function describe(source: string, name: string, field: ZodLike): { dflt: string; allowed: string; text: string } {
  let inner: ZodLike | undefined = field;
  let dflt = '—';
  while (inner) {
    const def: ZodLike['_zod']['def'] = inner._zod.def;
    if (def.type === 'default') dflt = computedDefault(source, name) ? 'computed (see description)' : `\`${shown(def.defaultValue)}\``;
    if (def.type === 'enum')
      return {
        dflt,
        allowed: Object.values(def.entries ?? {})
          .map((v) => `\`${v}\``)
          .join(', '),
        text: field.description ?? '',
      };
    inner = def.innerType;
  }
  return { dflt, allowed: '', text: field.description ?? '' };
}

/** The whole reference as markdown. */
export function renderConfigReference(source = readFileSync(SCHEMA_PATH, 'utf8')): string {
  const shape = EnvConfig.shape as unknown as Record<string, ZodLike>;
  const groups = groupsOf(source);
  const grouped = new Set([...groups.values()].flat());
  const missing = Object.keys(shape).filter((k) => !grouped.has(k));
  if (missing.length)
    throw new Error(
      `schemas/config.ts: cannot place ${missing.join(', ')} in a group; keep each key on a line of its own, at the indentation of the first`,
    );
  const out = [
    '# Configuration',
    '',
    '<!-- Generated from schemas/config.ts by deploy/docs/generate-config.ts. Do not edit: run `npm run docs:config`. -->',
    '',
    'All from the environment, parsed by one zod schema ([`schemas/config.ts`](../../schemas/config.ts)). A bad value stops',
    'the start with a message naming each variable, its value and what is allowed. Each variable below is',
    "listed with its default (— = unset) and what it does; the groups are the schema's own.",
    '',
  ];
  for (const [group, keys] of groups) {
    out.push(`## ${group[0]!.toUpperCase()}${group.slice(1)}`, '', '| variable | default | allowed | meaning |', '|---|---|---|---|');
    for (const key of keys) {
      const { dflt, allowed, text } = describe(source, key, shape[key]!);
      out.push(`| \`${key}\` | ${cell(dflt)} | ${cell(allowed)} | ${cell(text)} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(REFERENCE_PATH, renderConfigReference());
  process.stdout.write(`wrote ${REFERENCE_PATH}\n`);
}
