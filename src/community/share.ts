import { BadRequestError, ConflictError, ModelNotFoundError, ShareGateError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { ActivityInput } from '../../schemas/activity.ts';
import { summariseRobustness } from '../../schemas/robustness-summary.ts';
import { Results, type ModelRecord } from '../../schemas/training.ts';
import type { CommunityEntryRecord, DescentCheck, ShareRequest } from '../../schemas/community.ts';
import type { Caller } from '../../schemas/account-records.ts';
import { announcedModel } from './announce.ts';
import type { CommunityIndex } from './community-index.ts';
import { shareKey, type CommunityStore } from './community-store.ts';
import { descent } from './descent.ts';
import { sampleSd } from './ranking.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

const DAY_MS = 86_400_000;

/** What sharing needs of the trained models (the model store satisfies it). */
export interface ModelSource {
  /** A user's model by stem or display name; null when that user has none by that name. */
  resolve(userId: number, name: string): Promise<ModelRecord | null>;
  /** A user's models, most recently trained first. */
  list(userId: number): Promise<ModelRecord[]>;
  code(record: ModelRecord): Promise<string>;
  onnx(record: ModelRecord): Promise<Uint8Array>;
  resultsJson(record: ModelRecord): Promise<string>;
}

export interface ShareDeps {
  store: CommunityStore;
  index: CommunityIndex;
  models: ModelSource;
  activity: { emit(event: ActivityInput): Promise<unknown> };
  log: Logger;
  clock?: Clock;
}

/** What ranking freezes from results.json: the test trades and the test span. */
const RankingInputs = Results.pick({ trade_log: true, spans: true, settings: true, pred_stats: true, robustness: true });

/**
 * POST /share: publishes one of the caller's trained models as a community entry, frozen as it is
 * now. The gate is the contract's, on the model's recorded test backtest. Sharing the same
 * trained artifact again gives its entry back — also when two shares race, in any processes: the
 * artifact is claimed for one id by a KV create, and the entry is written by another create, so
 * exactly one request writes it and announces it (SHARED).
 */
export class Share {
  private readonly clock: Clock;

  constructor(private readonly deps: ShareDeps) {
    this.clock = deps.clock ?? liveClock;
  }

  async share(caller: Caller, request: ShareRequest): Promise<{ entry: CommunityEntryRecord; created: boolean }> {
    const outcome = await this.publish(caller, request);
    // Read-your-writes in this process; the index's watch brings the same record a moment later.
    this.deps.index.putEntry(outcome.entry);
    return outcome;
  }

  private async publish(caller: Caller, request: ShareRequest): Promise<{ entry: CommunityEntryRecord; created: boolean }> {
    const { store } = this.deps;
    if (request.parent_id !== undefined) await this.checkParent(caller, request.parent_id);
    const model = await this.pickModel(caller, request.model_stem);
    checkGate(model);

    const key = shareKey(caller.user_id, model.stem, model.artifact);
    const earlier = await store.shareClaim(key);
    if (earlier !== null) {
      const existing = await store.entry(earlier);
      if (existing) return { entry: existing, created: false };
    }
    // A claim whose entry is missing was cut short (a crash, or a share still writing): whoever
    // comes next completes it under the same id; the entry's create decides who wrote it.
    const id = earlier ?? (await store.claimShare(key, await store.nextId()));
    const existing = await store.entry(id);
    if (existing) return { entry: existing, created: false };

    const record = await this.freeze(caller, model, request, id);
    if (!(await store.createEntry(record))) {
      const winner = await store.entry(id);
      if (!winner) throw new Error(`community entry ${id} exists but cannot be read`);
      return { entry: winner, created: false };
    }
    this.deps.index.putEntry(record);
    this.deps.log.info({ user_id: caller.user_id, community_id: id, model: model.stem, parent_id: record.parent_id }, 'model shared');
    await this.deps.activity.emit({
      kind: 'SHARED',
      bot: caller.username,
      ...announcedModel(record.model),
      community_id: id,
      ...(record.parent_id !== null ? { parent_id: record.parent_id } : {}),
    });
    return { entry: record, created: true };
  }

  private async pickModel(caller: Caller, name: string | undefined): Promise<ModelRecord> {
    const { models } = this.deps;
    if (name !== undefined) {
      const model = await models.resolve(caller.user_id, name);
      if (!model)
        throw new ModelNotFoundError(
          `no model ${JSON.stringify(name)} for this key: GET /api/v1/models lists yours (by stem or model_name)`,
        );
      return model;
    }
    const [latest] = await models.list(caller.user_id);
    if (!latest) throw new ModelNotFoundError('you have no trained model to share: train one with POST /api/v1/train, then share it');
    return latest;
  }

  private async checkParent(caller: Caller, parentId: number): Promise<void> {
    const forked = this.deps.index.hasForked(caller.user_id, parentId) || (await this.deps.store.fork(caller.user_id, parentId)) !== null;
    if (!forked) {
      throw new BadRequestError(
        `parent_id ${parentId}: you have not forked community entry ${parentId}; parent_id must name an entry you forked (POST /api/v1/fork/${parentId}), or leave it out`,
      );
    }
  }

  /**
   * Whether the shared code descends from the parent's frozen code (DESCENT_RULE). A child that
   * does not is published as a root: otherwise the link, the lineage and the payouts that follow
   * it would be anyone's to claim with any code.
   */
  private async checkDescent(parentId: number, code: string, caller: Caller): Promise<DescentCheck> {
    const check: DescentCheck = { parent_id: parentId, ...descent(await this.deps.store.entryCode(parentId), code) };
    if (!check.holds) {
      this.deps.log.info(
        { user_id: caller.user_id, parent_id: parentId, similarity: check.similarity },
        'shared fork published as a root: its code does not descend from the parent’s',
      );
    }
    return check;
  }

  /**
   * The entry as it will stay: the model record, the frozen code and ONNX, and the ranking inputs
   * from the trade log. The author retraining the model meanwhile removes these artifacts: then
   * nothing is published and the caller is asked to share again (409).
   */
  private async freeze(caller: Caller, model: ModelRecord, request: ShareRequest, id: number): Promise<CommunityEntryRecord> {
    const { models, store } = this.deps;
    let code: string, onnx: Uint8Array, resultsText: string;
    try {
      [code, onnx, resultsText] = await Promise.all([models.code(model), models.onnx(model), models.resultsJson(model)]);
    } catch (err) {
      const now = await models.resolve(caller.user_id, model.stem);
      if (!now || now.artifact !== model.artifact) {
        throw new ConflictError(`model ${model.stem} was retrained or deleted while it was being shared: share it again`);
      }
      throw err;
    }
    const results = RankingInputs.parse(JSON.parse(resultsText));
    const capital = results.settings.capital;
    const testReturns = results.trade_log.filter((t) => t.period === 'test').map((t) => t.pnl / capital);
    const testSpan = results.spans.test;
    const check = request.parent_id === undefined ? null : await this.checkDescent(request.parent_id, code, caller);
    // The verdict is frozen like the stats; the full report is left with the author's model (the
    // index keeps every entry in memory, and views show the summary).
    const { robustness: report, ...frozenModel } = model;
    const robustness = report ?? results.robustness;
    await store.freezeFiles(id, code, onnx);
    return {
      community_id: id,
      user_id: caller.user_id,
      author: caller.username,
      title: request.title ?? model.title,
      description: request.description ?? '',
      parent_id: check?.holds ? check.parent_id : null,
      ...(check ? { descent: check } : {}),
      created_at: this.clock.now(),
      model: frozenModel,
      post_cutoff_stats: results.pred_stats,
      test_trade_sd: sampleSd(testReturns),
      test_days: Math.max(0, (Date.parse(testSpan.to) - Date.parse(testSpan.from)) / DAY_MS),
      post_cutoff_bars: results.spans.post_cutoff?.bars ?? 0,
      robustness: robustness ? summariseRobustness(robustness) : null,
    };
  }
}

/** The contract's gate, on the model's recorded test backtest: n_trades >= 1 and total return > 0. */
export function checkGate(model: ModelRecord): void {
  const { n, ret } = model.test_stats;
  const failed: string[] = [];
  if (n < 1) failed.push(`n_trades >= 1 (the model's test backtest has n_trades = ${n})`);
  if (!(ret > 0)) failed.push(`total return > 0 (the model's test backtest has ret = ${ret})`);
  if (failed.length === 0) return;
  throw new ShareGateError(
    `model ${model.stem} cannot be shared: it fails ${failed.join(' and ')}. Share a model whose recorded test backtest trades and ends in profit (retrain with other settings, then share that model)`,
    { n_trades: n, ret, required: { n_trades_min: 1, ret_above: 0 }, failed: failed.map((f) => f.split(' (')[0]) },
  );
}
