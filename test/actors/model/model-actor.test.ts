/**
 * A deployment whose stored model fails the safety check fails for good: its actor marks it
 * failed (GET /deployed says so in plain words) and is not restarted, not even by a new actor host
 * after a restart; a retrained model deployed again runs. Real nats-server, the real model store,
 * deployments and actor host, the real check and scoring processes, a model of the hostile corpus
 * (test/scoring/hostile-models/generate.py). No bars: the actors load their model and stop there.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  buildModelHost,
  FeatureSources,
  firstSaveAfter,
  lastStoredBar,
  ModelActor,
  SAVE_EVERY_BARS,
  signalPublisher,
} from '../../../actors/model/index.ts';
import { ensureStream, openBucket, type Bus } from '../../../src/bus/index.ts';
import { ReplayClock } from '../../../src/lib/clock.ts';
import { isoFromMs } from '../../../src/lib/iso-time.ts';
import { StrategyRuntime } from '../../../src/sandbox/runtime-pool.ts';
import { buildDeployments, MODEL_REFUSED, type Deployments } from '../../../src/deployments/index.ts';
import { BarCache } from '../../../src/market/index.ts';
import { useScorers } from '../../../src/scoring/index.ts';
import { ModelStore } from '../../../src/training/index.ts';
import type { ActivityInput } from '../../../schemas/activity.ts';
import { SignalEvent } from '../../../schemas/live.ts';
import { Buckets, Streams } from '../../../schemas/messages.ts';
import type { Caller } from '../../../schemas/account-records.ts';
import { modelRecord } from '../../community/fixtures.ts';
import { CODE, cancelledEntry, oneSeries, START, type CancelledEntry } from '../../helpers/cancelled-entry.ts';
import { hostileModels, noBars, noRuntime } from '../../helpers/hostile-model-host.ts';
import { replayDeployment } from '../../helpers/real-market.ts';
import { log, startNats, until, type TestNats } from '../../helpers/nats.ts';

const corpus = hostileModels('model-actor-hostile');
const model = corpus.model;

const USER = 7;
const caller: Caller = { user_id: USER, username: 'user7', plan: 'pro' } as Caller;
const NAME = 'swapped';

describe('a deployment whose stored model fails the safety check', () => {
  let nats: TestNats;
  let models: ModelStore;
  let deployments: Deployments;
  let bars: BarCache;
  let stopScorers: () => Promise<void>;
  const warnings: Array<Record<string, unknown>> = [];

  before(async () => {
    nats = await startNats('model-actor');
    stopScorers = useScorers({ SCORER_PROCESSES: 1, SCORER_MEMORY_MB: 1024, SCORER_RUN_MS: 10_000, SCORER_LOAD_MS: 30_000 }, log);
    models = await ModelStore.open(nats.bus, await openBucket(nats.bus, Buckets.models), await openBucket(nats.bus, Buckets.signals));
    // As a model stored before the check existed, or changed since: deployed without a check at the door.
    deployments = await buildDeployments({
      bus: nats.bus,
      models,
      activity: { emit: async () => 0 },
      log,
      replicas: 1,
      checkWebhookTarget: async (url) => url,
      limits: { free: 3, pro: 3 },
    });
    bars = new BarCache({ load: async () => noBars() }, nats.bus, log);
  });
  after(async () => {
    await stopScorers?.();
    await nats?.close();
    corpus.remove();
  });

  const save = (artifact: string, onnx: Uint8Array) =>
    models.save(modelRecord({ user_id: USER, model_name: NAME, artifact }), {
      onnx,
      code: 'def feature_engineering(df, close, open_, high, low):\n    return df\n',
      results: { pred_signals: [] } as never,
    });

  /** An actor host as a process of the service runs it; its warnings are kept. */
  const host = () =>
    buildModelHost({
      bus: nats.bus,
      deployments: deployments.view,
      models,
      bars,
      runtime: noRuntime,
      activity: { emit: async () => 0 },
      log: Object.assign(Object.create(log), { warn: (o: Record<string, unknown>) => void warnings.push(o) }),
      replicas: 1,
      maxWarmSessions: 0,
      renewMs: 300,
      backoff: { baseMs: 50, maxMs: 200 },
    });
  const listed = async () => (await deployments.list(USER)).deployed.find((d) => d.model_name === NAME);

  it('is marked failed, says why in plain words, and its actor is not restarted', { timeout: 60_000 }, async () => {
    await save('j1', model('external_package_json'));
    const { deployment_id } = await deployments.deploy(caller, { model_name: NAME, channels: ['sse'] });
    const live = await host();
    await live.host.start();
    try {
      const failed = await until('the deployment marked failed', async () => (await listed())?.status === 'failed').then(listed);
      assert.equal(failed!.deployment_id, deployment_id);
      assert.equal(failed!.error, MODEL_REFUSED);
      assert.match(failed!.error!, /^the stored model failed the safety check: .*; retrain it/);
      assert.doesNotMatch(failed!.error!, /package\.json|external/, 'the check’s reason stays in the log');
      assert.ok(failed!.failed_at);
      // The reason is in the operators' log; the host let go of the actor and runs nothing for it.
      assert.ok(warnings.some((w) => w.deployment_id === deployment_id && typeof w.reason === 'string'));
      await until('the failed actor released', () => live.host.runningIds().length === 0);
      // Backoff of at most 200 ms: a restart loop would have started it again many times by now.
      const refusals = warnings.filter((w) => w.deployment_id === deployment_id).length;
      await new Promise((r) => setTimeout(r, 1500));
      await live.host.reconcile();
      assert.deepEqual(live.host.runningIds(), []);
      assert.deepEqual(live.host.stats(), { running: 0, claimed: 0, faults: 0 }, 'a refusal is no fault to retry');
      assert.equal(warnings.filter((w) => w.deployment_id === deployment_id).length, refusals, 'the model was not loaded again');
    } finally {
      await live.stop();
    }
  });

  it('stays failed across a restart: a new actor host does not run it', { timeout: 60_000 }, async () => {
    const before = warnings.length;
    const restarted = await host();
    await restarted.host.start();
    try {
      await new Promise((r) => setTimeout(r, 1000));
      await restarted.host.reconcile();
      assert.deepEqual(restarted.host.runningIds(), []);
      assert.equal((await listed())?.status, 'failed');
      assert.equal(warnings.length, before, 'the stored model was not even loaded');
    } finally {
      await restarted.stop();
    }
  });

  it('deployed again after a retrain, it runs', { timeout: 60_000 }, async () => {
    await save('j2', model('honest'));
    const { deployment_id } = await deployments.deploy(caller, { model_name: NAME, channels: ['sse'] });
    const live = await host();
    await live.host.start();
    try {
      await until('the new deployment’s actor running', () => live.host.runningIds().includes(deployment_id), 30_000);
      const shown = await listed();
      assert.deepEqual([shown?.deployment_id, shown?.status, shown?.error], [deployment_id, 'deployed', undefined]);
      assert.deepEqual(live.host.stats(), { running: 1, claimed: 1, faults: 0 });
    } finally {
      await live.stop();
    }
  });
});

/** Every signal the SIGNALS stream holds for a deployment, in order. */
async function storedSignals(bus: Bus, deploymentId: string): Promise<SignalEvent[]> {
  const { state } = await bus.jsm.streams.info(Streams.signals.name);
  const out: SignalEvent[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const msg = await bus.jsm.streams.getMessage(Streams.signals.name, { seq }).catch(() => null);
    if (msg?.subject === `signals.${deploymentId}`) out.push(SignalEvent.parse(msg.json()));
  }
  return out;
}

/**
 * An entry announced at a bar's close whose fill bar comes at an excluded time (a feed gap to
 * 21:00, outside the 06:00-21:00 session: test/helpers/cancelled-entry.ts): the actor stores the
 * open, then a cancel of the same side on the bar that came, also when it restarts in between; a
 * replay gives the same ids. Real nats-server (the SIGNALS stream, the actor state bucket), real
 * sandboxed Python, a model trained on real HistData EURUSD bars, replayed on a replay clock.
 */
describe('a deployment whose announced entry does not fill', () => {
  const QUARTER = 15 * 60_000;
  const DEPLOYMENT = 'dep_cancel';
  let nats: TestNats;
  let runtime: StrategyRuntime;
  let c: CancelledEntry;

  before(async () => {
    nats = await startNats('model-actor-cancel');
    await ensureStream(nats.bus, Streams.signals);
    runtime = await StrategyRuntime.start({ log, size: 1 });
    c = await cancelledEntry(runtime);
  });
  /** The model of the gapped series, as its deployment's record. */
  const gappedRecord = () =>
    modelRecord({
      user_id: USER,
      model_name: 'gapped',
      symbol: c.spec.symbol,
      timeframe: c.spec.timeframe,
      features: c.spec.features,
      config: c.spec.config,
      settings: c.spec.settings,
      warmup: c.spec.warmup,
    });
  after(async () => {
    await c?.scorer.close();
    await runtime?.stop();
    await nats?.close();
  });

  it(
    'sends a cancel of the open on the bar that came, stored on SIGNALS with a stable id, across a restart',
    { timeout: 120_000 },
    async () => {
      const { gapped, nine, side, k, bars } = c;
      const record = gappedRecord();
      const deployment = replayDeployment(record, DEPLOYMENT);
      const state = await openBucket(nats.bus, Buckets.actorState);
      const features = new FeatureSources(runtime, 1, log);
      const g = gapped.columns();
      const from = gapped.lowerBound(bars.ts[START]!);
      const at = gapped.lowerBound(nine);
      const end = Math.min(at + 4, g.ts.length);
      const activity: ActivityInput[] = [];

      /** The bars from START to a few after 21:00 handled one by one, the actor restarted between the signal bar and 21:00. */
      const replay = async (publish: (e: SignalEvent) => Promise<void>) => {
        const clock = new ReplayClock(g.ts[from - 1]! + QUARTER);
        const start = async () => {
          const actor = new ModelActor({
            deployment,
            model: record,
            onnx: c.onnx,
            features: features.acquire(record.user_id, CODE),
            bars: oneSeries(gapped),
            state,
            publish,
            activity: { emit: async (e) => (activity.push(e), 0) },
            log,
            clock,
            startAfterTs: g.ts[from - 1]!,
          });
          await actor.start();
          return actor;
        };
        let actor = await start();
        for (let i = from; i < end; i++) {
          clock.advanceTo(g.ts[i]! + QUARTER);
          if (i === at) {
            await actor.stop();
            actor = await start();
          }
          await actor.handle(g.ts[i]!);
        }
        await actor.stop();
      };

      const publish = signalPublisher(nats.bus);
      await replay(publish);
      const stored = await storedSignals(nats.bus, DEPLOYMENT);
      const sideName = side > 0 ? 'long' : 'short';
      const announced = stored.filter((e) => e.action === 'open' && e.bar_time === isoFromMs(bars.ts[k]!));
      assert.deepEqual(
        announced.map((e) => e.side),
        [sideName],
        'the open announced on the signal bar',
      );
      const cancels = stored.filter((e) => e.bar_time === isoFromMs(nine) && e.action === 'cancel');
      assert.deepEqual(
        cancels.map((e) => [e.id, e.side, e.price, e.reason, e.stop_loss, e.take_profit, e.p_up, e.pnl]),
        [[`sig_${DEPLOYMENT}_${nine}_0`, sideName, g.open[at], 'signal', null, null, null, null]],
        'the cancel on the 21:00 bar, first of its signals',
      );
      assert.equal(cancels[0]!.created_at, isoFromMs(nine + QUARTER), 'sent at the close of the bar that came');
      // Any other cancel in the span (a weekend reopening) also follows an open of its side on the bar before.
      for (const e of stored.filter((x) => x.action === 'cancel')) {
        const prev = g.ts[gapped.lowerBound(Date.parse(e.bar_time)) - 1]!;
        assert.ok(
          stored.some((o) => o.action === 'open' && o.side === e.side && o.bar_time === isoFromMs(prev)),
          `${e.id} cancels an open`,
        );
      }
      // SIGNAL_FIRED for the entries only.
      assert.equal(activity.filter((a) => a.kind === 'SIGNAL_FIRED').length, stored.filter((e) => e.action === 'open').length);

      // Replayed from scratch: the same signals with the same ids, and the stream keeps each once.
      await state.delete(DEPLOYMENT);
      const again: SignalEvent[] = [];
      await replay(async (e) => {
        again.push(e);
        await publish(e);
      });
      assert.deepEqual(
        again.map((e) => e.id),
        stored.map((e) => e.id),
      );
      assert.equal((await storedSignals(nats.bus, DEPLOYMENT)).length, stored.length);
    },
  );

  it(
    'saves its resume point every N bars and at stop; killed, it restarts from the last one, steps the bars since again and sends only what the stream lacks',
    { timeout: 120_000 },
    async () => {
      const { gapped } = c;
      const record = gappedRecord();
      const state = await openBucket(nats.bus, Buckets.actorState);
      const features = new FeatureSources(runtime, 1, log);
      const g = gapped.columns();
      const from = gapped.lowerBound(c.bars.ts[START]!);
      const end = Math.min(gapped.lowerBound(c.nine) + 30, g.ts.length);
      const publish = signalPublisher(nats.bus);
      let clock = new ReplayClock(g.ts[from - 1]! + QUARTER);
      const actorOf = (id: string, sent: SignalEvent[], saveEveryBars?: number) =>
        new ModelActor({
          deployment: replayDeployment(record, id),
          model: record,
          onnx: c.onnx,
          features: features.acquire(record.user_id, CODE),
          bars: oneSeries(gapped),
          state,
          publish: async (e) => (sent.push(e), publish(e)),
          ...(saveEveryBars ? { lastStored: () => lastStoredBar(nats.bus, id), saveEveryBars } : {}),
          activity: { emit: async () => 0 },
          log,
          clock,
          startAfterTs: g.ts[from - 1]!,
        });
      const run = async (actor: ModelActor, bars: [number, number]) => {
        for (let i = bars[0]; i < bars[1]; i++) {
          clock.advanceTo(g.ts[i]! + QUARTER);
          await actor.handle(g.ts[i]!);
        }
      };

      // The reference: saved after every bar, never interrupted.
      const reference: SignalEvent[] = [];
      let actor = actorOf('dep_every_bar', reference);
      await actor.start();
      await run(actor, [from, end]);
      await actor.stop();
      assert.ok(reference.length >= 2, `signals in the span (${reference.length})`);

      // Saved every N bars, N past the second signal: the actor is killed (no stop) just after that
      // signal, its resume point the one save of its staggered first bar (or none yet: it starts
      // over from the deployment's start).
      const second = gapped.lowerBound(Date.parse(reference[1]!.bar_time));
      assert.ok(Date.parse(reference[0]!.bar_time) < g.ts[second]!, 'the two signals on two bars');
      const every = second - from + 2;
      const first = firstSaveAfter('dep_saved_every_n', every);
      clock = new ReplayClock(g.ts[from - 1]! + QUARTER);
      const sent: SignalEvent[] = [];
      actor = actorOf('dep_saved_every_n', sent, every);
      await actor.start();
      await run(actor, [from, second + 1]);
      assert.equal(
        (await state.get('dep_saved_every_n'))?.value.last_bar_ts ?? null,
        first <= second + 1 - from ? g.ts[from + first - 1] : null,
        `saved once, after its first ${first} bars`,
      );
      const lastStored = await lastStoredBar(nats.bus, 'dep_saved_every_n');
      assert.equal(lastStored, g.ts[second]);
      const before = sent.length;
      const restarted = actorOf('dep_saved_every_n', sent, every);
      await restarted.start();
      await run(restarted, [second + 1, end]);
      await restarted.stop();
      const resent = sent.slice(before);
      assert.deepEqual(
        resent.filter((e) => Date.parse(e.bar_time) < lastStored!),
        [],
        'the first signal, stepped again after the restart, is not sent again',
      );
      assert.ok(
        resent.some((e) => e.id === sent[before - 1]!.id),
        'the last bar stored goes again (the stream drops it by id)',
      );
      const stored = await storedSignals(nats.bus, 'dep_saved_every_n');
      const shape = (e: SignalEvent) => [e.id.split('_').slice(-2).join('_'), e.action, e.side, e.price, e.bar_time, e.reason];
      assert.deepEqual(stored.map(shape), reference.map(shape), 'the same signals as saved after every bar, each once');
      assert.equal((await state.get('dep_saved_every_n'))!.value.last_bar_ts, g.ts[end - 1], 'saved at stop: where it stopped');
    },
  );
});

describe('firstSaveAfter', () => {
  it("spreads a host's actors' first saves evenly over the bars, the same deployment always on the same bar", () => {
    const ids = Array.from({ length: 12_000 }, () => `dep_${randomBytes(9).toString('base64url')}`);
    const perBar = new Array<number>(SAVE_EVERY_BARS + 1).fill(0);
    for (const id of ids) {
      const after = firstSaveAfter(id, SAVE_EVERY_BARS);
      assert.ok(after >= 1 && after <= SAVE_EVERY_BARS, `${id}: ${after}`);
      perBar[after]!++;
    }
    // 200 a bar on average: each bar within ±40 % (a bar holding them all was the fault).
    for (let bar = 1; bar <= SAVE_EVERY_BARS; bar++) assert.ok(perBar[bar]! > 120 && perBar[bar]! < 280, `bar ${bar}: ${perBar[bar]}`);
    assert.equal(firstSaveAfter(ids[0]!, SAVE_EVERY_BARS), firstSaveAfter(ids[0]!, SAVE_EVERY_BARS));
    assert.equal(firstSaveAfter(ids[0]!, 1), 1);
  });
});
