/**
 * pool-fairness (issue 33): one user's abuse of a shared pool must not raise another user's p99
 * by more than 2×. For each pool, the neighbour's normal work is timed alone, then beside the
 * attack the red team ran, and the ratio of the p99s (and p50s) is reported against the goal.
 *
 * The strategy runtime (sandboxed Python zygotes; the production default of one zygote per core,
 * at most 4), in this process with the real pool and the budgets /predict and training use:
 *   - predict-vs-train: the neighbour's train job as the trainer runs it in the sandbox (strategy_config,
 *     the look-ahead analysis, the fit: three jobs, a month of 15-min EURUSD, RandomForest(50)),
 *     beside 6 concurrent /predict feature jobs of one attacker, back to back, whose code burns a core
 *     for ~1 s per call (on a quiet machine) within its budget (the red team's "pandas code that sleeps" took 38–45 s from 1–3 s;
 *     `time` is not importable, so a busy loop, which is harsher: it also takes a core);
 *   - predict-vs-predict: the neighbour's /predict features job (1,000 bars) beside the same attack.
 *   Each also runs beside the attack with every job a key of its own, which is first come, first
 *   served across everyone (the pool before fair shares): `fifo_*`, for comparison.
 * The Pine workers, through the real service over HTTP (POST /api/v1/indicators/custom):
 *   - the neighbour's RSI over 2,000 1-minute bars (the red team's 2.3 ms), one after another, alone
 *     and beside four loops of one attacker key posting scripts that use up the step or time budget
 *     (red team: 1.4 s median beside them, the attacker's balance unchanged). The attacker's credits
 *     charged and the 422/429 it got are reported.
 *
 * The machine is shared: the load average around each phase is in the result.
 * Flags: --train-runs=6 --predict-runs=40 --pine-requests=200 --fifo-runs=3 --attackers=6
 */
import { loadavg } from 'node:os';
import { createLogger } from '../../src/log.ts';
import { StrategyRuntime, type JobLimits } from '../../src/sandbox/index.ts';
import { analyzeBudget, configBudget, featuresBudget, trainBudget, withinBudget, type Budget } from '../../src/training/time-budget.ts';
import { OverrunPenalty } from '../../src/training/overrun-penalty.ts';
import { StrategyConfig } from '../../schemas/strategy.ts';
import type { OhlcColumns } from '../../src/lib/bar-columns.ts';
import { loadBars } from '../helpers/strategy-bars.ts';
import { trainableStrategy } from './lib/strategies.ts';
import { startServiceProcess, waitForQuiet } from './lib/service.ts';
import { numberOption, type BenchContext, type BenchResult, type Benchmark } from './lib/types.ts';

const GOAL_RATIO = 2;
const NEIGHBOUR_CODE = trainableStrategy('RandomForestClassifier', "{'n_estimators': 50, 'max_depth': 6}");
/** The attacker's strategy: the same features after a busy second or so (Python, no numpy). */
const ATTACK_CODE = NEIGHBOUR_CODE.replace(
  'def feature_engineering(df, close, open_, high, low):\n',
  'def feature_engineering(df, close, open_, high, low):\n    x = 0\n    for i in range(20_000_000):\n        x += i\n',
);
const RSI = `//@version=5
indicator("RSI levels", overlay=false)
r = ta.rsi(close, 14)
plot(r, "RSI")
hline(70)
hline(30)
plotshape(ta.crossover(r, 30), "Leaving oversold", style=shape.triangleup, location=location.bottom)
`;
/** Loops within the per-loop bound, nested: each run goes to the step budget (30 M) or the time limit. */
const SPIN = '//@version=5\nindicator("spin")\ns = 0.0\nfor i = 0 to 9999\n    for j = 0 to 9999\n        s := s + j\nplot(s)\n';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load1 = () => Math.round(loadavg()[0]! * 100) / 100;
const round = (x: number, places = 1) => Math.round(x * 10 ** places) / 10 ** places;

/** Nearest-rank percentile (p99 of fewer than 100 samples is their maximum). */
function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

function figures(ms: number[]) {
  return { n: ms.length, p50_ms: round(pct(ms, 50)), p99_ms: round(pct(ms, 99)), max_ms: round(Math.max(...ms)) };
}

/** Alone vs beside the attack: both figures, the ratios, the goal. */
function compare(name: string, alone: number[], attacked: number[], extra: Record<string, unknown>): BenchResult {
  const a = figures(alone);
  const b = figures(attacked);
  const ratio = b.p99_ms / a.p99_ms;
  return {
    name,
    alone: a,
    attacked: b,
    p50_ratio: round(b.p50_ms / a.p50_ms, 2),
    p99_ratio: round(ratio, 2),
    goal_p99_ratio: GOAL_RATIO,
    met: ratio <= GOAL_RATIO,
    ...extra,
  };
}

/** `n` loops, each calling `call` back to back until stopped; counts what the calls answered. */
function startAttack(n: number, call: (loop: number) => Promise<string>) {
  const counts: Record<string, number> = {};
  let stopped = false;
  let started = 0;
  const loops = Array.from({ length: n }, async (_, loop) => {
    while (!stopped) {
      started++;
      const outcome = await call(loop).catch((err: unknown) => `error: ${(err as Error).message.slice(0, 80)}`);
      counts[outcome] = (counts[outcome] ?? 0) + 1;
      // A refused call is retried after a pause, as a client honouring Retry-After would (not at once).
      if (outcome.startsWith('429') || outcome.startsWith('PoolFull')) await sleep(200);
    }
  });
  return {
    counts,
    get started() {
      return started;
    },
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** Times `once` `runs` times in a row (after one untimed warm-up). */
async function timed(runs: number, once: () => Promise<void>, ctx: BenchContext, label: string): Promise<number[]> {
  await once();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const t = performance.now();
    await once();
    out.push(performance.now() - t);
  }
  ctx.log(`${label}: p50 ${round(pct(out, 50))} ms, max ${round(Math.max(...out))} ms over ${runs}`);
  return out;
}

async function sandboxPool(ctx: BenchContext): Promise<BenchResult[]> {
  const trainRuns = numberOption(ctx, 'train-runs', 6);
  const predictRuns = numberOption(ctx, 'predict-runs', 40);
  const fifoRuns = numberOption(ctx, 'fifo-runs', 3);
  const attackers = numberOption(ctx, 'attackers', 6);
  const runtime = await StrategyRuntime.start({ log: createLogger('silent') });
  ctx.defer(() => runtime.stop());
  const month: OhlcColumns = loadBars('EURUSD', '15min', 2000);
  const predictBars: OhlcColumns = loadBars('EURUSD', '15min', 1000);

  // As the trainer and /predict run them: under the job's budget, as its user, at the priority the
  // user's overruns earned (an overrun counts against them). Each job a key of its own and no
  // penalty when `fifo`: fair shares degenerate to the pool before them, first come, first served.
  const penalty = new OverrunPenalty();
  let solo = 0;
  const job = <T>(user: number, fifo: boolean, budget: Budget, run: (limits: JobLimits) => Promise<T>): Promise<T> =>
    fifo
      ? withinBudget(budget, (limits) => run({ ...limits, user: 1_000_000 + ++solo }))
      : withinBudget(budget, run, { user, nice: penalty.niceFor(user), overran: () => penalty.overran(user) });

  const NEIGHBOUR = 2;
  const ATTACKER = 1;
  const config = StrategyConfig.parse(await runtime.config(NEIGHBOUR_CODE));
  const train = (fifo: boolean) => async () => {
    await job(NEIGHBOUR, fifo, configBudget(), (limits) => runtime.config(NEIGHBOUR_CODE, limits));
    const fitRows = Math.floor(month.ts.length * 0.8);
    const fit = {
      ts: month.ts.subarray(0, fitRows),
      open: month.open.subarray(0, fitRows),
      high: month.high.subarray(0, fitRows),
      low: month.low.subarray(0, fitRows),
      close: month.close.subarray(0, fitRows),
    };
    const analysis = await job(NEIGHBOUR, fifo, analyzeBudget(fitRows), (limits) => runtime.analyze(NEIGHBOUR_CODE, fit, limits));
    const budget = trainBudget(config, month.ts.length, analysis.featureColumns.length);
    await job(NEIGHBOUR, fifo, budget, (limits) => runtime.train(NEIGHBOUR_CODE, month, { fitRows, warmup: analysis.warmup ?? 0 }, limits));
  };
  const predictOnce = (user: number, fifo: boolean, code: string) =>
    job(user, fifo, featuresBudget(predictBars.ts.length), (limits) => runtime.features(code, predictBars, limits));
  const predict = (fifo: boolean) => async () => void (await predictOnce(NEIGHBOUR, fifo, NEIGHBOUR_CODE));
  const attack = (fifo: boolean) =>
    startAttack(attackers, async () => {
      try {
        await predictOnce(ATTACKER, fifo, ATTACK_CODE);
        return 'ok';
      } catch (err) {
        const e = err as Error & { kind?: string };
        return e.name === 'PoolFullError' ? 'PoolFull' : e.kind === 'timeout' ? 'over its budget' : `${e.name}: ${e.message.slice(0, 60)}`;
      }
    });
  /** Runs the neighbour's work beside the attack (started first, and running). */
  const beside = async (fifo: boolean, runs: number, work: () => Promise<void>, label: string) => {
    const a = attack(fifo);
    while (a.started < attackers) await sleep(20);
    await sleep(300);
    const load = [load1()];
    const ms = await timed(runs, work, ctx, label).finally(() => a.stop());
    load.push(load1());
    return { ms, load, counts: a.counts };
  };

  // The attack's own duration, alone (what one of its calls holds a zygote for).
  const attackAlone = await timed(
    2,
    async () => void (await runtime.features(ATTACK_CODE, predictBars, { timeoutMs: 60_000 })),
    ctx,
    'one attack call alone (no budget)',
  );
  const results: BenchResult[] = [];
  for (const [name, runs, work] of [
    ['sandbox-predict-vs-train', trainRuns, train],
    ['sandbox-predict-vs-predict', predictRuns, predict],
  ] as const) {
    const loadAlone = [load1()];
    const alone = await timed(runs, work(false), ctx, `${name} alone`);
    loadAlone.push(load1());
    const fair = await beside(false, runs, work(false), `${name} beside ${attackers} attack loops`);
    const fifo = await beside(true, Math.min(runs, fifoRuns), work(true), `${name} beside the attack, first come first served`);
    results.push(
      compare(name, alone, fair.ms, {
        attack: `${attackers} concurrent /predict feature jobs of one user, back to back, each ~${round(pct(attackAlone, 50) / 1000, 2)} s of CPU`,
        attack_outcomes: fair.counts,
        attacker_penalized_after: penalty.penalized(ATTACKER),
        fifo_attacked: figures(fifo.ms),
        fifo_p99_ratio: round(pct(fifo.ms, 99) / pct(alone, 99), 2),
        zygotes: runtime.processIds().length,
        loadavg_1m_alone: loadAlone,
        loadavg_1m_attacked: fair.load,
        loadavg_1m_fifo: fifo.load,
      }),
    );
  }
  return results;
}

async function pinePool(ctx: BenchContext): Promise<BenchResult[]> {
  const requests = numberOption(ctx, 'pine-requests', 200);
  const env = { MARKET_FEED: 'synthetic', HISTORY_DAYS: '5', TRIAL_CREDITS: '1000000', RATE_LIMIT_PER_MIN: '1000000', LOG_LEVEL: 'warn' };
  const service = await startServiceProcess(env, { signal: ctx.signal, log: ctx.log, timeoutMs: 180_000 });
  ctx.defer(() => service.stop().then(() => undefined));
  const mint = async () => {
    const res = await fetch(`${service.url}/api/v1/key/trial`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    return ((await res.json()) as { api_key: string }).api_key;
  };
  const [neighbour, attacker] = [await mint(), await mint()];
  const balance = async (key: string) =>
    ((await (await fetch(`${service.url}/api/v1/key/usage`, { headers: { 'x-api-key': key } })).json()) as { balance: number }).balance;
  const post = (key: string, source: string, limit: number) =>
    fetch(`${service.url}/api/v1/indicators/custom`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ source, symbol: 'EURUSD', timeframe: '1min', limit, fe_mode: 'none' }),
    });
  const rsi = async () => {
    const res = await post(neighbour, RSI, 2000);
    const text = await res.text();
    if (res.status !== 200) throw new Error(`the neighbour's indicator answered ${res.status}: ${text.slice(0, 200)}`);
  };
  const loadAlone = [load1()];
  const alone = await timed(requests, rsi, ctx, 'pine neighbour alone');
  loadAlone.push(load1());

  const before = await balance(attacker);
  const attack = startAttack(4, async () => {
    const res = await post(attacker, SPIN, 200);
    await res.arrayBuffer();
    return String(res.status);
  });
  while (attack.started < 4) await sleep(20);
  await sleep(500);
  const loadAttacked = [load1()];
  const attacked = await timed(requests, rsi, ctx, 'pine neighbour beside 4 budget-spending loops').finally(() => attack.stop());
  loadAttacked.push(load1());
  const charged = before - (await balance(attacker));
  return [
    compare('pine-custom-indicator', alone, attacked, {
      attack: '4 loops of one key posting a Pine script that uses up the 30 M step budget or the 3 s limit, back to back',
      attack_answers: attack.counts,
      attacker_credits_charged: charged,
      loadavg_1m_alone: loadAlone,
      loadavg_1m_attacked: loadAttacked,
    }),
  ];
}

export const benchmark: Benchmark = {
  name: 'pool-fairness',
  description:
    "Each shared pool (sandbox: predict-vs-train, predict-vs-predict; Pine workers): a neighbour's p50/p99 alone and beside one user's abuse (goal p99 ≤ 2× alone)",
  async run(ctx) {
    const quiet = await waitForQuiet(30_000, ctx.signal);
    const sandbox = await sandboxPool(ctx);
    const pine = await pinePool(ctx);
    return [...sandbox, ...pine].map((r) => ({ ...r, machine_quiet_before: quiet }));
  },
};
