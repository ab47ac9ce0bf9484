/**
 * Live = backtest: the train pipeline's post-cutoff backtest and a ModelActor replaying the same
 * bars one by one on a replay clock (with a restart in the middle) give the same trades, exactly.
 * Real HistData EURUSD bars in chdb, a real nats-server for the actor's state, real sandboxed Python.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FeatureSources, ModelActor } from '../../actors/model/index.ts';
import { openBucket, type JsonKv } from '../../src/bus/index.ts';
import { ReplayClock } from '../../src/lib/clock.ts';
import { TIMEFRAME_MS } from '../../src/lib/timeframes.ts';
import { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import { trainPipeline, type TrainOutcome } from '../../src/training/index.ts';
import type { BarPrediction, SignalEvent } from '../../schemas/live.ts';
import { Buckets } from '../../schemas/messages.ts';
import { log, openRealMarket, trainJob, replayDeployment, type RealMarket } from '../helpers/real-market.ts';
import { strategyCode } from '../helpers/strategies.ts';

const QUARTER = TIMEFRAME_MS['15min'];
// The same strategy with a trailing stop of 1.5 ATR(14): the engine's ATR and each position's best
// price must carry across the restart as the trades do.
const TRAILED = strategyCode({ trailingStop: '{"atr": 1.5, "period": 14}', takeProfit: null });
// Rule-gated entries with the trail and time filters: longs only where the 4-bar return is up, shorts
// only where it is down (the trader's rules; the model confirms), nothing opens on a Wednesday or
// outside 06:00-21:00 UTC of the bar the position opens at.
const SKIPPED = 3; // Wednesday (UTC getDay)
const GATED = strategyCode({
  trailingStop: '{"atr": 1.5, "period": 14}',
  takeProfit: null,
  prelude: 'df["dn_4"] = (close.pct_change(4) < 0).astype(float)',
}).replace(
  '"session_filter": None,',
  '"session_filter": [6, 21],\n        "skip_days": ["wed"],\n        "entry_long": "ret_4",\n        "entry_short": "dn_4",',
);

for (const [label, code] of [
  ['', strategyCode()],
  [' with an ATR trailing stop', TRAILED],
  [' with entry rules, an ATR trailing stop and session and day filters', GATED],
] as const)
  describe(`live = backtest on a replay clock${label}`, () => {
    let market: RealMarket;
    let runtime: StrategyRuntime;
    let state: JsonKv<typeof Buckets.actorState.schema>;
    let outcome: TrainOutcome;

    before(async () => {
      market = await openRealMarket(50_000);
      runtime = await StrategyRuntime.start({ log, size: 2 });
      state = await openBucket(market.bus, Buckets.actorState);
      // Trained up to 2017-02-10; the week after is the post-cutoff span the backtest scores.
      const job = trainJob({ code, timeframe: '15min', start_date: '2017-01-02', end_date: '2017-02-10' });
      outcome = await trainPipeline({ runtime, bars: market.cache })(job, async () => undefined);
    });
    after(async () => {
      await runtime?.stop();
      await market?.close();
    });

    it('a ModelActor replaying the post-cutoff bars gives the backtest’s trades, across a restart', async () => {
      const { record, results, onnx } = outcome;
      const post = results.spans.post_cutoff!;
      assert.ok(post, 'a post-cutoff span');
      const series = await market.cache.get('EURUSD', '15min');
      const ts = series.columns().ts;
      const from = series.lowerBound(Date.parse(post.from));
      const to = series.lowerBound(Date.parse(post.to) + 1);
      const deployment = replayDeployment(record, 'dep_parity');
      const clock = new ReplayClock(ts[from - 1]! + QUARTER);
      const features = new FeatureSources(runtime, 1, log);
      const events: SignalEvent[] = [];
      const predictions: BarPrediction[] = [];
      const start = async () => {
        const actor = new ModelActor({
          deployment,
          model: record,
          onnx,
          features: features.acquire(record.user_id, code),
          bars: market.cache,
          state,
          publish: async (e) => void events.push(e),
          publishPrediction: (p) => void predictions.push(p),
          activity: { emit: async () => 0 },
          log,
          clock,
          startAfterTs: ts[from - 1]!,
        });
        await actor.start();
        return actor;
      };
      let actor = await start();
      const half = from + Math.floor((to - from) / 2);
      for (let i = from; i < to; i++) {
        clock.advanceTo(ts[i]! + QUARTER);
        if (i === half) {
          // A restart in the middle: the next actor resumes from the saved state.
          await actor.stop();
          actor = await start();
        }
        await actor.handle(ts[i]!);
      }
      assert.equal(actor.stats().last_bar_ts, ts[to - 1]);
      await actor.stop();

      // One prediction per bar, in order, naming that bar's signals; an entry follows its bar's decision.
      assert.deepEqual(
        predictions.map((p) => Date.parse(p.bar.time)),
        Array.from(ts).slice(from, to),
      );
      assert.deepEqual(
        predictions.flatMap((p) => p.signal_ids),
        events.map((e) => e.id),
      );
      for (const p of predictions) {
        for (const e of events.filter((x) => p.signal_ids.includes(x.id) && x.action === 'open')) assert.equal(p.decision, e.side);
        assert.equal(p.position.open_positions === 0, p.position.side === 'flat');
      }

      // A meta-labelled model's signals say its p_up is P(win) (labels: meta); a direction model's say nothing.
      assert.deepEqual([...new Set(events.map((e) => e.labels))], [code === GATED ? 'meta' : undefined]);
      const closes = events.filter((e) => e.action === 'close');
      const expected = results.pred_trade_log.filter((t) => t.exit_reason !== 'end');
      assert.ok(expected.length >= 3, `enough trades to compare (${expected.length})`);
      if (code === GATED) {
        assert.equal(record.config.entry_long, 'ret_4', 'the rules reached the model record');
        assert.equal(results.labels, 'meta', "the model was trained to confirm the rules' trades (meta-labelling)");
        const closes = series.columns().close;
        for (const t of results.pred_trade_log) {
          const entry = new Date(t.entry_time);
          assert.notEqual(entry.getUTCDay(), SKIPPED, `${t.entry_time}: opened on a skipped day`);
          assert.ok(entry.getUTCHours() >= 6 && entry.getUTCHours() < 21, `${t.entry_time}: opened outside the session`);
          const s = series.lowerBound(Date.parse(t.entry_time)) - 1; // the signal bar
          const up4 = closes[s]! / closes[s - 4]! - 1;
          assert.ok(
            t.side === 'long' ? up4 > 0 : up4 < 0,
            `${t.entry_time} ${t.side}: the rule did not hold at the signal bar (4-bar return ${up4})`,
          );
        }
      }
      if (code === TRAILED || code === GATED) {
        // Some stops were trailed: the level at exit is tighter than the fixed 0.2 % stop from the entry.
        const trailed = expected.filter(
          (t) =>
            t.exit_reason === 'SL' &&
            (t.side === 'long' ? t.stop_loss! > t.entry_price * 0.998 + 1e-9 : t.stop_loss! < t.entry_price * 1.002 - 1e-9),
        );
        assert.ok(trailed.length >= 2, `${trailed.length} trailed stop exits to compare`);
      }
      assert.deepEqual(
        closes.map((e) => [e.side, e.bar_time, e.price, e.reason, e.pnl]),
        expected.map((t) => [t.side, t.exit_time, t.exit_price, t.exit_reason, t.pnl]),
      );
      // Each entry was announced at the close of the bar before its fill.
      const opens = events.filter((e) => e.action === 'open');
      for (const t of results.pred_trade_log) {
        const signalBar = ts[series.lowerBound(Date.parse(t.entry_time)) - 1]!;
        assert.ok(
          opens.some((o) => o.side === t.side && Date.parse(o.bar_time) === signalBar),
          `open announced for ${t.entry_time}`,
        );
      }
      assert.equal(new Set(events.map((e) => e.id)).size, events.length, 'signal ids are unique');
      // Stamped by the replay clock: each event at the close of the bar that produced it.
      for (const e of events) assert.equal(Date.parse(e.created_at), Date.parse(e.bar_time) + QUARTER);
      // On time by the replay clock: lateness is judged on the actor's clock, not the machine's.
      assert.deepEqual(
        events.filter((e) => e.late),
        [],
        'no replayed signal is marked late',
      );
    });

    if (code !== strategyCode()) return;
    it('a new deployment whose actor starts three bars late still starts on the bar closed when it was made', async () => {
      const { record, onnx } = outcome;
      const series = await market.cache.get('EURUSD', '15min');
      const ts = series.columns().ts;
      const k = series.lowerBound(Date.parse(outcome.results.spans.post_cutoff!.from)) + 10;
      // Made just after bar k closed; its actor starts after bar k + 3 closed.
      const deployment = { ...replayDeployment(record, 'dep_late_start'), created_at: ts[k]! + QUARTER + 1_000 };
      const features = new FeatureSources(runtime, 1, log);
      const actor = new ModelActor({
        deployment,
        model: record,
        onnx,
        features: features.acquire(record.user_id, code),
        bars: market.cache,
        state,
        publish: async () => undefined,
        activity: { emit: async () => 0 },
        log,
        clock: new ReplayClock(ts[k + 3]! + QUARTER + 1_000),
      });
      await actor.start();
      await actor.stop();
      // Bars k, k+1, k+2 and k+3: the deployment's own bar first, then every bar closed since.
      assert.deepEqual(actor.stats(), { ...actor.stats(), last_bar_ts: ts[k + 3], bars: 4 });
    });
  });
