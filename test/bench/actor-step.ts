/**
 * A host's model actors stepping bars, in this process: what a model-bar costs the host's Node,
 * without the fleet's other processes and the machine's noise around them (actor-fleet measures
 * those). Real HistData EURUSD 15-minute bars, programs trained in the real sandbox, warm feature
 * sessions, the real scoring processes; signals and predictions published on a real nats-server
 * through the host's batcher, resume points saved as the host saves them.
 * - CPU of this process per model-bar (the features' Python and the scorers are other processes);
 * - V8 heap bytes allocated per model-bar, counted by the sampling heap profiler with collected
 *   objects included (every allocation, not what survives): the garbage a bar makes is what the
 *   scavenger then works through, so it decides most of the GC cost a fleet pays;
 * - the sites that allocate most, per model-bar.
 * Options: --models=1000 --programs=2 (of 5) --bars=12 --watched=models/100 (deployments whose
 * predictions someone watches: only they build and publish one).
 */
import { FeatureSources, ModelActor, predictionPublisher, signalPublisher } from '../../actors/model/index.ts';
import { ensureStream, openBucket, StreamBatcher } from '../../src/bus/index.ts';
import { ReplayClock } from '../../src/lib/clock.ts';
import { TIMEFRAME_MS } from '../../src/lib/timeframes.ts';
import { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import { useScorers } from '../../src/scoring/index.ts';
import { trainPipeline, type TrainOutcome } from '../../src/training/index.ts';
import { Buckets, Streams } from '../../schemas/messages.ts';
import { log, openRealMarket, replayDeployment, trainJob } from '../helpers/real-market.ts';
import { DISTINCT_PROGRAMS as PROGRAMS } from '../helpers/strategies.ts';
import { kbPer, sampleAllocations } from './lib/heap-sampling.ts';
import { numberOption, type Benchmark } from './lib/types.ts';

const QUARTER = TIMEFRAME_MS['15min'];
/** Bars stepped before measuring: sessions warm, code optimised. */
const WARM_BARS = 3;

export const benchmark: Benchmark = {
  name: 'actor-step',
  description: "a host's model actors stepping bars in-process: CPU and V8 bytes allocated per model-bar, and where they are allocated",
  async run(ctx) {
    const models = numberOption(ctx, 'models', 1_000);
    const programs = Math.min(PROGRAMS.length, numberOption(ctx, 'programs', 2));
    const bars = numberOption(ctx, 'bars', 12);
    // As WebSocket clients watch a few deployments: only these publish predictions (default 1 %).
    const watched = Math.min(models, numberOption(ctx, 'watched', Math.ceil(models / 100)));

    const market = await openRealMarket(50_000);
    ctx.defer(() => market.close());
    const runtime = await StrategyRuntime.start({ log, size: 2 });
    ctx.defer(() => runtime.stop());
    ctx.defer(useScorers({ SCORER_PROCESSES: 1, SCORER_MEMORY_MB: 1024, SCORER_RUN_MS: 10_000, SCORER_LOAD_MS: 30_000 }, log));
    // As buildModelHost wires them: one batcher for the host's signals, predictions and saved states.
    const batcher = new StreamBatcher(market.bus);
    const state = await openBucket(market.bus, Buckets.actorState, 1, { batcher });
    await ensureStream(market.bus, Streams.signals);
    const publish = signalPublisher(market.bus, batcher);
    const publishPrediction = predictionPublisher(market.bus, batcher);

    ctx.log(`actor-step: training ${programs} programs`);
    const trained: TrainOutcome[] = [];
    for (const code of PROGRAMS.slice(0, programs))
      trained.push(
        await trainPipeline({ runtime, bars: market.cache })(
          trainJob({ code, timeframe: '15min', start_date: '2017-01-02', end_date: '2017-02-10' }),
          async () => undefined,
        ),
      );
    const series = await market.cache.get('EURUSD', '15min');
    const ts = series.columns().ts;
    const first = series.lowerBound(Date.parse(trained[0]!.results.spans.post_cutoff!.from));
    const features = new FeatureSources(runtime, 16, log, 16);
    const clock = new ReplayClock(ts[first - 1]! + QUARTER);
    const actors = Array.from({ length: models }, (_, k) => {
      const { record, onnx } = trained[k % programs]!;
      return new ModelActor({
        deployment: replayDeployment(record, `dep_step${k}`),
        model: record,
        onnx,
        features: features.forModel(record, PROGRAMS[k % programs]!),
        bars: market.cache,
        state,
        publish,
        publishPrediction,
        watched: () => k < watched,
        activity: { emit: async () => 0 },
        lastStored: async () => null,
        log,
        clock,
        startAfterTs: ts[first - 1]!,
      });
    });
    ctx.defer(async () => void (await Promise.all(actors.map((a) => a.stop()))));
    await Promise.all(actors.map((a) => a.start()));
    const step = async (i: number) => {
      clock.advanceTo(ts[i]! + QUARTER);
      await Promise.all(actors.map((a) => a.handle(ts[i]!)));
    };
    for (let i = first; i < first + WARM_BARS; i++) await step(i);

    ctx.log(`actor-step: ${models} models, ${bars} bars measured for CPU, then ${bars} for allocation`);
    // CPU first, with no profiler attached (sampling allocations costs a sixth of the CPU).
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let i = first + WARM_BARS;
    for (const end = i + bars; i < end; i++) await step(i);
    const cpu = process.cpuUsage(cpu0);
    const wallMs = performance.now() - t0;
    const allocations = await sampleAllocations();
    for (const end = i + bars; i < end; i++) await step(i);
    const { bytes, sites } = await allocations();
    const modelBars = models * bars;
    const kb = (b: number) => kbPer(b, modelBars);
    return [
      {
        name: 'actor-step',
        models,
        programs,
        bars,
        watched,
        cpu_us_per_model_bar: Math.round((cpu.user + cpu.system) / modelBars),
        allocated_kb_per_model_bar: kb(bytes),
        wall_ms_per_bar: Math.round(wallMs / bars),
        top_sites_kb_per_model_bar: Object.fromEntries(sites.slice(0, 12).map(([k, v]) => [k, kb(v)])),
        note: "this process only: the host's Node side of a bar (features' Python and the scorers are other processes); allocation sampled every 4 KB, collected objects included",
      },
    ];
  },
};
