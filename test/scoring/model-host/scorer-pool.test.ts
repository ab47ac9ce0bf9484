// The scoring processes as the service uses them: real processes, real onnxruntime, models
// trained and exported as the trainer does, and hostile models that checkModel would refuse
// (these tests load them through the pool directly: the process's limits are the second wall).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ModelScoringError, ScorerPool } from '../../../src/scoring/model-host/scorer-pool.ts';
import { honestModel, hostileModels, inProcessScorer, type HonestModel } from './models.ts';

let forest: HonestModel;
let boosted: HonestModel;
let hostile: { hang: Uint8Array; balloon: Uint8Array };

before(async () => {
  [forest, boosted] = await Promise.all([honestModel('RandomForestClassifier'), honestModel('XGBClassifier')]);
  hostile = await hostileModels(forest.nFeatures);
});

const pools: ScorerPool[] = [];
after(() => Promise.all(pools.map((p) => p.close())));
function pool(options: ConstructorParameters<typeof ScorerPool>[0] = {}): ScorerPool {
  const p = new ScorerPool(options);
  pools.push(p);
  return p;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const row = (m: HonestModel, i: number) => m.X.slice(i * m.nFeatures, (i + 1) * m.nFeatures);

test('scores exactly what onnxruntime scores in this process, whole spans and single rows alike', { timeout: 120_000 }, async () => {
  const scorers = pool();
  for (const m of [forest, boosted]) {
    const model = await scorers.load(m.bytes, 1);
    assert.equal(model.nFeatures, m.nFeatures);
    assert.equal(model.nClasses, 2);
    const reference = await inProcessScorer(m.bytes, m.nFeatures);
    const want = await reference.probabilities(m.X, m.rows);
    assert.deepEqual(await model.probabilities(m.X, m.rows), want);
    const up = await model.score(m.X, m.rows);
    for (let r = 0; r < m.rows; r++) assert.equal(up[r], want[r * 2 + 1]);
    // Live scores one row per bar: 200 calls in one turn go as one message and come back each its own.
    const singles = await Promise.all(Array.from({ length: 200 }, (_, i) => model.score(row(m, i), 1)));
    for (let i = 0; i < 200; i++) {
      const one = await reference.probabilities(row(m, i), 1);
      assert.equal(singles[i]![0], one[1]);
    }
    await model.close();
    await reference.release();
  }
});

test('X of the wrong length is refused before anything is sent', async () => {
  const model = await pool({ processes: 1 }).load(forest.bytes);
  await assert.rejects(model.score(new Float32Array(forest.nFeatures + 1), 1), /expected 1 rows x 9 features/);
  assert.equal((await model.score(new Float32Array(0), 0)).length, 0);
});

test(
  'a hanging model fails its own run at its deadline while another user scores on the same pool and the event loop keeps turning',
  { timeout: 120_000 },
  async () => {
    const scorers = pool({ runMs: 3000 });
    const evil = await scorers.load(hostile.hang, 'evil');
    const honest = await scorers.load(forest.bytes, 'honest');
    const want = await honest.score(forest.X, forest.rows);
    let ticks = 0;
    const interval = setInterval(() => ticks++, 100);
    const hung = evil.score(row(forest, 0), 1).then(
      () => assert.fail('the hanging run answered'),
      (err: Error) => err,
    );
    // The neighbour keeps scoring while the hang lasts.
    let settled = false;
    void hung.finally(() => (settled = true));
    let neighbourRuns = 0;
    while (!settled) {
      assert.deepEqual(await honest.score(forest.X, forest.rows), want);
      neighbourRuns++;
      await new Promise((r) => setTimeout(r, 200));
    }
    clearInterval(interval);
    const err = await hung;
    assert.ok(err instanceof ModelScoringError, String(err));
    assert.match(err.message, /ran past its 3 s limit/);
    assert.ok(neighbourRuns >= 3, `the neighbour scored ${neighbourRuns} times during the hang`);
    // A 100 ms timer fired through the ~3 s hang (generous: a frozen loop gives 0 or 1).
    assert.ok(ticks >= 10, `${ticks} ticks of a 100 ms timer during the hang`);
  },
);

test(
  "the other runs of a killed process's batch are run again on a fresh one, whose models are loaded again from the bytes kept",
  { timeout: 120_000 },
  async () => {
    const scorers = pool({ processes: 1, runMs: 2000 });
    const honest = await scorers.load(forest.bytes, 'someone');
    const want = await honest.score(forest.X, forest.rows);
    const [before] = scorers.pids;
    const evil = await scorers.load(hostile.hang, 'someone');
    // Same owner, same turn: one message, the hang first.
    const [hung, after] = await Promise.allSettled([evil.score(row(forest, 0), 1), honest.score(forest.X, forest.rows)]);
    assert.equal(hung.status, 'rejected');
    assert.ok((hung as PromiseRejectedResult).reason instanceof ModelScoringError);
    assert.equal(after.status, 'fulfilled');
    assert.deepEqual((after as PromiseFulfilledResult<Float32Array>).value, want);
    assert.notEqual(scorers.pids[0], before);
    assert.equal(alive(before!), false, 'the hung process is gone');
  },
);

test(
  "another user's batch sent behind a hanging one on the same process runs again on the fresh process",
  { timeout: 120_000 },
  async () => {
    const scorers = pool({ processes: 1, runMs: 2000 });
    const honest = await scorers.load(forest.bytes, 'neighbour');
    const want = await honest.score(forest.X, forest.rows);
    const evil = await scorers.load(hostile.hang, 'evil');
    // One turn: both owners' batches go to the one process, the neighbour's queued behind the hang.
    const [hung, after] = await Promise.allSettled([evil.score(row(forest, 0), 1), honest.score(forest.X, forest.rows)]);
    assert.equal(hung.status, 'rejected');
    assert.match(String((hung as PromiseRejectedResult).reason), /ran past its 2 s limit/);
    assert.equal(after.status, 'fulfilled');
    assert.deepEqual((after as PromiseFulfilledResult<Float32Array>).value, want);
  },
);

test('a model that keeps stopping its process is refused at once from then on', { timeout: 120_000 }, async () => {
  const scorers = pool({ processes: 1, runMs: 1000 });
  const evil = await scorers.load(hostile.hang, 'evil');
  for (let i = 0; i < 2; i++) await assert.rejects(evil.score(row(forest, 0), 1), /ran past its 1 s limit/);
  await assert.rejects(evil.score(row(forest, 0), 1), /refused: it kept stopping its scoring process/);
  await assert.rejects(scorers.load(hostile.hang, 'evil'), /refused/);
  // Everyone else's models still load and score.
  const honest = await scorers.load(forest.bytes, 'honest');
  assert.equal((await honest.score(forest.X, forest.rows)).length, forest.rows);
});

test(
  "a model that balloons fails alone within the process's memory; the service's memory does not grow",
  { timeout: 120_000 },
  async () => {
    const scorers = pool({ processes: 1, memoryMb: 512 });
    const honest = await scorers.load(forest.bytes, 'honest');
    const want = await honest.score(forest.X, forest.rows);
    const rss = process.memoryUsage().rss;
    const evil = await scorers.load(hostile.balloon, 'evil');
    // 4 GiB asked for at run time: onnxruntime cannot have it under the process's RLIMIT_DATA.
    await assert.rejects(evil.score(row(forest, 0), 1), ModelScoringError);
    const grown = (process.memoryUsage().rss - rss) / 2 ** 20;
    assert.ok(grown < 100, `the service grew by ${Math.round(grown)} MB`);
    assert.deepEqual(await honest.score(forest.X, forest.rows), want);
  },
);

test('a process that dies (a crash, an abort) is replaced and its models are loaded again', { timeout: 120_000 }, async () => {
  const scorers = pool({ processes: 2 });
  const honest = await scorers.load(forest.bytes, 'honest');
  const want = await honest.score(forest.X, forest.rows);
  const pids = scorers.pids;
  for (const pid of pids) process.kill(pid, 'SIGSEGV');
  for (let i = 0; i < 100 && scorers.pids.some((p) => pids.includes(p)); i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(scorers.pids.length, 2);
  assert.ok(scorers.pids.every((p) => !pids.includes(p) && alive(p)));
  assert.deepEqual(await honest.score(forest.X, forest.rows), want);

  // Killed while it scores: that run fails, and the pool goes on.
  const slow = await scorers.load(hostile.hang, 'evil');
  const running = slow.score(row(forest, 0), 1);
  await new Promise((r) => setTimeout(r, 500));
  const aborted = scorers.pids;
  for (const pid of aborted) process.kill(pid, 'SIGABRT');
  await assert.rejects(running, /crashed its scoring process or ran out of memory/);
  // The other aborted process may not have been seen exiting yet: a run sent to it now would be the
  // run its death is blamed on. The pool goes on once both are replaced.
  for (let i = 0; i < 100 && scorers.pids.some((p) => aborted.includes(p)); i++) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(await honest.score(forest.X, forest.rows), want);
});

test('close() stops every process; later calls fail as unavailable', { timeout: 60_000 }, async () => {
  const scorers = new ScorerPool({ processes: 2 });
  const honest = await scorers.load(forest.bytes);
  const pids = scorers.pids;
  await scorers.close();
  assert.ok(pids.every((p) => !alive(p)));
  await assert.rejects(honest.score(forest.X, forest.rows), /shutting down/);
  await assert.rejects(scorers.load(forest.bytes), /shutting down/);
});

test('identical live calls of one owner share one inference: the same model bytes on the same row, waiting or running at once', async () => {
  const scorers = pool({ processes: 1 });
  const reference = await inProcessScorer(forest.bytes, forest.nFeatures);
  // Fifty deployments of byte-identical models (clones) of one user, and the same model of another user.
  const clones = await Promise.all(Array.from({ length: 50 }, () => scorers.load(forest.bytes, 1)));
  const other = await scorers.load(forest.bytes, 2);
  const before = scorers.stats();
  const [same, second, theirs] = await Promise.all([
    Promise.all(clones.map((m) => m.score(row(forest, 3), 1))),
    clones[0]!.score(row(forest, 4), 1),
    other.score(row(forest, 3), 1),
  ]);
  const after = scorers.stats();
  assert.equal(after.runs - before.runs, 3, 'one run for the clones’ row, one for another row, one for the other owner');
  assert.equal(after.shared - before.shared, 49);
  const want = await reference.probabilities(row(forest, 3), 1);
  for (const p of same) assert.equal(p[0], want[1]);
  assert.equal(theirs[0], want[1]);
  assert.equal(second[0], (await reference.probabilities(row(forest, 4), 1))[1]);
  // Each caller has its own answer: changing one changes no other.
  same[0]![0] = -1;
  assert.equal(same[1]![0], want[1]);
  // Once answered, the same call runs again (nothing is cached past the calls at once).
  await clones[1]!.score(row(forest, 3), 1);
  assert.equal(scorers.stats().runs - after.runs, 1);
  for (const m of [...clones, other]) await m.close();
  await reference.release();
});
