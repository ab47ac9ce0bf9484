import type { Metering } from '../accounts/index.ts';
import { isTransientBusError } from '../bus/index.ts';
import type { Deployments } from '../deployments/index.ts';
import { AppError, BadRequestError, UnprocessableError, WebhookTargetError } from '../errors.ts';
import { templateProblem } from '../lib/bridge-template.ts';
import type { Generation, GenerateStreamEvent } from '../generation/index.ts';
import { EventChannel } from '../generation/index.ts';
import { resolveMarket, type Training } from '../training/index.ts';
import { nextBarNotice } from '../lib/market-hours.ts';
import type { Channel } from '../../schemas/live.ts';
import type { UserRecord } from '../../schemas/account-records.ts';
import type { OneShotEvent, OneShotRequest, OneShotRun } from '../../schemas/oneshot.ts';
import { summariseRobustness } from '../../schemas/robustness-summary.ts';
import { TrainRequest } from '../../schemas/training.ts';
import { withMarket } from '../generation/index.ts';
import { heldBack, verdictStep } from './deploy-gate.ts';
import { awaitJob, deployRun, holdRun, recordOnJob, refundRun, type OutcomeDeps } from './outcome.ts';
import { OneShotRecovery } from './recovery.ts';
import { OneShotRuns } from './run-store.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

export interface OneShotDeps extends OutcomeDeps {
  generation: Pick<Generation, 'stream'>;
  training: Pick<Training, 'submit' | 'job' | 'finished'>;
  deployments: Pick<Deployments, 'deploy' | 'find' | 'lastWebhookUrl'>;
  metering: Pick<Metering, 'charge' | 'refund' | 'balance'>;
  /** Refuses a malformed or forbidden webhook URL (400 saying why); else its normal form. */
  /** As the deploy API's: a webhook URL, or with `channel` a Discord or Slack webhook URL, checked (400) and normalised. */
  checkWebhookTarget: (url: string, channel?: 'webhook' | 'discord' | 'slack') => Promise<string>;
  /** Credits of the pipeline itself (train + deploy), on top of what generation costs; refunded when it fails before deploy. */
  fee: number;
  /** Base URL clients reach the service at (for live_url). */
  publicUrl: () => string;
  /** The account's confirmed e-mail address, or a 422 saying what to do; absent when the server cannot mail (no SMTP_URL). */
  emailAddress?: (userId: number) => Promise<string>;
  /** The time (liveClock unless a test sets it). */
  clock?: Clock;
}

/** Honest progress: generation is quick, training is most of the wait, deploy is a few writes. */
const PCT = {
  generate: 0,
  generated: 15,
  queued: 20,
  running: 25,
  checking: 30,
  training: 40,
  backtesting: 75,
  saving: 82,
  deploy: 90,
} as const;
const TRAIN_PCT: Record<string, number> = {
  'loading bars': PCT.running,
  'checking code': PCT.checking,
  training: PCT.training,
  backtesting: PCT.backtesting,
  saving: PCT.saving,
};

/** Raised when this process stops (or loses NATS) mid-pipeline: the run is left for recovery, not refunded. */
class HandedOver extends Error {}

/**
 * POST /one_shot: prompt → code (the generation service, streamed as tokens) → train job → deploy.
 * Pays first: the fee (and generation's own price) up front, so 402/429 are plain HTTP errors;
 * a failure before the deploy refunds the fee, and so does a model kept off live because its
 * robustness verdict falls short of the request's deploy_if (the model is kept). With the caller's own code, nothing is charged but
 * the training-compute cap. The run's progress is in KV (`sf_one_shots`): a client that
 * disconnects does not stop it, and a process that dies mid-run leaves it to the next one
 * (OneShotRecovery), which deploys or refunds. The outcome lands on the train job (`one_shot`).
 */
export class OneShot {
  readonly recovery: OneShotRecovery;

  private readonly clock: Clock;

  constructor(private readonly deps: OneShotDeps) {
    this.clock = this.deps.clock ?? liveClock;
    this.recovery = new OneShotRecovery(deps);
  }

  async start(user: UserRecord, request: OneShotRequest): Promise<AsyncIterable<OneShotEvent>> {
    const { deps } = this;
    // The same rule as /generate: the field, else what the prompt names, else the default. With the
    // trader's own code, its header line names the market before the prompt does (POST /train's
    // rule; a symbol field other than the header's is refused here, before anything starts).
    const worded = withMarket({ description: request.prompt, symbol: request.symbol, timeframe: request.timeframe });
    const market = request.code
      ? resolveMarket({ code: request.code, symbol: request.symbol, timeframe: request.timeframe }, 'train', worded)
      : null;
    const { symbol, timeframe } = market ?? worded;
    const fromHeader =
      market && (market.symbol_from === 'code header' || market.timeframe_from === 'code header')
        ? ', the market of the code’s header line'
        : '';
    const channels: Channel[] = ['sse'];
    let webhookUrl: string | undefined;
    if (request.deliver_to?.webhook) {
      webhookUrl =
        request.deliver_to.webhook === true
          ? ((await deps.deployments.lastWebhookUrl(user.user_id)) ?? undefined)
          : request.deliver_to.webhook;
      if (!webhookUrl) throw new BadRequestError('deliver_to.webhook is true but none of your deployments has a webhook_url: give the URL');
      // Refused before anything is charged, not after the training.
      webhookUrl = await deps.checkWebhookTarget(webhookUrl);
      channels.push('webhook');
    }
    if (request.deliver_to?.messenger) channels.push('messenger');
    // Every destination is checked before anything is charged, not after the training.
    const template = request.deliver_to?.webhook_template ?? null;
    if (template !== null) {
      if (!webhookUrl) throw new BadRequestError('deliver_to.webhook_template needs deliver_to.webhook');
      const problem = templateProblem(template);
      if (problem) throw new UnprocessableError(problem);
    }
    const chatHook = async (channel: 'discord' | 'slack', url: string | undefined): Promise<string | null> => {
      if (!url) return null;
      try {
        const checked = await deps.checkWebhookTarget(url, channel);
        channels.push(channel);
        return checked;
      } catch (err) {
        // Named as this request names the field.
        if (err instanceof WebhookTargetError)
          throw new WebhookTargetError(err.message.replace(`${channel}_webhook_url`, `deliver_to.${channel}`));
        throw err;
      }
    };
    const discordUrl = await chatHook('discord', request.deliver_to?.discord);
    const slackUrl = await chatHook('slack', request.deliver_to?.slack);
    if (request.deliver_to?.email) {
      if (!deps.emailAddress)
        throw new UnprocessableError('deliver_to.email: the email channel is unavailable on this server (no SMTP_URL is configured)');
      await deps.emailAddress(user.user_id);
      channels.push('email');
    }

    const fee = request.code ? 0 : deps.fee;
    if (fee > 0) await deps.metering.charge(user.user_id, fee, 'one_shot');
    let run: OneShotRun;
    let written: OneShotRun | null = null;
    let generation: AsyncIterable<GenerateStreamEvent> | null = null;
    const runId = OneShotRuns.newId();
    // Driven here from before it is written: the recovery claims it for this process at once, so no other takes it.
    const untrack = this.recovery.track(runId);
    try {
      run = written = await deps.runs.create({
        run_id: runId,
        user_id: user.user_id,
        username: user.username,
        plan: user.plan,
        status: 'generating',
        fee,
        channels,
        deploy_if: request.deploy_if ?? 'always',
        webhook_url: webhookUrl ?? null,
        messenger_chat_id: request.deliver_to?.messenger ?? null,
        webhook_template: template,
        discord_webhook_url: discordUrl,
        slack_webhook_url: slackUrl,
        job_id: null,
        model_stem: null,
        deployment_id: null,
        reason: null,
      });
      if (!request.code) {
        generation = await deps.generation.stream(user, {
          description: request.prompt,
          symbol,
          timeframe,
          ...(request.ai_model ? { ai_model: request.ai_model } : {}),
        });
      }
    } catch (err) {
      try {
        if (fee > 0) await deps.metering.refund(user.user_id, fee, 'one_shot:failed');
        // A run already written says so too, or the recovery would take it up and refund it a second time.
        if (written) {
          const reason = err instanceof AppError ? err.message : 'the pipeline could not start; the one_shot fee was refunded';
          await deps.runs
            .update(runId, { status: 'refunded', reason })
            .catch((e: unknown) => deps.log.error({ err: e, run_id: runId }, 'one_shot: marking a run refunded failed'));
        }
      } finally {
        // Unfinished (the refund failed): the recovery takes it up and refunds it.
        untrack();
      }
      throw err;
    }

    const out = new EventChannel<OneShotEvent>();
    const step = (stage: 'generate' | 'train' | 'deploy', pct: number, msg: string) =>
      out.push({ event: 'step', data: { stage, pct, msg } });
    const stopped = () => this.recovery.stopped;
    const run$ = async () => {
      try {
        let code = request.code;
        if (generation) {
          step('generate', PCT.generate, `writing the strategy for ${symbol} ${timeframe}`);
          for await (const e of generation) {
            if (e.event === 'token') out.push({ event: 'token', data: e.data });
            else if (e.event === 'reset') step('generate', PCT.generate, `rewriting: ${e.data.reason}`);
            else if (e.event === 'error') throw new BadRequestError(e.data.error);
            else code = e.data.code;
          }
          if (!code) throw new Error('generation ended without code');
          step('generate', PCT.generated, 'strategy written');
        }
        if (stopped()) throw new HandedOver();
        const started = await deps.training.submit(user, TrainRequest.parse({ code, symbol, timeframe }));
        run = await deps.runs.update(run.run_id, { status: 'training', job_id: started.job_id, model_stem: started.model_stem });
        await recordOnJob(deps, started.job_id, { status: 'running' });
        step(
          'train',
          PCT.queued,
          `train job ${started.job_id} queued (${started.model_name}) on ${symbol} ${timeframe}${fromHeader}; if this stream ends early, GET /api/v1/train/${started.job_id} tells the outcome (one_shot)`,
        );
        const job = await awaitJob(deps, run, (stage) => step('train', TRAIN_PCT[stage] ?? PCT.running, stage), stopped);
        if (!job) throw new HandedOver();
        if (job.status === 'failed') throw new BadRequestError(`training failed: ${job.error}`);
        step('train', PCT.deploy - 2, `trained: ${job.test_stats!.n} test trades, return ${(job.test_stats!.ret * 100).toFixed(2)} %`);
        // Is the edge real? Said before the deploy, so a trader hears an overfit verdict before the model goes live.
        if (job.robustness) step('train', PCT.deploy - 1, verdictStep(job.robustness, run.deploy_if));
        const robustness = job.robustness ? summariseRobustness(job.robustness) : null;
        const trained = {
          model: started.model_name,
          stem: started.model_stem,
          metrics: job.test_stats!,
          train_metrics: job.train_stats!,
          job_id: started.job_id,
          robustness,
        };

        const held = heldBack(run.deploy_if, job.robustness, started.model_stem, run.fee);
        if (held) {
          await holdRun(deps, run, held);
          step('deploy', 100, held);
          out.push({
            event: 'done',
            data: {
              ...trained,
              live_url: null,
              channels: [],
              deployed: false,
              not_deployed_reason: held,
              deployment_id: null,
              credits_remaining: await deps.metering.balance(user.user_id),
              next_bar_at: null,
            },
          });
          return;
        }

        step('deploy', PCT.deploy, `deploying to ${channels.join(', ')}`);
        const dep = await deployRun(deps, run, false);
        step('deploy', 100, 'live');
        out.push({
          event: 'done',
          data: {
            ...trained,
            live_url: `${deps.publicUrl()}/api/v1/signals/${encodeURIComponent(started.model_stem)}/stream`,
            channels: dep?.channels ?? channels,
            deployed: true,
            not_deployed_reason: null,
            deployment_id: dep?.deployment_id ?? '',
            ...(dep?.webhook_secret ? { webhook_secret: dep.webhook_secret } : {}),
            credits_remaining: await deps.metering.balance(user.user_id),
            // When it will first be heard from (a forex weekend said in `note`).
            ...nextBarNotice(symbol, timeframe, this.clock.now()),
          },
        });
      } catch (err) {
        out.push({ event: 'error', data: { error: await this.settle(run, err) } });
      } finally {
        untrack();
        out.close();
      }
    };
    void run$();
    return out;
  }

  /** A run that failed in this process: refunded with the reason, or left for the next process. */
  private async settle(run: OneShotRun, err: unknown): Promise<string> {
    const { deps } = this;
    if (err instanceof HandedOver || isTransientBusError(err)) {
      deps.log.warn({ run_id: run.run_id, error: (err as Error).message }, 'one_shot handed over to recovery');
      const where =
        run.job_id !== null
          ? `GET /api/v1/train/${run.job_id} shows whether it was deployed or refunded (one_shot)`
          : 'its fee is refunded if it cannot go on';
      return `the service is restarting: the pipeline goes on after the restart; ${where}`;
    }
    if (!(err instanceof AppError)) deps.log.error({ err, user_id: run.user_id }, 'one_shot failed');
    const message = err instanceof AppError ? err.message : 'the pipeline failed; the one_shot fee was refunded';
    const current = await deps.runs.update(run.run_id, {}).catch(() => run);
    if (current.status !== 'deployed' && current.status !== 'not_deployed')
      await refundRun(deps, current, message).catch((e: unknown) =>
        deps.log.error({ err: e, run_id: run.run_id }, 'one_shot refund failed'),
      );
    return message;
  }
}
