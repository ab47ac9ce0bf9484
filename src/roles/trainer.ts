import { Trainer } from '../../actors/trainer/index.ts';
import { ownParts, type RoleContext, type RoleParts } from './context.ts';
import { baseChecks, pythonCheck, roleCommand } from './kit.ts';

/** The trainer role's parts: a trainer pulling train jobs from the shared work queue, and the optimisation runner. */
export interface TrainerParts extends RoleParts {
  trainer: Trainer;
}

/**
 * A trainer (any number of them, in any process) pulling train jobs from the shared work queue;
 * optimisation jobs run where train jobs run: claimed from their bucket, resumed when a runner dies.
 */
export function buildTrainer(ctx: RoleContext): Promise<TrainerParts> {
  return ownParts(ctx, async (own) => {
    const { config, log } = ctx;
    const { training, accounts, activity, optimize } = await ctx.domain();
    const trainer = new Trainer({
      queue: training.queue,
      jobs: training.jobs,
      models: training.models,
      pipeline: training.pipeline,
      penalty: training.penalty,
      activity: activity.bus,
      metering: accounts.metering,
      log,
      concurrency: config.TRAIN_CONCURRENCY,
    });
    await trainer.start();
    own.push(() => trainer.stop());
    await optimize.startRunner();
    return { trainer, stats: () => ({}) };
  });
}

/** `signalforge trainer`: pulls train jobs from the shared work queue. */
export const startTrainerRole = roleCommand('trainer', async (ctx) => {
  const parts = await buildTrainer(ctx);
  const { runtime, clickhouse } = await ctx.domain();
  return {
    parts,
    checks: { ...baseChecks(ctx.bus, clickhouse), python: pythonCheck(runtime) },
    running: { concurrency: ctx.config.TRAIN_CONCURRENCY },
  };
});
