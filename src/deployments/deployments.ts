import { randomBytes } from 'node:crypto';
import type { JsonKv } from '../bus/index.ts';
import { BadRequestError, DeploymentNotFoundError, ModelNotFoundError, UnprocessableError } from '../errors.ts';
import { isoFromMs } from '../lib/iso-time.ts';
import { nextBarNotice } from '../lib/market-hours.ts';
import type { Logger } from '../log.ts';
import type { ActivityInput } from '../../schemas/activity.ts';
import type { Plan } from '../../schemas/accounts.ts';
import type { Buckets } from '../../schemas/messages.ts';
import type { Caller } from '../../schemas/account-records.ts';
import { type Channel, type DeployRequest, type DeployResponse, type DeployedList, type DeploymentRecord } from '../../schemas/live.ts';
import type { ModelRecord } from '../../schemas/training.ts';
import { templateProblem } from '../lib/bridge-template.ts';
import { chatHookTarget } from '../lib/chat-hook-target.ts';
import { MODEL_REFUSED } from './model-refused.ts';
import { deploymentKey, type DeploymentsView } from './view.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

type SetsKv = JsonKv<typeof Buckets.deploymentSets.schema>;

export interface DeploymentsDeps {
  view: DeploymentsView;
  /** Each user's deployment set: the plan limit holds under concurrent deploys (compare-and-set). */
  sets: SetsKv;
  /** A user's trained model by stem or display name (the model store's `resolve`). */
  models: { resolve(userId: number, name: string): Promise<ModelRecord | null> };
  activity: { emit(event: ActivityInput): Promise<unknown> };
  log: Logger;
  /** Models a user may have deployed at once, per plan (deploying beyond swaps out the oldest). */
  limits: Record<Plan, number>;
  /**
   * Refuses a webhook (or, with `channel`, a Discord or Slack webhook) URL that is malformed, not
   * on that service's hosts, or one the service must not call (SSRF), throwing a 400 saying why;
   * else its normal form.
   */
  checkWebhookTarget: (url: string, channel?: 'webhook' | 'discord' | 'slack') => Promise<string>;
  /**
   * The safety check of the model's stored ONNX (src/scoring/model-check): null when it passes,
   * else why it was refused (for the log only). Without it, a refused model is found out by its
   * actor, which marks the deployment failed.
   */
  checkModel?: (model: ModelRecord) => Promise<string | null>;
  /**
   * The email channel's destination: the account's confirmed address, or a 422 saying why there is
   * none (no SMTP server on this server; no address confirmed yet). Absent: the channel is unavailable.
   */
  emailAddress?: (userId: number) => Promise<string>;
  /** The time (liveClock unless a test sets it). */
  clock?: Clock;
}

/** Where a deployment's signals go, per channel (the destination fields of its record). */
type DeployTargets = Pick<DeploymentRecord, 'webhook_url' | 'messenger_chat_id'> & {
  webhook_template: string | null;
  discord_webhook_url: string | null;
  slack_webhook_url: string | null;
  email_to: string | null;
};

/**
 * Whether a deployment already in place is this deploy: the same model as trained now, running
 * (not failed), the same channels and the same destination for each.
 */
function sameDeployment(existing: DeploymentRecord, channels: Channel[], targets: DeployTargets, model: ModelRecord): boolean {
  if (existing.failure || existing.created_at < model.trained_at) return false;
  if (existing.channels.length !== channels.length || !channels.every((c) => existing.channels.includes(c))) return false;
  return (
    existing.webhook_url === targets.webhook_url &&
    (existing.webhook_template ?? null) === targets.webhook_template &&
    existing.messenger_chat_id === targets.messenger_chat_id &&
    (existing.discord_webhook_url ?? null) === targets.discord_webhook_url &&
    (existing.slack_webhook_url ?? null) === targets.slack_webhook_url &&
    (existing.email_to ?? null) === targets.email_to
  );
}

/** A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes. */
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const newDeploymentId = () => `dep_${randomBytes(9).toString('base64url')}`;

/**
 * Deployments as desired state in KV: the API writes them, actor hosts run a model actor for
 * each. One deployment per model; a user's deployments are bounded by their plan, and deploying
 * beyond the limit swaps out the oldest (the contract's "auto-swaps").
 */
export class Deployments {
  private readonly clock: Clock;

  constructor(private readonly deps: DeploymentsDeps) {
    this.clock = this.deps.clock ?? liveClock;
  }

  /** The view the API writes through (the actor host and delivery read the same). */
  get view(): DeploymentsView {
    return this.deps.view;
  }

  async deploy(caller: Caller, request: DeployRequest): Promise<DeployResponse> {
    const model = await this.deps.models.resolve(caller.user_id, request.model_name);
    if (!model) throw new ModelNotFoundError(`no model "${request.model_name}" for this key: GET /api/v1/models lists yours`);
    const channels = [...new Set(request.channels)];
    const targets = await this.targets(caller, channels, request);
    // The same model to the same destinations again changes nothing: no new deployment, no signal sent twice.
    // By its key (one read), not by listing the user's deployments: a user may have hundreds.
    const existing = await this.deps.view.ofModel(caller.user_id, model.model_name);
    if (existing && existing.model_name === model.model_name && sameDeployment(existing, channels, targets, model)) {
      return {
        status: 'deployed',
        model: model.stem,
        channels: existing.channels,
        deployment_id: existing.deployment_id,
        ...(existing.webhook_secret ? { webhook_secret: existing.webhook_secret } : {}),
        replaced: [],
        unchanged: true,
        ...nextBarNotice(model.symbol, model.timeframe, this.clock.now()),
      };
    }
    // A model its actor could never load is refused here rather than deployed to fail.
    const refused = (await this.deps.checkModel?.(model)) ?? null;
    if (refused !== null) {
      this.deps.log.warn(
        { user_id: caller.user_id, model: model.stem, reason: refused },
        'deploy refused: the stored model failed the safety check',
      );
      throw new UnprocessableError(`model ${model.model_name}: ${MODEL_REFUSED}`);
    }

    const record: DeploymentRecord = {
      deployment_id: newDeploymentId(),
      user_id: caller.user_id,
      username: caller.username,
      model_name: model.model_name,
      stem: model.stem,
      symbol: model.symbol,
      timeframe: model.timeframe,
      channels,
      ...targets,
      webhook_secret: channels.includes('webhook') ? newSecret() : null,
      created_at: this.clock.now(),
    };
    const { view } = this.deps;
    const key = deploymentKey(caller.user_id, model.model_name);
    const replaced = await this.admit(caller, key);
    await view.put(record);
    // A deploy admitted after ours may have swapped ours out before our record landed.
    if (!(await this.deps.sets.get(String(caller.user_id)))?.value.keys.includes(key)) await view.remove(caller.user_id, model.model_name);
    this.deps.log.info(
      { user_id: caller.user_id, model: model.stem, deployment_id: record.deployment_id, channels, replaced: replaced.map((r) => r.stem) },
      'model deployed',
    );
    await this.deps.activity.emit({
      kind: 'DEPLOYED',
      bot: caller.username,
      model: { name: model.model_name, stem: model.stem, symbol: model.symbol, timeframe: model.timeframe, model_type: model.model_type },
      metrics: {
        n: model.test_stats.n,
        wr: model.test_stats.wr,
        ret: model.test_stats.ret,
        pf: model.test_stats.pf,
        mdd: model.test_stats.mdd,
      },
    });
    return {
      status: 'deployed',
      model: model.stem,
      channels,
      deployment_id: record.deployment_id,
      ...(record.webhook_secret ? { webhook_secret: record.webhook_secret } : {}),
      replaced: replaced.map((r) => r.stem),
      // A forex weekend is said, not left to look like a deployment that does nothing.
      ...nextBarNotice(model.symbol, model.timeframe, this.clock.now()),
    };
  }

  /**
   * Each channel's destination, checked: a URL for every URL channel (400 when missing, or given
   * without its channel), the SSRF and host checks, and the bridge template (422 when it is wrong).
   */
  private async targets(caller: Caller, channels: Channel[], request: DeployRequest): Promise<DeployTargets> {
    const check = this.deps.checkWebhookTarget;
    const url = async (channel: 'webhook' | 'discord' | 'slack', field: 'webhook_url' | 'discord_webhook_url' | 'slack_webhook_url') => {
      const given = request[field];
      if (channels.includes(channel) && !given) throw new BadRequestError(`${field} is required with the ${channel} channel`);
      if (!channels.includes(channel) && given)
        throw new BadRequestError(`${field} given without the ${channel} channel: add "${channel}" to channels`);
      return given ? await check(given, channel) : null;
    };
    if (request.webhook_template !== undefined) {
      if (!channels.includes('webhook'))
        throw new BadRequestError('webhook_template given without the webhook channel: add "webhook" to channels');
      const problem = templateProblem(request.webhook_template);
      if (problem) throw new UnprocessableError(problem);
    }
    return {
      webhook_url: await url('webhook', 'webhook_url'),
      webhook_template: request.webhook_template ?? null,
      messenger_chat_id: request.messenger_chat_id ?? null,
      discord_webhook_url: await url('discord', 'discord_webhook_url'),
      slack_webhook_url: await url('slack', 'slack_webhook_url'),
      email_to: channels.includes('email') ? await this.emailTo(caller) : null,
    };
  }

  /** The email channel's address: the account's confirmed one (422 when there is none, or no mail server). */
  private async emailTo(caller: Caller): Promise<string> {
    if (!this.deps.emailAddress)
      throw new UnprocessableError('the email channel is unavailable on this server (no SMTP_URL is configured): choose another channel');
    return this.deps.emailAddress(caller.user_id);
  }

  /**
   * Adds the key to the user's deployment set by compare-and-set, swapping out the oldest beyond
   * the plan's limit (their records are deleted); returns those swapped out. Concurrent deploys
   * serialise here, so the limit holds.
   */
  private async admit(caller: Caller, key: string): Promise<DeploymentRecord[]> {
    const { view, sets } = this.deps;
    const setKey = String(caller.user_id);
    // A user without a set yet (deployed before sets existed) starts from their records; the
    // others' deploys read nothing but their set (one value, whatever their number of deployments).
    const legacy = (await sets.get(setKey)) ? null : (await view.ofUser(caller.user_id)).map((d) => deploymentKey(d.user_id, d.model_name));
    const limit = this.deps.limits[caller.plan];
    let evicted: string[] = [];
    await sets.mutate(setKey, (set) => {
      const keys = (set?.keys ?? legacy ?? []).filter((k) => k !== key);
      evicted = keys.slice(0, Math.max(0, keys.length - (limit - 1)));
      return { keys: [...keys.slice(evicted.length), key] };
    });
    return view.removeKeys(evicted);
  }

  /** Takes a key out of the user's deployment set (undeploy). */
  private async release(userId: number, key: string): Promise<void> {
    if (!(await this.deps.sets.get(String(userId)))) return;
    await this.deps.sets.mutate(String(userId), (set) => ({ keys: (set?.keys ?? []).filter((k) => k !== key) }));
  }

  /** The caller's deployment of a model (stem or display name); 404 when it is not deployed. */
  async find(userId: number, name: string): Promise<DeploymentRecord> {
    const found = await this.deps.view.find(userId, name);
    if (!found) throw new DeploymentNotFoundError(`model "${name}" is not deployed by this key: GET /api/v1/deployed lists yours`);
    return found;
  }

  async undeploy(userId: number, name: string): Promise<{ status: 'undeployed'; model: string }> {
    const found = await this.find(userId, name);
    await this.deps.view.remove(userId, found.model_name);
    await this.release(userId, deploymentKey(userId, found.model_name));
    this.deps.log.info({ user_id: userId, model: found.stem, deployment_id: found.deployment_id }, 'model undeployed');
    return { status: 'undeployed', model: found.stem };
  }

  /** Stops a deleted model's deployment (Training.delete calls this); true when there was one. */
  async undeployModel(record: ModelRecord): Promise<boolean> {
    const removed = await this.deps.view.remove(record.user_id, record.model_name);
    if (removed) await this.release(record.user_id, deploymentKey(record.user_id, record.model_name));
    return removed;
  }

  /** The webhook_url of the user's most recent deployment that has one (one_shot's `webhook: true`). */
  async lastWebhookUrl(userId: number): Promise<string | null> {
    const withUrl = (await this.deps.view.ofUser(userId)).filter((d) => d.webhook_url);
    return withUrl.at(-1)?.webhook_url ?? null;
  }

  async list(userId: number): Promise<DeployedList> {
    const deployed = (await this.deps.view.ofUser(userId)).map((d) => ({
      model: d.stem,
      model_name: d.model_name,
      symbol: d.symbol,
      timeframe: d.timeframe,
      channels: d.channels,
      created_at: isoFromMs(d.created_at),
      webhook_url: d.webhook_url,
      webhook_template: d.webhook_template ?? null,
      messenger_chat_id: d.messenger_chat_id,
      discord_webhook_url: chatHookTarget('discord', d.discord_webhook_url),
      slack_webhook_url: chatHookTarget('slack', d.slack_webhook_url),
      email_to: d.email_to ?? null,
      deployment_id: d.deployment_id,
      ...(d.failure
        ? { status: 'failed' as const, error: d.failure.reason, failed_at: isoFromMs(d.failure.at) }
        : { status: 'deployed' as const }),
    }));
    return { count: deployed.length, deployed };
  }
}
