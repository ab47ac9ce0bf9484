/**
 * The boundary check catches what it is there for: a tree with planted violations (each rule
 * once) is refused with every offending import named (a forbidden chain with every hop), comments
 * and strings are not imports, and this repository passes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { specifiersOf } from './imports.ts';
import { checkBoundaries, type Violation } from './rules.ts';

const REPO = new URL('../..', import.meta.url).pathname;
const CHECK = new URL('./check.ts', import.meta.url).pathname;

const PLANTED: Record<string, string> = {
  'schemas/common.ts': `export const A = 1;\n`,
  'src/lib/helper.ts': `import { A } from '../../schemas/common.ts';\nexport const h = A;\n`,
  'src/market/index.ts': `export { inner } from './inner.ts';\n`,
  'src/market/inner.ts': `import type { KV } from '@nats-io/kv';\nexport const inner = 1;\nexport type K = KV;\n`,
  'src/backtest/index.ts': `import { inner } from '../market/index.ts';\nexport const engine = inner;\n`,
  'src/bus/index.ts': `import { Kvm } from '@nats-io/kv';\nexport const kvm = Kvm;\n`,
  'src/store/p.ts': `import { q } from './q.ts';\nexport const p = () => q;\n`,
  'src/store/q.ts': `import { p } from './p.ts';\nexport const q = () => p;\n`,
  'src/edge/index.ts': [
    `import { inner } from '../market/inner.ts';`,
    `import { tool } from '../mcp/index.ts';`,
    `// import { nothing } from '../actors/none.ts';`,
    `const text = "import x from '../kernel/index.ts'";`,
    `export const app = [inner, tool, text];`,
  ].join('\n'),
  'src/mcp/index.ts': `import type { app } from '../edge/index.ts';\nexport const tool = 1;\nexport type App = typeof app;\n`,
  'src/kernel/index.ts': `export const host = 1;\n`,
  'actors/alpha/index.ts': `import { app } from '../../src/edge/index.ts';\nimport { beta } from '../beta/index.ts';\nimport { host } from '../../src/kernel/index.ts';\nexport const alpha = [app, beta, host];\n`,
  'actors/beta/index.ts': `export const beta = 1;\n`,
  // The live scoring path reaching the Pine interpreter through another folder (each hop its own import).
  'src/scoring/index.ts': `import { rsi } from '../indicators/index.ts';\nexport const score = rsi;\n`,
  'src/indicators/index.ts': `export { rsi } from './rsi.ts';\n`,
  'src/indicators/rsi.ts': `import { run } from '../pine/index.ts';\nexport const rsi = run;\n`,
  'src/pine/index.ts': `export const run = 1;\n`,
};

describe('boundary check', () => {
  let root: string;
  let found: Violation[];

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'sf-boundaries-'));
    for (const [path, text] of Object.entries(PLANTED)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    found = checkBoundaries(root);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  const has = (rule: Violation['rule'], at: string, text: RegExp) =>
    assert.ok(
      found.some((v) => v.rule === rule && v.at === at && text.test(v.message)),
      `${rule} at ${at} ${text}; found:\n${found.map((v) => `${v.rule} ${v.at} ${v.message}`).join('\n')}`,
    );

  it('refuses an import against the "may import" table, naming it', () => {
    has('layering', 'src/backtest/index.ts:1', /'\.\.\/market\/index\.ts': src\/backtest may not import src\/market/);
    has('layering', 'src/mcp/index.ts:1', /src\/mcp may not import src\/edge/);
  });

  it('refuses an actor importing the edge or another actor', () => {
    has('layering', 'actors/alpha/index.ts:1', /actors\/alpha may not import src\/edge/);
    has('layering', 'actors/alpha/index.ts:2', /actors\/alpha may not import actors\/beta/);
    assert.ok(!found.some((v) => v.at === 'actors/alpha/index.ts:3'), 'the kernel through its index is fine');
  });

  it('refuses an import around a folder’s index.ts', () => {
    has('barrel', 'src/edge/index.ts:1', /'\.\.\/market\/inner\.ts' around src\/market\/index\.ts/);
  });

  it('refuses the NATS client outside src/bus', () => {
    has('nats-client', 'src/market/inner.ts:1', /'@nats-io\/kv'/);
    assert.ok(!found.some((v) => v.at.startsWith('src/bus/')), 'src/bus may use it');
  });

  it('finds cycles between files and between folders', () => {
    has('file-cycle', 'src/store/p.ts:1', /src\/store\/p\.ts ⇄ src\/store\/q\.ts/);
    has('folder-cycle', 'src/edge/index.ts:2', /src\/edge ⇄ src\/mcp: src\/edge → src\/mcp .*src\/mcp → src\/edge/);
  });

  it('refuses a unit that must never load another reaching it through others, naming the chain', () => {
    has(
      'reach',
      'src/scoring/index.ts:1',
      /src\/scoring reaches src\/pine \(the live scoring path does not load the Pine interpreter\): src\/scoring\/index\.ts → src\/indicators\/index\.ts → src\/indicators\/rsi\.ts → src\/pine\/index\.ts$/,
    );
  });

  it('reads imports, not comments or strings', () => {
    assert.deepEqual(
      specifiersOf(PLANTED['src/edge/index.ts']!).map((s) => s.specifier),
      ['../market/inner.ts', '../mcp/index.ts'],
    );
    assert.deepEqual(
      specifiersOf(
        `export {\n  a,\n  type B,\n} from './x.ts';\nimport './side.ts';\nconst m = await import('./lazy.ts');\nBuffer.from('abc');\n`,
      ).map((s) => [s.specifier, s.line]),
      [
        ['./x.ts', 1],
        ['./side.ts', 5],
        ['./lazy.ts', 6],
      ],
    );
  });

  it('fails the run from the command line, naming the offending import', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', CHECK, root], { encoding: 'utf8' });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /layering: src\/backtest\/index\.ts:1: src\/backtest\/index\.ts imports '\.\.\/market\/index\.ts'/);
  });

  it('this repository follows the layering', () => {
    assert.deepEqual(checkBoundaries(REPO), []);
  });
});
