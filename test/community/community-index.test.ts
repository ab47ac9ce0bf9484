/**
 * The community's state on a real nats-server and the in-memory index every edge process keeps of
 * it: entries, forks and live records written to KV (by this process or any other) reach the
 * index; children, fork counts and removal follow.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CommunityIndex, CommunityStore, shareKey } from '../../src/community/index.ts';
import { startNats, until, type TestNats } from '../helpers/nats.ts';
import { entryRecord, liveRecord } from './fixtures.ts';

describe('community store and index', () => {
  let nats: TestNats;
  let store: CommunityStore;
  let index: CommunityIndex;
  let following: { stop(): void };

  before(async () => {
    nats = await startNats('community-index');
    store = await CommunityStore.open(nats.bus);
    // Entries that exist before the index starts are loaded by the time follow() resolves.
    await store.createEntry(entryRecord({ id: 1, user: 11, returns: [0.01, 0.02] }));
    await store.createEntry(entryRecord({ id: 2, user: 12, returns: [0.01], parent: 1 }));
    index = new CommunityIndex();
    following = await store.follow(index);
  });
  after(async () => {
    following.stop();
    await nats.close();
  });

  it('loads what exists before it resolves', () => {
    assert.equal(index.size, 2);
    assert.deepEqual(index.ids(), [1, 2]);
    assert.deepEqual(index.childrenOf(1), [2]);
    assert.equal(index.get(2)?.parent_id, 1);
    assert.equal(index.get(1)?.author, 'user11');
  });

  it('hands out sequential ids, never twice, even to concurrent callers', async () => {
    const ids = await Promise.all(Array.from({ length: 20 }, () => store.nextId()));
    assert.deepEqual(
      [...ids].sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });

  it('writes an entry once: a second create of the same id is refused and changes nothing', async () => {
    const again = entryRecord({ id: 1, user: 99, returns: [0.5], title: 'impostor' });
    assert.equal(await store.createEntry(again), false);
    assert.equal((await store.entry(1))?.author, 'user11');
  });

  it('claims a model artifact for one id: later claims get the first id back', async () => {
    const key = shareKey(11, '11_EURUSD_15min_Model 1', 'j7');
    assert.match(key, /^11\.[0-9a-f]+\.[0-9a-f]+$/);
    const claims = await Promise.all([store.claimShare(key, 41), store.claimShare(key, 42), store.claimShare(key, 43)]);
    assert.equal(new Set(claims).size, 1, `one winner: ${claims}`);
    assert.equal(await store.shareClaim(key), claims[0]);
    assert.equal(await store.shareClaim(shareKey(11, '11_EURUSD_15min_Model 1', 'j8')), null, 'a retrain is another artifact');
  });

  it('follows entries written by another process, with their children', async () => {
    const other = await CommunityStore.open(nats.bus);
    await other.createEntry(entryRecord({ id: 3, user: 13, returns: [0.02], parent: 1 }));
    await other.createEntry(entryRecord({ id: 4, user: 14, returns: [0.03], parent: 3 }));
    await until('entries 3 and 4 in the index', () => index.size === 4);
    assert.deepEqual(index.childrenOf(1), [2, 3]);
    assert.deepEqual(index.childrenOf(3), [4]);
    assert.deepEqual(index.childrenOf(4), []);
  });

  it('counts distinct forkers other than the author, once each', async () => {
    const fork = (user: number, entry: number) =>
      store.createFork({ user_id: user, community_id: entry, model_name: 'f', created_at: 1 }, 'code');
    assert.equal(await fork(21, 1), true);
    assert.equal(await fork(21, 1), false, 'the same user forking again');
    assert.equal(await fork(22, 1), true);
    assert.equal(await fork(11, 1), true, 'the author may fork their own entry');
    await until('three forkers of entry 1', () => index.hasForked(11, 1) && index.hasForked(22, 1) && index.hasForked(21, 1));
    assert.equal(index.forksOf(1), 2, 'the author’s own fork is not counted');
    assert.equal(index.forksOf(2), 0);
    assert.equal(await store.forkCode(21, 1), 'code');
    assert.equal((await store.fork(22, 1))?.community_id, 1);
    assert.equal(await store.fork(23, 1), null);
  });

  it('merges the tracker’s live records, a record with no bar scored counting as none', async () => {
    assert.equal(index.liveOf(1), undefined);
    await store.kv.live.put('1', liveRecord([0.01], 0));
    await store.kv.live.put('2', liveRecord([0.01, -0.02], 10));
    await until('live record of entry 2', () => index.liveOf(2) !== undefined);
    await until('live record of entry 1 seen', () => index.versions.live >= 2);
    assert.equal(index.liveOf(1), undefined, 'bars = 0: not tracked yet');
    assert.equal(index.liveOf(2)?.stats.n, 2);
  });

  it('tells listeners which entry changed; a repeated identical record changes nothing', async () => {
    const heard: number[] = [];
    index.onChange((id) => heard.push(id));
    const before = index.versions.entries;
    index.putEntry(entryRecord({ id: 4, user: 14, returns: [0.03], parent: 3 }));
    assert.equal(index.versions.entries, before);
    assert.equal(heard.length, 0);
    await store.kv.live.put('4', liveRecord([0.01]));
    await until('live change heard', () => heard.includes(4));
  });

  it('drops an entry deleted from KV, and unlinks it from its parent', async () => {
    await store.kv.entries.delete('4');
    await until('entry 4 gone', () => index.get(4) === undefined);
    assert.deepEqual(index.childrenOf(3), []);
    assert.deepEqual(index.ids(), [1, 2, 3]);
  });
});
