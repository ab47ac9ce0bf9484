/**
 * A shared entry whose frozen model fails the safety check is not retried for ever: the tracker
 * stops following it for good, the entry says so (GET /community/{id} → tracking_failure, in plain
 * words, the check's reason only in the log), and a restarted tracker does not open it again; an
 * honest entry beside it is tracked. Real nats-server, the real community bucket and object store,
 * the tracker host, the real check and scoring processes, models of the hostile corpus
 * (test/scoring/hostile-models/generate.py). No bars: the trackers load their model and stop there.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTrackerHost, type Tracker } from '../../../actors/tracker/index.ts';
import { openBlobStore, openBucket, type BlobStore, type JsonKv } from '../../../src/bus/index.ts';
import { CommunityIndex, entryView, TRACKING_REFUSED } from '../../../src/community/index.ts';
import { BarCache } from '../../../src/market/index.ts';
import { useScorers } from '../../../src/scoring/index.ts';
import type { CommunityEntryRecord } from '../../../schemas/community.ts';
import { Buckets, ObjectStores } from '../../../schemas/messages.ts';
import { modelRecord } from '../../community/fixtures.ts';
import { hostileModels, noBars, noRuntime } from '../../helpers/hostile-model-host.ts';
import { log, startNats, until, type TestNats } from '../../helpers/nats.ts';

const corpus = hostileModels('tracker-hostile');
const model = corpus.model;

const REFUSED = 1;
const HONEST = 2;

describe('a shared entry whose frozen model fails the safety check', () => {
  let nats: TestNats;
  let community: JsonKv<typeof Buckets.community.schema>;
  let files: BlobStore;
  let bars: BarCache;
  let stopScorers: () => Promise<void>;
  const warnings: Array<Record<string, unknown>> = [];

  before(async () => {
    nats = await startNats('tracker-shard');
    stopScorers = useScorers({ SCORER_PROCESSES: 1, SCORER_MEMORY_MB: 1024, SCORER_RUN_MS: 10_000, SCORER_LOAD_MS: 30_000 }, log);
    community = await openBucket(nats.bus, Buckets.community);
    files = await openBlobStore(nats.bus, ObjectStores.community);
    bars = new BarCache({ load: async () => noBars() }, nats.bus, log);
    await share(REFUSED, model('external_package_json'));
    await share(HONEST, model('honest'));
  });
  after(async () => {
    await stopScorers?.();
    await nats?.close();
    corpus.remove();
  });

  async function share(id: number, onnx: Uint8Array): Promise<void> {
    const entry: CommunityEntryRecord = {
      community_id: id,
      user_id: 7,
      author: 'user7',
      title: `Entry ${id}`,
      description: 'shared for the tracker test',
      parent_id: null,
      created_at: 1,
      model: modelRecord({ user_id: 7, model_name: `M${id}`, artifact: `j${id}` }),
      post_cutoff_stats: null,
    };
    await files.put(
      `${id}/strategy.py`,
      new TextEncoder().encode('def feature_engineering(df, close, open_, high, low):\n    return df\n'),
    );
    await files.put(`${id}/model.onnx`, onnx);
    await community.put(String(id), entry);
  }

  /** A tracker host as a process of the service runs it; its warnings are kept. */
  const host = async (): Promise<Tracker> => {
    const tracker = await buildTrackerHost({
      bus: nats.bus,
      bars,
      runtime: noRuntime,
      trades: { insert: async () => undefined, pnls: async () => new Map() },
      log: Object.assign(Object.create(log), { warn: (o: Record<string, unknown>) => void warnings.push(o) }),
      replicas: 1,
      maxWarmSessions: 0,
      renewMs: 300,
      backoff: { baseMs: 50, maxMs: 200 },
    });
    await tracker.host.start();
    return tracker;
  };
  const tracked = (tracker: Tracker) => tracker.shards().flatMap((s) => s.running().map((t) => t.communityId));
  const loads = () => warnings.filter((w) => w.community_id === REFUSED).length;
  /** The entry as GET /api/v1/community/{id} shows it, from what is stored. */
  const shown = async (id: number) => {
    const index = new CommunityIndex();
    index.putEntry((await community.get(String(id)))!.value);
    return entryView(index, index.get(id)!);
  };

  it('is not tracked, the entry says why in plain words, and it is not retried', { timeout: 60_000 }, async () => {
    const tracker = await host();
    try {
      await until('the entry marked', async () => (await community.get(String(REFUSED)))?.value.tracking_failure !== undefined);
      const view = await shown(REFUSED);
      assert.equal(view.tracking_failure?.reason, TRACKING_REFUSED);
      assert.match(view.tracking_failure!.reason, /^the shared model failed the safety check: .*live tracker/);
      assert.doesNotMatch(view.tracking_failure!.reason, /package\.json|external/, 'the check’s reason stays in the log');
      assert.ok(Date.parse(view.tracking_failure!.failed_at) > 0);
      // The reason is in the operators' log, once.
      assert.ok(warnings.some((w) => w.community_id === REFUSED && typeof w.reason === 'string'));
      // The honest entry beside it is tracked; the refused one is not, and is not retried.
      await until('the honest entry tracked', () => tracked(tracker).includes(HONEST), 30_000);
      const refusals = loads();
      // Retries start at 1 s (TrackerShard's backoff): three of them would have come by now.
      await new Promise((r) => setTimeout(r, 4000));
      await Promise.all(tracker.shards().map((s) => s.handle({ kind: 'entries' })));
      assert.deepEqual(tracked(tracker), [HONEST]);
      assert.equal(loads(), refusals, 'the model was not loaded again');
      assert.equal((await shown(HONEST)).tracking_failure, null);
    } finally {
      await tracker.stop();
    }
  });

  it('stays untracked across a restart: a new tracker host does not open it', { timeout: 60_000 }, async () => {
    const before = loads();
    const restarted = await host();
    try {
      await until('the honest entry tracked again', () => tracked(restarted).includes(HONEST), 30_000);
      await Promise.all(restarted.shards().map((s) => s.handle({ kind: 'entries' })));
      assert.deepEqual(tracked(restarted), [HONEST]);
      assert.equal(loads(), before, 'the frozen model was not even loaded');
      assert.equal((await shown(REFUSED)).tracking_failure?.reason, TRACKING_REFUSED);
    } finally {
      await restarted.stop();
    }
  });
});
