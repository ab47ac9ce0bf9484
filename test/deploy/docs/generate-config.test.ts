/**
 * The documentation stays true: the committed configuration reference is what the generator makes
 * of schemas/config.ts now, and every relative link in the README and the docs it leads to reaches
 * a file (and, with a #fragment, a heading in it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { groupsOf, REFERENCE_PATH, renderConfigReference, SCHEMA_PATH } from '../../../deploy/docs/generate-config.ts';
import { EnvConfig } from '../../../schemas/config.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

test('deploy/docs/configuration.md is what the generator makes of schemas/config.ts now', () => {
  const committed = readFileSync(REFERENCE_PATH, 'utf8');
  assert.ok(committed === renderConfigReference(), 'deploy/docs/configuration.md is stale: run `npm run docs:config` and commit it');
});

test('the reference names every variable of the schema, each in one group, with a description', () => {
  const groups = groupsOf(readFileSync(SCHEMA_PATH, 'utf8'));
  const listed = [...groups.values()].flat();
  assert.deepEqual([...listed].sort(), Object.keys(EnvConfig.shape).sort());
  const reference = renderConfigReference();
  for (const key of listed) {
    const row = reference.split('\n').find((l) => l.startsWith(`| \`${key}\` |`));
    assert.ok(row, `${key} has no row`);
    assert.ok(!row.endsWith('|  |'), `${key} has no description: add .describe('…') to it in schemas/config.ts`);
  }
});

test('a variable the schema cannot place in a group is refused with what to do', () => {
  const source = readFileSync(SCHEMA_PATH, 'utf8').replace(/\n(\s+)PORT:/, '\n$1/* */ PORT:');
  assert.throws(() => renderConfigReference(source), /cannot place PORT in a group/);
});

/** The README and the documents written for it (per-folder READMEs, deploy/docs). */
const DOCS = [
  'README.md',
  'deploy/OPERATIONS.md',
  'deploy/docs/DESIGN.md',
  'deploy/docs/service-interface.md',
  'deploy/docs/configuration.md',
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const base = anchorOf(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

function linksOf(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/i.test(l));
}

/** Files linked from the README, and the README files they are (one hop: the per-folder pages). */
function docsToCheck(): string[] {
  const files = new Set(DOCS);
  for (const link of linksOf(readFileSync(join(ROOT, 'README.md'), 'utf8'))) {
    const path = link.split('#')[0]!;
    if (path.endsWith('.md')) files.add(relative(ROOT, join(ROOT, path)));
  }
  return [...files];
}

test('every relative link in the README and the docs it leads to reaches a file and heading', () => {
  const broken: string[] = [];
  for (const doc of docsToCheck()) {
    if (!existsSync(join(ROOT, doc))) {
      broken.push(`${doc} (linked from README.md) does not exist`);
      continue;
    }
    const text = readFileSync(join(ROOT, doc), 'utf8');
    for (const link of linksOf(text)) {
      const [path, fragment] = link.split('#') as [string, string | undefined];
      const target = path ? join(ROOT, dirname(doc), path) : join(ROOT, doc);
      if (!existsSync(target)) broken.push(`${doc}: ${link} (no such file)`);
      else if (fragment && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(fragment)) {
        broken.push(`${doc}: ${link} (no heading #${fragment} in ${relative(ROOT, target)})`);
      }
    }
  }
  assert.deepEqual(broken, [], 'fix or remove these links');
});
