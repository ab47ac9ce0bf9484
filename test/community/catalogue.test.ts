/**
 * community.json as built from the index: every entry with its metrics and lineage ids and no
 * code, one ETag per content (the same in every process), a new one after any change, and the
 * If-None-Match rules.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { CatalogueBuilder, CommunityIndex, CommunityStore, gzipEtag, matchesEtag } from '../../src/community/index.ts';
import { Catalogue } from '../../schemas/community.ts';
import { startNats, until, type TestNats } from '../helpers/nats.ts';
import { entryRecord, liveRecord } from './fixtures.ts';

describe('community.json', () => {
  let nats: TestNats;
  let store: CommunityStore;
  let index: CommunityIndex;
  let catalogue: CatalogueBuilder;
  let following: { stop(): void };

  before(async () => {
    nats = await startNats('catalogue');
    store = await CommunityStore.open(nats.bus);
    await store.createEntry(entryRecord({ id: 1, returns: [0.01, 0.02] }));
    await store.createEntry(entryRecord({ id: 2, returns: [0.01], parent: 1 }));
    await store.createEntry(entryRecord({ id: 3, returns: [0.03], parent: 2 }));
    index = new CommunityIndex();
    catalogue = new CatalogueBuilder(index);
    following = await store.follow(index);
  });
  after(async () => {
    following.stop();
    await nats.close();
  });

  const read = () => Catalogue.parse(JSON.parse(catalogue.current().body().toString('utf8')));

  it('lists every entry, ascending, with lineage ids and metrics', () => {
    const doc = read();
    assert.equal(doc.count, 3);
    assert.deepEqual(
      doc.entries.map((e) => e.community_id),
      [1, 2, 3],
    );
    assert.deepEqual(
      doc.entries.map((e) => [e.parent_id, e.root_id, e.children]),
      [
        [null, 1, [2]],
        [1, 1, [3]],
        [2, 1, []],
      ],
    );
    assert.equal(doc.entries[0]!.test.n_trades, 2);
    assert.equal(doc.entries[0]!.live, null);
  });

  it('carries no code: no strategy text, no model config, no features', () => {
    const text = catalogue.current().body().toString('utf8');
    for (const word of ['feature_engineering', 'strategy_config', 'model_params', 'def ', '"features"', '"config"', 'artifact']) {
      assert.ok(!text.includes(word), `community.json contains ${word}`);
    }
  });

  it('keeps its ETag while nothing changes, and gives the same one to another process’s builder', async () => {
    const first = catalogue.current();
    assert.equal(catalogue.current(), first, 'not rebuilt');
    const otherIndex = new CommunityIndex();
    const other = await store.follow(otherIndex);
    try {
      assert.equal(new CatalogueBuilder(otherIndex).current().etag, first.etag);
    } finally {
      other.stop();
    }
  });

  it('changes its ETag and content when an entry, a live record or a fork changes', async () => {
    const e0 = catalogue.current().etag;
    await store.kv.live.put('2', liveRecord([0.01, 0.02, -0.01]));
    await until('live record of 2 indexed', () => index.liveOf(2) !== undefined);
    const e1 = catalogue.current().etag;
    assert.notEqual(e1, e0);
    assert.equal(read().entries[1]!.live?.n_trades, 3);

    await store.createFork({ user_id: 900, community_id: 3, model_name: 'f', created_at: 1 }, 'code');
    await until('fork of 3 indexed', () => index.forksOf(3) === 1);
    const e2 = catalogue.current().etag;
    assert.notEqual(e2, e1);
    assert.equal(read().entries[2]!.forks, 1);

    await store.createEntry(entryRecord({ id: 4, returns: [0.01], parent: 3 }));
    await until('entry 4 indexed', () => index.size === 4);
    assert.notEqual(catalogue.current().etag, e2);
    assert.deepEqual(read().entries[2]!.children, [4], 'the parent’s children list follows');
    assert.equal(read().entries[3]!.root_id, 1);
  });

  it('matches If-None-Match: exact, weak, in a list, or *, in either representation', () => {
    const etag = '"abc"';
    assert.equal(gzipEtag(etag), '"abc-gz"');
    assert.equal(matchesEtag(undefined, etag), false);
    assert.equal(matchesEtag('"abc"', etag), true);
    assert.equal(matchesEtag('W/"abc"', etag), true);
    assert.equal(matchesEtag('"abc-gz"', etag), true);
    assert.equal(matchesEtag('W/"abc-gz"', etag), true);
    assert.equal(matchesEtag('"x", "abc"', etag), true);
    assert.equal(matchesEtag('*', etag), true);
    assert.equal(matchesEtag('"abd"', etag), false);
    assert.equal(matchesEtag('"abc-gzip"', etag), false);
    assert.equal(matchesEtag('abc', etag), false);
  });

  it('gzips the same body once', async () => {
    const current = catalogue.current();
    const packed = await current.gzipped();
    assert.equal(gunzipSync(packed).toString('utf8'), current.body().toString('utf8'));
    assert.equal(await current.gzipped(), packed);
  });
});
