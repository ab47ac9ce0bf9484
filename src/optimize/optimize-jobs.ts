/**
 * Optimisation jobs as the API offers them: submit (checked, charged by size, capped per plan),
 * the job's view, its progress, cancel (refunding the trials not run), save the chosen trial as a
 * model (and deploy it). The edge only records a job (queued, unclaimed); the processes that run
 * jobs — the trainer role, like train jobs — follow the bucket, claim a queued job by
 * compare-and-set and run it under a lease in KV; a job whose process died (its lease ran out) is
 * resumed from its stored trials by whichever runner claims it first, or failed and refunded after
 * too many attempts.
 */
import type { Metering } from '../accounts/index.ts';
import { ConflictError, JobNotFoundError, RateLimitedError, StrategyRejectedError, UnprocessableError } from '../errors.ts';
import { isoFromMs } from '../lib/iso-time.ts';
import type { Logger } from '../log.ts';
import { checkStrategyCode, checkStrategyConfig, resolveMarket } from '../sandbox/index.ts';
import { configBudget, resolveSpan, withinBudget, type JobOwner, type OverrunPenalty } from '../training/index.ts';
import type { Caller } from '../../schemas/account-records.ts';
import type { IndicatorRules } from '../../schemas/indicators.ts';
import { StrategyConfig } from '../../schemas/strategy.ts';
import type { Plan } from '../../schemas/accounts.ts';
import type {
  OptimizeJobRequest,
  OptimizeJobView,
  OptimizeProgress,
  OptimizeRecord,
  OptimizeRequest,
  OptimizeSaveRequest,
  OptimizeStart,
  OptimizeTrial,
} from '../../schemas/optimize.ts';
import { isActive, queuedRecord, type OptimizeStore } from './job-store.ts';
import { parseObjective } from './objective.ts';
import { OptimizeRunner, type RunnerDeps } from './runner.ts';
import { checkSearchSpace, type SearchSpace } from './search-space.ts';
import type { ModelSaver } from './save-model.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

/** Optimisations one account may have queued or running at once, by plan. */
export const CONCURRENT_OPTIMIZATIONS: Record<Plan, number> = { free: 1, pro: 3 };
/**
 * Credits per trial: an engine trial is one engine run over the folds (cheap); a trial that
 * changes the model fits k fold models in the sandbox.
 */
export const ENGINE_TRIAL_CREDITS = 1;
export const MODEL_TRIAL_CREDITS = 5;
/** How often a running job says it is alive, and how long silence means its process died. */
export const HEARTBEAT_MS = 5_000;
export const LEASE_MS = 60_000;
/** Attempts (the first run and resumes) before a job that keeps losing its process is failed and refunded. */
export const MAX_ATTEMPTS = 3;
const RETRY_AFTER_S = 60;

export interface OptimizeJobsDeps extends RunnerDeps {
  metering: Pick<Metering, 'charge' | 'refund'>;
  indicators: readonly IndicatorRules[];
  saver: ModelSaver;
  /** The trainer's overrun penalty: an optimisation's sandbox jobs count against the user as train jobs do. */
  penalty?: Pick<OverrunPenalty, 'niceFor' | 'overran'>;
}

/** The public view of a job (no code, no user id), with its trials. */
export function jobView(job: OptimizeRecord, trials: readonly OptimizeTrial[]): OptimizeJobView {
  return {
    optimize_id: job.optimize_id,
    status: job.status,
    symbol: job.request.symbol,
    timeframe: job.request.timeframe,
    method: job.request.method,
    objective: job.objective,
    trials_planned: job.trials_planned,
    trials_done: trials.filter((t) => t.state === 'done').length,
    trials_failed: trials.filter((t) => t.state === 'failed').length,
    credits_charged: job.credits_charged,
    credits_refunded: job.credits_refunded,
    created_at: isoFromMs(job.created_at),
    started_at: job.started_at === null ? null : isoFromMs(job.started_at),
    finished_at: job.finished_at === null ? null : isoFromMs(job.finished_at),
    stage: job.stage,
    folds: job.folds,
    trials: [...trials],
    chosen_trial: job.chosen_trial,
    walk_forward: job.walk_forward,
    pbo: job.pbo,
    degradation: job.degradation,
    robustness: job.robustness,
    saved: job.saved,
    ...(job.error ? { error: job.error } : {}),
  };
}

export function progressOf(job: OptimizeRecord, last: OptimizeTrial | null): OptimizeProgress {
  return {
    optimize_id: job.optimize_id,
    status: job.status,
    stage: job.stage,
    trials_planned: job.trials_planned,
    trials_done: job.trials_run - job.trials_failed,
    trials_failed: job.trials_failed,
    best_value: job.best_value,
    last_trial: last,
  };
}

/** Ended and its refund written (or nothing owed): the job's view will not change any more. */
const isSettled = (j: OptimizeRecord | null): boolean =>
  !j || (!isActive(j) && (j.credits_refunded > 0 || j.trials_run >= j.trials_planned));

export class OptimizeJobs {
  private readonly runner: OptimizeRunner;
  /** Jobs this process is running: id → the promise of its end. */
  private readonly running = new Map<number, Promise<void>>();
  private sweep: NodeJS.Timeout | null = null;
  private watch: { stop(): void } | null = null;
  private stopped = false;

  private readonly clock: Clock;

  constructor(private readonly deps: OptimizeJobsDeps) {
    this.clock = this.deps.clock ?? liveClock;
    this.runner = new OptimizeRunner(deps);
  }

  /** The user's share of the strategy runtime, at the priority their recent overruns earned (as their train jobs). */
  private owner(user: number): JobOwner {
    const penalty = this.deps.penalty;
    return { user, nice: penalty?.niceFor(user) ?? 0, overran: () => penalty?.overran(user) };
  }

  /** The strategy's config (run in the sandbox) and the space checked against it; 422 naming what is wrong. */
  private async checked(request: OptimizeRequest, owner: JobOwner): Promise<{ space: SearchSpace; config: StrategyConfig }> {
    const returned = await withinBudget(configBudget(), (limits) => this.deps.runtime.config(request.code, limits), owner);
    const check = checkStrategyConfig(returned);
    if (!check.ok) throw new UnprocessableError(`strategy_config() is invalid: ${check.violations.map((v) => v.message).join('; ')}`);
    const config = StrategyConfig.parse(returned);
    const space = checkSearchSpace(request, { config, indicators: this.deps.indicators, riskUnit: request.risk_unit });
    return { space, config };
  }

  async submit(caller: Caller, body: OptimizeRequest): Promise<OptimizeStart> {
    const { store, metering } = this.deps;
    // The request's market, else the code header's, else the default; the job keeps it resolved.
    const market = resolveMarket(body, 'optimise');
    const request: OptimizeJobRequest = { ...body, symbol: market.symbol, timeframe: market.timeframe };
    const codeCheck = await checkStrategyCode(request.code);
    if (!codeCheck.ok) {
      throw new StrategyRejectedError(
        `the strategy code breaks ${codeCheck.violations.length} rule(s); see violations: ${codeCheck.violations
          .slice(0, 3)
          .map((v) => `line ${v.line}: ${v.message}`)
          .join('; ')}`,
        codeCheck.violations,
      );
    }
    resolveSpan(await this.deps.bars.get(request.symbol, request.timeframe), request);
    const objective = parseObjective(request.optimization ?? 'sharpe');
    const owner = this.owner(caller.user_id);
    const { space } = await this.checked(request, owner);

    const limit = CONCURRENT_OPTIMIZATIONS[caller.plan];
    const tooMany = () =>
      new RateLimitedError(
        `${limit} optimisation(s) at once on the ${caller.plan} plan: wait for yours to finish (GET /api/v1/optimize/{id}) or cancel one (DELETE)`,
        RETRY_AFTER_S,
      );
    if ((await store.list(caller.user_id)).filter(isActive).length >= limit) throw tooMany();

    const perTrial = space.engineOnly ? ENGINE_TRIAL_CREDITS : MODEL_TRIAL_CREDITS;
    const cost = space.trials * perTrial;
    const id = await store.nextId();
    await metering.charge(caller.user_id, cost, 'optimize', `optimize:${id}`);
    const now = this.clock.now();
    const job = queuedRecord(
      {
        optimize_id: id,
        user_id: caller.user_id,
        username: caller.username,
        plan: caller.plan,
        request,
        objective,
        trials_planned: space.trials,
        credits_per_trial: perTrial,
        credits_charged: cost,
      },
      now,
    );
    try {
      await store.create(job);
    } catch (err) {
      await metering.refund(caller.user_id, cost, `optimize:${id}`);
      throw err;
    }
    // Two submits at once both passed the count: the later one (by id) gives way.
    const earlier = (await store.list(caller.user_id)).filter((j) => isActive(j) && j.optimize_id < id);
    if (earlier.length >= limit) {
      await store.update(caller.user_id, id, (j) => ({
        ...j,
        status: 'failed',
        error: 'refused: too many optimisations at once',
        finished_at: this.clock.now(),
      }));
      await this.refund(caller.user_id, id);
      throw tooMany();
    }
    return { optimize_id: id, status: 'queued', trials_planned: space.trials, credits_charged: cost, objective, market };
  }

  /** Runs the job here, keeping its lease, then refunds what was not run and saves the chosen trial when asked. */
  private launch(job: OptimizeRecord, space: SearchSpace): void {
    const { store, log } = this.deps;
    const user = job.user_id;
    const id = job.optimize_id;
    const beat = setInterval(() => {
      if (!this.stopped)
        void store.update(user, id, (j) => (isActive(j) ? { ...j, heartbeat_at: this.clock.now() } : null)).catch(() => undefined);
    }, HEARTBEAT_MS);
    const owner = this.owner(user);
    const run = (async () => {
      const started = await store.update(user, id, (j) =>
        isActive(j)
          ? {
              ...j,
              status: 'running',
              started_at: j.started_at ?? this.clock.now(),
              attempts: j.attempts + 1,
              heartbeat_at: this.clock.now(),
            }
          : null,
      );
      if (started) await this.runner.run(started, space, owner, () => this.stopped);
      if (this.stopped) return; // left to the next runner: no refund, no save
      await this.refund(user, id);
      const ended = await store.get(user, id);
      if (ended?.status === 'done' && ended.request.save_as && !ended.saved) {
        await this.save({ user_id: user, username: ended.username, plan: ended.plan as Plan }, id, {
          model_name: ended.request.save_as,
          ...(ended.request.deploy ? { deploy: ended.request.deploy } : {}),
        }).catch((err: unknown) => log.warn({ optimize_id: id, err }, 'optimisation: saving the chosen trial failed'));
      }
    })()
      .catch((err: unknown) => log.error({ optimize_id: id, err }, 'optimisation runner failed'))
      .finally(() => {
        clearInterval(beat);
        this.running.delete(id);
      });
    this.running.set(id, run);
  }

  /** Gives back the credits of the trials not run, once: the record's credits_refunded is set by compare-and-set first. */
  private async refund(userId: number, id: number): Promise<void> {
    let owed = 0;
    await this.deps.store.update(userId, id, (j) => {
      if (isActive(j) || j.credits_refunded > 0) return null;
      owed = Math.max(0, j.trials_planned - j.trials_run) * j.credits_per_trial;
      return owed > 0 ? { ...j, credits_refunded: owed } : null;
    });
    if (owed > 0) await this.deps.metering.refund(userId, owed, `optimize:${id}`);
  }

  private async record(userId: number, id: number): Promise<OptimizeRecord> {
    const job = await this.deps.store.get(userId, id);
    if (!job) throw new JobNotFoundError(`no optimisation ${id} for this key: POST /api/v1/optimize starts one`);
    return job;
  }

  async view(userId: number, id: number): Promise<OptimizeJobView> {
    const job = await this.record(userId, id);
    return jobView(job, await this.deps.store.trials(userId, id));
  }

  /**
   * Calls `onProgress` now and after every change of the job, until it ends; resolves with its final
   * view. `stop()` of the returned handle ends early (the client went away).
   */
  async follow(
    userId: number,
    id: number,
    onProgress: (p: OptimizeProgress) => void,
  ): Promise<{ done: Promise<OptimizeJobView>; stop(): void }> {
    await this.record(userId, id);
    let watch: { stop(): void } | null = null;
    let finished = false;
    let resolve!: (v: OptimizeJobView) => void;
    const done = new Promise<OptimizeJobView>((r) => (resolve = r));
    let lastRun = -1;
    watch = await this.deps.store.watch(userId, id, (job) => {
      if (!job || finished) return;
      const changed = job.trials_run !== lastRun;
      lastRun = job.trials_run;
      void (async () => {
        const last = changed && job.trials_run > 0 ? await this.deps.store.lastTrial(userId, id) : null;
        onProgress(progressOf(job, last));
        // Ended is not yet final: the runner refunds the trials not run just after (the next change).
        if (isSettled(job) && !finished) {
          finished = true;
          watch?.stop();
          resolve(await this.view(userId, id));
        }
      })();
    });
    return { done, stop: () => watch?.stop() };
  }

  /**
   * Cancels a queued or running job: the runner stops before its next batch, the trials not run
   * are refunded. Resolves with the job once it has stopped (409 when it had ended already).
   */
  async cancel(userId: number, id: number): Promise<OptimizeJobView> {
    const job = await this.record(userId, id);
    if (!isActive(job)) throw new ConflictError(`optimisation ${id} is ${job.status} already: nothing to cancel`);
    await this.deps.store.update(userId, id, (j) => (isActive(j) && !j.cancel_requested ? { ...j, cancel_requested: true } : null));
    // Not running anywhere (its process died): cancelled here and now.
    const current = await this.record(userId, id);
    if (isActive(current) && !this.running.has(id) && this.clock.now() - (current.heartbeat_at ?? 0) > LEASE_MS) {
      await this.deps.store.update(userId, id, (j) =>
        isActive(j) ? { ...j, status: 'cancelled', stage: null, finished_at: this.clock.now() } : null,
      );
      await this.refund(userId, id);
    }
    // The runner (here or in another process) stops before its next batch, then refunds: wait for both.
    await new Promise<void>((resolve) => {
      let watch: { stop(): void } | null = null;
      let settled = false;
      void this.deps.store
        .watch(userId, id, (j) => {
          if (settled || !isSettled(j)) return;
          settled = true;
          watch?.stop();
          resolve();
        })
        .then((w) => {
          watch = w;
          if (settled) w.stop();
        });
    });
    return this.view(userId, id);
  }

  /** Saves the chosen trial as a model (a train job with the trial's parameters), and deploys it when asked. */
  async save(caller: Caller, id: number, request: OptimizeSaveRequest): Promise<OptimizeJobView> {
    const job = await this.record(caller.user_id, id);
    if (job.status !== 'done') throw new ConflictError(`optimisation ${id} is ${job.status}: a trial can be saved once it is done`);
    if (job.chosen_trial === null)
      throw new UnprocessableError(`optimisation ${id} has no chosen trial (no trial met the objective's constraints): nothing to save`);
    const trial = (await this.deps.store.trials(caller.user_id, id)).find((t) => t.trial === job.chosen_trial);
    if (!trial) throw new UnprocessableError(`optimisation ${id}: its chosen trial ${job.chosen_trial} is missing`);
    const saved = await this.deps.saver.save(caller, job, trial, request);
    await this.deps.store.update(caller.user_id, id, (j) => ({ ...j, saved }));
    return this.view(caller.user_id, id);
  }

  /**
   * Makes this process a runner: it claims each queued job as it is recorded (a watch of the
   * bucket) and, every LEASE_MS / 2, any job whose lease ran out.
   */
  async startRunner(): Promise<void> {
    const tick = () => {
      if (this.stopped) return;
      void this.recover().catch((err: unknown) => this.deps.log.warn({ err }, 'optimisation recovery sweep failed'));
    };
    this.watch = await this.deps.store.watchAll((job) => {
      if (job.status === 'queued' && job.heartbeat_at === null)
        void this.claim(job).catch((err: unknown) =>
          this.deps.log.warn({ err, optimize_id: job.optimize_id }, 'optimisation claim failed'),
        );
    });
    tick();
    this.sweep = setInterval(tick, LEASE_MS / 2);
  }

  /**
   * Claims every active job whose lease ran out (its process died) and resumes it from its stored
   * trials, or fails it and refunds the trials not run after MAX_ATTEMPTS.
   */
  async recover(): Promise<number> {
    let claimed = 0;
    for (const job of await this.deps.store.list(null)) if (await this.claim(job)) claimed++;
    return claimed;
  }

  /** A job no process holds: queued and unclaimed, or its lease ran out. */
  private claimable(job: OptimizeRecord): boolean {
    return (
      isActive(job) && !this.running.has(job.optimize_id) && (job.heartbeat_at === null || this.clock.now() - job.heartbeat_at > LEASE_MS)
    );
  }

  /** Claims the job by compare-and-set on its heartbeat and runs it here (or gives it up); false when another process has it. */
  private async claim(job: OptimizeRecord): Promise<boolean> {
    if (this.stopped || !this.claimable(job)) return false;
    const mine = await this.deps.store
      .update(job.user_id, job.optimize_id, (j) =>
        this.claimable(j) && j.heartbeat_at === job.heartbeat_at ? { ...j, heartbeat_at: this.clock.now() } : null,
      )
      .catch(() => null);
    if (!mine) return false;
    {
      const give = mine.cancel_requested ? 'cancelled' : mine.attempts >= MAX_ATTEMPTS ? 'failed' : null;
      if (give) {
        await this.deps.store.update(mine.user_id, mine.optimize_id, (j) => ({
          ...j,
          status: give,
          stage: null,
          finished_at: this.clock.now(),
          ...(give === 'failed'
            ? { error: `the optimisation's process stopped ${j.attempts} times; the trials not run are refunded` }
            : {}),
        }));
        await this.refund(mine.user_id, mine.optimize_id);
        return true;
      }
      if (mine.attempts > 0)
        this.deps.log.info(
          { optimize_id: mine.optimize_id, trials_run: mine.trials_run },
          'optimisation resumed after its process stopped',
        );
      try {
        const { space } = await this.checked(mine.request, this.owner(mine.user_id));
        this.launch(mine, space);
      } catch (err) {
        await this.deps.store.update(mine.user_id, mine.optimize_id, (j) => ({
          ...j,
          status: 'failed',
          stage: null,
          finished_at: this.clock.now(),
          error: err instanceof Error ? err.message : String(err),
        }));
        await this.refund(mine.user_id, mine.optimize_id);
      }
    }
    return true;
  }

  /** Stops claiming; jobs running here stop with the process and are resumed elsewhere or after a restart (their lease runs out). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sweep) clearInterval(this.sweep);
    this.watch?.stop();
    // The jobs running here are released at once (their runner writes nothing more; a stop is not a failed attempt),
    // so the next runner — another process, or this one after a restart — resumes them without waiting for the lease.
    await Promise.all(
      [...this.running.keys()].map(async (id) => {
        const job = (await this.deps.store.list(null).catch(() => [])).find((j) => j.optimize_id === id);
        if (job)
          await this.deps.store
            .update(job.user_id, id, (j) => (isActive(j) ? { ...j, heartbeat_at: null, attempts: Math.max(0, j.attempts - 1) } : null))
            .catch(() => undefined);
      }),
    );
  }
}
