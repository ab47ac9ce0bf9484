/**
 * Work shared between deployments never mixes them: 200 deployments of 5 programs (two users, one
 * program written by both), stepped together bar by bar on one host's feature sessions and scoring
 * processes (features once per program and window, one inference per identical model and row),
 * each send exactly the signals it sends alone: on sessions and scorers of its own, bar by bar.
 * Watched on every other bar, a deployment's predictions are those bars' predictions of its run
 * alone (always watched), positions included; unwatched bars give none and change no signal.
 * The program both users run is two programs: it never shares a Python process between them.
 * Real HistData EURUSD 15-minute bars in chdb, a real nats-server for the actors' state, real
 * sandboxed Python and real scoring processes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FeatureSources, ModelActor } from '../../../actors/model/index.ts';
import { openBucket, type JsonKv } from '../../../src/bus/index.ts';
import { ReplayClock } from '../../../src/lib/clock.ts';
import { TIMEFRAME_MS } from '../../../src/lib/timeframes.ts';
import { StrategyRuntime } from '../../../src/sandbox/runtime-pool.ts';
import { scorerStats, useScorers } from '../../../src/scoring/index.ts';
import { trainPipeline, type TrainOutcome } from '../../../src/training/index.ts';
import type { BarPrediction, SignalEvent } from '../../../schemas/live.ts';
import { Buckets } from '../../../schemas/messages.ts';
import { log, openRealMarket, replayDeployment, trainJob, type RealMarket } from '../../helpers/real-market.ts';
import { DISTINCT_PROGRAMS as PROGRAMS } from '../../helpers/strategies.ts';

const QUARTER = TIMEFRAME_MS['15min'];
/** Program 2 is run by both users; the others by one each. */
const USERS_OF = [[7], [7], [7, 8], [8], [8]];
const DEPLOYMENTS = 200;
/** Bars replayed after the first start, and the starts the deployments are spread over (bars before the replay). */
const BARS = 24;
const STARTS = [0, 3, 7, 12];

/** What a signal says, without whose it is (a deployment alone has another id). */
const said = (e: SignalEvent) => [e.action, e.side, e.bar_time, e.price, e.stop_loss, e.take_profit, e.reason, e.p_up, e.pnl];
/** What a prediction says, without whose it is. */
const predicted = (p: BarPrediction) => [p.bar, p.p_up, p.decision, p.position, p.signal_ids.length];

/** What a deployment sent while replayed. */
interface Sent {
  signals: SignalEvent[];
  predictions: BarPrediction[];
}

describe('deployments sharing features and inference', () => {
  let market: RealMarket;
  let runtime: StrategyRuntime;
  let state: JsonKv<typeof Buckets.actorState.schema>;
  let stopScorers: () => Promise<void>;
  const trained: TrainOutcome[] = [];

  before(async () => {
    market = await openRealMarket(50_000);
    runtime = await StrategyRuntime.start({ log, size: 2 });
    stopScorers = useScorers({ SCORER_PROCESSES: 2, SCORER_MEMORY_MB: 1024, SCORER_RUN_MS: 10_000, SCORER_LOAD_MS: 30_000 }, log);
    state = await openBucket(market.bus, Buckets.actorState);
    for (const code of PROGRAMS) {
      const job = trainJob({ code, timeframe: '15min', start_date: '2017-01-02', end_date: '2017-02-10' });
      trained.push(await trainPipeline({ runtime, bars: market.cache })(job, async () => undefined));
    }
  });
  after(async () => {
    await stopScorers?.();
    await runtime?.stop();
    await market?.close();
  });

  it('each of 200 deployments of 5 programs sends, bar by bar, what it sends alone; two users never share a Python process', async () => {
    const series = await market.cache.get('EURUSD', '15min');
    const ts = series.columns().ts;
    const first = series.lowerBound(Date.parse(trained[0]!.results.spans.post_cutoff!.from));
    /** Deployment k: its program, user and the bar it starts after (spread, so their engines differ). */
    const plan = Array.from({ length: DEPLOYMENTS }, (_, k) => {
      const program = k % PROGRAMS.length;
      const users = USERS_OF[program]!;
      return { k, program, user: users[Math.floor(k / PROGRAMS.length) % users.length]!, start: STARTS[k % STARTS.length]! };
    });

    /** An actor of deployment `p` on `features` (the host's shared sources, or its own); watched always unless `watched` says. */
    const actor = (
      p: (typeof plan)[number],
      id: string,
      features: FeatureSources,
      clock: ReplayClock,
      out: Sent,
      watched?: () => boolean,
    ) => {
      const { record, onnx } = trained[p.program]!;
      const model = { ...record, user_id: p.user };
      return new ModelActor({
        deployment: replayDeployment(model, id),
        model,
        onnx,
        features: features.forModel(model, PROGRAMS[p.program]!),
        bars: market.cache,
        state,
        publish: async (e) => void out.signals.push(e),
        publishPrediction: (prediction) => void out.predictions.push(prediction),
        ...(watched ? { watched } : {}),
        activity: { emit: async () => 0 },
        log,
        clock,
        startAfterTs: ts[first + p.start - 1]!,
      });
    };

    /** Steps actors together bar by bar, each starting on its own bar; returns what each one sent. */
    const replay = async (
      run: typeof plan,
      features: FeatureSources,
      id: (p: (typeof plan)[number]) => string,
      watched?: (p: (typeof plan)[number], bar: number) => boolean,
    ) => {
      const clock = new ReplayClock(ts[first - 1]! + QUARTER);
      const out = new Map(run.map((p) => [p.k, { signals: [], predictions: [] } as Sent]));
      let i = first;
      const actors = run.map((p) => ({
        p,
        actor: actor(p, id(p), features, clock, out.get(p.k)!, watched ? () => watched(p, i) : undefined),
      }));
      for (; i < first + BARS + Math.max(...STARTS); i++) {
        clock.advanceTo(ts[i]! + QUARTER);
        // Every deployment whose start has come handles the bar at once, as the host hands it out.
        await Promise.all(
          actors
            .filter(({ p }) => i >= first + p.start)
            .map(async ({ p, actor }) => (i === first + p.start ? actor.start() : actor.handle(ts[i]!))),
        );
      }
      for (const { actor } of actors) await actor.stop();
      return out;
    };

    const shared = new FeatureSources(runtime, 16, log, 16);
    const before = scorerStats();
    // Sessions of the shared host, by program and user: the one each actor's features ran in.
    // Watched on every other bar (which ones alternate between deployments).
    const watchedOn = (p: (typeof plan)[number], bar: number) => (bar + p.k) % 2 === 0;
    const together = await replay(plan, shared, (p) => `dep_${p.k}`, watchedOn);
    // Each deployment steps every bar from its start on; a model's clones on one bar share one scoring (one inference).
    const steps = plan.reduce((n, p) => n + BARS + Math.max(...STARTS) - p.start, 0);
    const runs = scorerStats().runs - before.runs;
    assert.ok(runs > 0 && runs * 4 < steps, `${runs} inferences for ${steps} deployment-bars: scorings were shared`);

    // Alone: one deployment per (program, user, start), each on sessions of its own.
    const alone = new Map<string, Sent>();
    for (const p of plan) {
      const key = `${p.program}/${p.user}/${p.start}`;
      if (alone.has(key)) continue;
      const own = new FeatureSources(runtime, 1, log, 1);
      alone.set(key, (await replay([p], own, () => `solo_${key}`)).get(p.k)!);
    }
    let signals = 0;
    let predictions = 0;
    let holding = 0;
    for (const p of plan) {
      const mine = together.get(p.k)!;
      const solo = alone.get(`${p.program}/${p.user}/${p.start}`)!;
      const which = `deployment ${p.k} (program ${p.program}, user ${p.user}, start +${p.start})`;
      assert.deepEqual(mine.signals.map(said), solo.signals.map(said), which);
      assert.ok(
        mine.signals.every((e) => e.deployment_id === `dep_${p.k}`),
        'every signal names its own deployment',
      );
      const watchedBars = solo.predictions.filter((x) => watchedOn(p, series.lowerBound(Date.parse(x.bar.time))));
      assert.deepEqual(mine.predictions.map(predicted), watchedBars.map(predicted), `${which}: predictions of the watched bars`);
      assert.ok(mine.predictions.every((x) => x.deployment_id === `dep_${p.k}`));
      signals += mine.signals.length;
      predictions += mine.predictions.length;
      holding += mine.predictions.filter((x) => x.position.open_positions > 0).length;
    }
    assert.ok(signals >= DEPLOYMENTS, `the deployments traded (${signals} signals)`);
    assert.ok(holding > 0 && holding < predictions, `positions held on some watched bars (${holding} of ${predictions})`);
    // Programs that differ trade differently: sharing could not have gone unseen.
    const firstOf = (program: number) =>
      JSON.stringify(together.get(plan.find((p) => p.program === program && p.start === 0)!.k)!.signals.map(said));
    assert.equal(new Set(PROGRAMS.map((_, i) => firstOf(i))).size, PROGRAMS.length);
  });

  it('a program both users run is two programs: its own session for each, never one Python process', async () => {
    const sources = new FeatureSources(runtime, 16, log, 16);
    const { record } = trained[2]!;
    const opened = runtime.openSessions;
    const a = sources.forModel({ ...record, user_id: 7 }, PROGRAMS[2]!);
    const b = sources.forModel({ ...record, user_id: 8 }, PROGRAMS[2]!);
    const again = sources.forModel({ ...record, user_id: 7 }, PROGRAMS[2]!);
    assert.notEqual(a.program, b.program);
    assert.equal(a.program, again.program, 'one user’s deployments of it share');
    const bars = (await market.cache.get('EURUSD', '15min')).columns();
    const window = {
      ts: bars.ts.subarray(0, 80),
      open: bars.open.subarray(0, 80),
      high: bars.high.subarray(0, 80),
      low: bars.low.subarray(0, 80),
      close: bars.close.subarray(0, 80),
    };
    const [x, y] = await Promise.all([a.features(window), b.features(window)]);
    assert.deepEqual(x, y, 'the same code computes the same features, apart');
    assert.equal(runtime.openSessions - opened, 2, 'a session per user');
    for (const s of [a, b, again]) await s.release();
    assert.equal(runtime.openSessions, opened);
  });
});
