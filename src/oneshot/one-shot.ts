import type { Metering } from '../accounts/index.ts';
import type { Deployments } from '../deployments/index.ts';
import { AppError, BadRequestError } from '../errors.ts';
import type { Generation, GenerateStreamEvent } from '../generation/index.ts';
import { EventChannel } from '../generation/index.ts';
import type { Logger } from '../log.ts';
import type { Training } from '../training/index.ts';
import type { Channel } from '../../schemas/live.ts';
import type { UserRecord } from '../../schemas/messages.ts';
import type { OneShotEvent, OneShotRequest } from '../../schemas/oneshot.ts';
import { TrainRequest, type JobView } from '../../schemas/training.ts';
import { marketMentioned } from './market-mention.ts';

export interface OneShotDeps {
  generation: Pick<Generation, 'stream'>;
  training: Pick<Training, 'submit' | 'finished'>;
  deployments: Pick<Deployments, 'deploy' | 'lastWebhookUrl'>;
  metering: Pick<Metering, 'charge' | 'refund' | 'balance'>;
  /** Credits of the pipeline itself (train + deploy), on top of what generation costs; refunded when it fails before deploy. */
  fee: number;
  /** Base URL clients reach the service at (for live_url). */
  publicUrl: () => string;
  log: Logger;
}

/** Honest progress: generation is quick, training is most of the wait, deploy is a few writes. */
const PCT = { generate: 0, generated: 15, queued: 20, running: 25, checking: 30, training: 40, backtesting: 75, saving: 82, deploy: 90 } as const;
const TRAIN_PCT: Record<string, number> = { 'loading bars': PCT.running, 'checking code': PCT.checking, training: PCT.training, backtesting: PCT.backtesting, saving: PCT.saving };

/**
 * POST /one_shot: prompt → code (the generation service, streamed as tokens) → train job → deploy.
 * Pays first: the fee (and generation's own price) up front, so 402/429 are plain HTTP errors;
 * a failure before the deploy refunds the fee. With the caller's own code, nothing is charged but
 * the training-compute cap. A client that disconnects does not stop the pipeline: the model is
 * trained and deployed all the same (it appears in /deployed), never left half-way.
 */
export class OneShot {
  constructor(private readonly deps: OneShotDeps) {}

  async start(user: UserRecord, request: OneShotRequest): Promise<AsyncIterable<OneShotEvent>> {
    const { deps } = this;
    const market = marketMentioned(request.prompt);
    const symbol = request.symbol ?? market.symbol ?? 'EURUSD';
    const timeframe = request.timeframe ?? market.timeframe ?? '15min';
    const channels: Channel[] = ['sse'];
    let webhookUrl: string | undefined;
    if (request.deliver_to?.webhook) {
      webhookUrl = request.deliver_to.webhook === true ? (await deps.deployments.lastWebhookUrl(user.user_id)) ?? undefined : request.deliver_to.webhook;
      if (!webhookUrl) throw new BadRequestError('deliver_to.webhook is true but none of your deployments has a webhook_url: give the URL');
      channels.push('webhook');
    }
    if (request.deliver_to?.messenger) channels.push('messenger');

    const fee = request.code ? 0 : deps.fee;
    if (fee > 0) await deps.metering.charge(user.user_id, fee, 'one_shot');
    let generation: AsyncIterable<GenerateStreamEvent> | null = null;
    try {
      if (!request.code) {
        generation = await deps.generation.stream(user, { description: request.prompt, symbol, timeframe, ...(request.ai_model ? { ai_model: request.ai_model } : {}) });
      }
    } catch (err) {
      if (fee > 0) await deps.metering.refund(user.user_id, fee, 'one_shot:failed');
      throw err;
    }

    const out = new EventChannel<OneShotEvent>();
    const step = (stage: 'generate' | 'train' | 'deploy', pct: number, msg: string) => out.push({ event: 'step', data: { stage, pct, msg } });
    const run = async () => {
      let deployed = false;
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
        const started = await deps.training.submit(user, TrainRequest.parse({ code, symbol, timeframe }));
        step('train', PCT.queued, `train job ${started.job_id} queued (${started.model_name})`);
        const job = await this.awaitJob(user.user_id, started.job_id, (stage) => step('train', TRAIN_PCT[stage] ?? PCT.running, stage));
        if (job.status === 'failed') throw new BadRequestError(`training failed: ${job.error}`);
        step('train', PCT.deploy - 2, `trained: ${job.test_stats!.n} test trades, return ${(job.test_stats!.ret * 100).toFixed(2)} %`);

        step('deploy', PCT.deploy, `deploying to ${channels.join(', ')}`);
        const dep = await deps.deployments.deploy(user, {
          model_name: started.model_stem,
          channels,
          ...(webhookUrl ? { webhook_url: webhookUrl } : {}),
          ...(request.deliver_to?.messenger ? { messenger_chat_id: request.deliver_to.messenger } : {}),
        });
        deployed = true;
        step('deploy', 100, 'live');
        out.push({
          event: 'done',
          data: {
            live_url: `${deps.publicUrl()}/api/v1/signals/${encodeURIComponent(started.model_stem)}/stream`,
            model: started.model_name,
            stem: started.model_stem,
            channels: dep.channels,
            metrics: job.test_stats!,
            train_metrics: job.train_stats!,
            job_id: started.job_id,
            deployment_id: dep.deployment_id,
            ...(dep.webhook_secret ? { webhook_secret: dep.webhook_secret } : {}),
            credits_remaining: await deps.metering.balance(user.user_id),
          },
        });
      } catch (err) {
        if (!deployed && fee > 0) await deps.metering.refund(user.user_id, fee, 'one_shot:failed').catch(() => undefined);
        if (!(err instanceof AppError)) deps.log.error({ err, user_id: user.user_id }, 'one_shot failed');
        out.push({ event: 'error', data: { error: err instanceof AppError ? err.message : 'the pipeline failed; the one_shot fee was refunded' } });
      } finally {
        out.close();
      }
    };
    void run();
    return out;
  }

  private awaitJob(userId: number, jobId: number, onStage: (stage: string) => void): Promise<JobView> {
    return this.deps.training.finished(userId, jobId, onStage);
  }
}
