/** sourceMix: the one `source` a response reports for its rows. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sourceMix } from '../../src/market/source-mix.ts';
import { sourceCode } from '../../src/store/index.ts';

const synthetic = sourceCode('synthetic');
const imported = sourceCode('import');
const live = sourceCode('live');

describe('sourceMix', () => {
  it('names the one source all rows share', () => {
    assert.equal(sourceMix([synthetic, synthetic]), 'synthetic');
    assert.equal(sourceMix(Uint8Array.of(imported)), 'import');
    assert.equal(sourceMix([live, live, live]), 'live');
  });

  it('says mixed when the rows come from more than one source', () => {
    assert.equal(sourceMix([synthetic, imported]), 'mixed');
    assert.equal(sourceMix(Uint8Array.of(imported, live, imported)), 'mixed');
  });

  it('says none for no rows', () => {
    assert.equal(sourceMix([]), 'none');
    assert.equal(sourceMix([synthetic, imported], 1, 1), 'none');
  });

  it('reads only the stretch [from, to) of the codes', () => {
    const codes = Uint8Array.of(synthetic, synthetic, imported, imported, live);
    assert.equal(sourceMix(codes, 0, 2), 'synthetic');
    assert.equal(sourceMix(codes, 2, 4), 'import');
    assert.equal(sourceMix(codes, 1, 3), 'mixed');
    assert.equal(sourceMix(codes, 4), 'live');
  });
});
