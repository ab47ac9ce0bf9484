import { z } from 'zod';
import { ExecutionSettings, TradeStats } from './backtest.ts';
import { ErrorBody, IsoDate, IsoDateTime, Symbol, Timeframe } from './common.ts';
import { RobustnessSummary } from './robustness-summary.ts';
import { Verdict } from './robustness.ts';
import { strictObject } from './strict.ts';
import { ModelRecord } from './training.ts';

/**
 * The community's stored shapes, shared by share/fork/leaderboard (src/community), the payout
 * sweep and the live tracker (actors/tracker). Public response shapes are built from these in
 * the community routes; the frozen code never appears in any of them.
 */

/**
 * The check of a share's `parent_id` (src/community/descent.ts, DESCENT_RULE): whether the shared
 * code descends from the named parent's. Where it does not, the entry is published as a root.
 */
export const DescentCheck = z
  .object({
    parent_id: z.number().int().positive().describe('The entry named as parent_id when this was shared'),
    similarity: z
      .number()
      .min(0)
      .max(1)
      .describe('Similarity of this entry’s code to that entry’s (GET /api/v1/lineage/{id} says how it is measured)'),
    threshold: z.number().describe('The similarity a fork link needs'),
    holds: z
      .boolean()
      .describe(
        'true: linked as that entry’s child (parent_id); false: published as a root, with no lineage link and no payouts to that entry’s author',
      ),
  })
  .meta({ id: 'DescentCheck' });
export type DescentCheck = z.infer<typeof DescentCheck>;

/**
 * A shared model, frozen at publication (KV `sf_community`, key = community_id): what forks copy
 * and the leaderboard ranks. The author retraining or deleting the model changes nothing here;
 * the code and the ONNX file are frozen too (object store `sf_community`: `<community_id>/strategy.py`,
 * `<community_id>/model.onnx`).
 */
/**
 * The live tracker stopped following an entry for good: its frozen model failed the safety check
 * (src/scoring's model check), and being frozen it would fail the same way on every retry.
 */
export const TrackingFailureRecord = z.object({
  reason: z
    .string()
    .describe('For everyone who reads the entry, in plain words: what failed and what it means (never the check’s internals)'),
  at: z.number().int().describe('epoch ms when the tracker stopped'),
});
export type TrackingFailureRecord = z.infer<typeof TrackingFailureRecord>;

export const CommunityEntryRecord = z.object({
  community_id: z.number().int().positive(),
  user_id: z.number().int().describe('The author'),
  author: z.string().describe('The author handle (username)'),
  title: z.string(),
  description: z.string(),
  parent_id: z
    .number()
    .int()
    .positive()
    .nullable()
    .describe('The entry this was forked from (null when the parent named at share does not hold: see descent)'),
  created_at: z.number().int().describe('epoch ms of publication'),
  // Optional: entries shared before the descent check (or without parent_id) have none.
  descent: DescentCheck.optional().describe('The check of the parent_id named at share'),
  /** The model as it was when shared (its stats, config, settings, features, artifact id). */
  model: ModelRecord,
  post_cutoff_stats: TradeStats.nullable().describe('The recorded post-cutoff span, when the model had one'),
  // Frozen from results.json at share time for ranking; optional so entries written without them still parse.
  test_trade_sd: z.number().min(0).optional().describe('Sample standard deviation (n − 1) of the test trades’ returns pnl / capital'),
  test_days: z.number().min(0).optional().describe('Length of the test span in days (first to last bar open)'),
  // Frozen from results.json at share time (optional: entries shared before it was kept still parse).
  post_cutoff_bars: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      'Bars after the fit span the train job scored (its post-cutoff span): with the fit span, the rows its features were computed on',
    ),
  // Frozen at share time like the test stats (the full report stays with the author's model, and
  // is left out of `model` here: the index holds every entry in memory). Absent for entries
  // shared before the report existed; null for a model trained without one.
  robustness: RobustnessSummary.nullable().optional().describe('The model’s robustness verdict and deflated Sharpe when it was shared'),
  // The one field written after publication, by the tracker; absent while it tracks (and on entries written before it existed).
  tracking_failure: TrackingFailureRecord.optional().describe('Set when the live tracker stopped following the entry for good'),
});
export type CommunityEntryRecord = z.infer<typeof CommunityEntryRecord>;

/**
 * The verified live track record of an entry (KV `sf_track_records`, key = community_id): the
 * trades the same position engine made on live bars since publication. Written by the tracker
 * after each bar; read by the leaderboard and the catalogue.
 */
/**
 * A persistent divergence between an entry's live trades and what its backtest path gives on the
 * same bars (the tracker's check: actors/tracker/divergence.ts, DIVERGENCE_RULE). While it is set
 * the entry is off the leaderboard; the catalogue and the entry still show it, with this.
 */
export const DivergenceRecord = z.object({
  since: z
    .number()
    .int()
    .describe('epoch ms: open of the first bar of the earliest divergent check among the recent ones when the flag was raised'),
  flagged_at: z.number().int().describe('epoch ms: close of the last bar of the check that raised the flag'),
  checks: z.number().int().min(0).describe('Divergent checks among the last DIVERGENCE_WINDOW_CHECKS that compared something'),
  what: z.string().describe('The first difference the latest divergent check found'),
  agreeing: z
    .number()
    .int()
    .min(0)
    .describe('Agreeing checks in a row since the last divergent one: the flag clears at DIVERGENCE_CLEAR_CHECKS'),
});
export type DivergenceRecord = z.infer<typeof DivergenceRecord>;

export const LiveRecord = z.object({
  since: z.number().int().describe('epoch ms: close of the first bar tracked (the last bar closed at publication)'),
  last_bar_ts: z.number().int().describe('epoch ms: open time of the last bar tracked'),
  bars: z.number().int().min(0).describe('Bars scored since publication'),
  stats: TradeStats.describe('TradeStats of the trades closed since publication'),
  // Present only while the entry is flagged.
  divergence: DivergenceRecord.optional().describe('Set while live trading persistently differs from the backtest path on the same bars'),
});
export type LiveRecord = z.infer<typeof LiveRecord>;

/**
 * A user's fork of an entry (KV `sf_forks`, key `<user_id>.<community_id>`): a strategy in their
 * account, not a model. The copied code is in the `sf_forks` object store (`<user_id>/<community_id>/strategy.py`).
 */
export const ForkRecord = z.object({
  user_id: z.number().int().positive(),
  community_id: z.number().int().positive().describe('The entry forked'),
  model_name: z.string().describe('The suggested model name for training it'),
  created_at: z.number().int().describe('epoch ms'),
  // Optional: forks recorded before the rule count as they did.
  counts: z
    .boolean()
    .optional()
    .describe('Whether the fork counts in the entry’s `forks` (an established account: see FORK_COUNT_RULE); false: in `trial_forks`'),
});
export type ForkRecord = z.infer<typeof ForkRecord>;

/**
 * Which entry a model artifact became (KV `sf_community_shares`, key `<user_id>.<hex of stem>.<artifact>`):
 * created once, so sharing the same trained model again — even at the same moment — finds its entry.
 */
export const ShareClaim = z.object({ community_id: z.number().int().positive() });

// ---- API shapes (share, fork, lineage, leaderboard, catalogue) ------------------------------
// Nothing below carries strategy code except the fork response, which is the one way code leaves.

/** Text limits of what a user writes on an entry. */
export const TITLE_MAX = 100;
export const DESCRIPTION_MAX = 2000;
/** Test trades an entry needs to be ranked by a ratio metric (wr, pf, sharpe, composite). */
export const MIN_RANKED_TRADES = 10;
/** Live trades an entry needs to be ranked by a live ratio metric (live_wr, live_pf). */
export const MIN_LIVE_TRADES = 5;
export const LEADERBOARD_DEFAULT_LIMIT = 50;
export const LEADERBOARD_MAX_LIMIT = 200;
/** Trades the composite's trade-count factor counts at most. */
export const COMPOSITE_TRADE_CAP = 100;

/**
 * Control characters (C0, DEL, C1) and the Unicode text-direction overrides and isolates, which
 * can make a title display as something else. Written as character classes so the JSON Schema
 * carries them as `pattern`.
 */
const NO_CONTROLS = /^[^\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]*$/;
/** The same, line feeds allowed (a description may have paragraphs). */
const NO_CONTROLS_BUT_NEWLINE = /^[^\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]*$/;

export const EntryTitle = z
  .string()
  .max(TITLE_MAX)
  .regex(NO_CONTROLS, 'title: control characters and text-direction overrides are not allowed; send plain one-line text')
  .regex(/\S/, 'title: must contain a visible character')
  .describe(
    `1-${TITLE_MAX} characters of plain text, one line: control characters (U+0000-U+001F, U+007F-U+009F) and text-direction overrides (U+202A-U+202E, U+2066-U+2069) are refused. Stored and served exactly as given, never interpreted as HTML`,
  );

export const EntryDescription = z
  .string()
  .max(DESCRIPTION_MAX)
  .regex(NO_CONTROLS_BUT_NEWLINE, 'description: control characters (other than line feeds) and text-direction overrides are not allowed')
  .describe(
    `0-${DESCRIPTION_MAX} characters of plain text; line feeds (\\n) allowed, every other control character and text-direction override refused. Stored and served exactly as given, never interpreted as HTML`,
  );

export const CommunityIdParams = z.object({
  community_id: z.coerce
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .describe('A community entry id')
    .meta({ examples: [12] }),
});

export const ShareRequest = strictObject({
  model_stem: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Your model, by stem or display name. Default: your most recently trained model'),
  title: EntryTitle.optional().describe('Default: the title of the model’s strategy_config. ' + (EntryTitle.description ?? '')),
  description: EntryDescription.optional().describe('Default: empty. ' + (EntryDescription.description ?? '')),
  parent_id: z
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe('The community entry this model was forked from: must be an entry you forked (POST /fork/{community_id}), else 400'),
}).meta({
  id: 'ShareRequest',
  examples: [{ model_stem: '7_EURUSD_15min_Model 3', title: 'EURUSD momentum, London hours', description: 'RSI + MACD, long and short.' }],
});
export type ShareRequest = z.infer<typeof ShareRequest>;

/** 422 of POST /share: which gate condition failed, with the model's recorded values. */
export const ShareGateRejected = ErrorBody.extend({
  gate: z
    .object({
      n_trades: z.number().int().describe('The model’s recorded test n'),
      ret: z.number().describe('The model’s recorded test total return'),
      required: z.object({ n_trades_min: z.literal(1), ret_above: z.literal(0) }),
      failed: z.array(z.string()).describe('Each condition not met, e.g. `n_trades >= 1`, `total return > 0`'),
    })
    .optional(),
}).meta({ id: 'ShareGateRejected' });

/** Who and when: the fields every picture of an entry starts with. */
export const EntryBasics = z.object({
  community_id: z.number().int(),
  title: z.string(),
  author: z.string().describe('The author’s handle'),
  created_at: IsoDateTime.describe('Publication time'),
  parent_id: z.number().int().nullable().describe('The entry this was forked from'),
  forks: z
    .number()
    .int()
    .describe(
      'Distinct established accounts other than the author that forked this entry: what the `forks` metric ranks (the rule: GET /api/v1/leaderboard)',
    ),
  trial_forks: z
    .number()
    .int()
    .describe('Distinct other accounts that forked it while they were fresh trials (or new): shown apart, never ranked'),
});
export type EntryBasics = z.infer<typeof EntryBasics>;

/** What the leaderboard and every entry view show of a TradeStats. */
export const HeadlineStats = z
  .object({
    n_trades: z.number().int(),
    wr: z.number().describe('Win rate, 0 to 1'),
    pf: z.number().describe('Profit factor (999 with wins and no loss)'),
    ret: z.number().describe('Total return, decimal (0.12 = +12 %)'),
    mdd: z.number().describe('Max drawdown, signed decimal ≤ 0'),
  })
  .meta({ id: 'HeadlineStats' });
export type HeadlineStats = z.infer<typeof HeadlineStats>;

/** How live trading compares with the backtest (live − test); null where a side has nothing to compare. */
export const LiveGap = z
  .object({
    ret_per_day: z
      .number()
      .nullable()
      .describe(
        'live ret / days tracked − test ret / test-span days (return per calendar day); null until a day fraction is tracked or when the test span length is unknown',
      ),
    wr: z.number().nullable().describe('live wr − test wr; null while live has no closed trade'),
    pf: z.number().nullable().describe('live pf − test pf; null while live has no closed trade'),
    avg_trade: z
      .number()
      .nullable()
      .describe('live avg − test avg: mean per-trade return (pnl / capital); null while live has no closed trade'),
  })
  .meta({ id: 'LiveGap' });

/** The verified live track record as views show it; null until the tracker has scored a bar. */
export const LiveView = z
  .object({
    since: IsoDateTime.describe('Tracking started here (publication: the close of the last bar before it)'),
    last_bar: IsoDateTime.describe('Open time of the last bar scored'),
    days_tracked: z.number().describe('(close of the last bar scored − since) in days'),
    bars: z.number().int().describe('Bars scored since publication'),
    n_trades: z.number().int(),
    ret: z.number(),
    wr: z.number(),
    pf: z.number(),
    mdd: z.number(),
    stats: TradeStats.describe('The full TradeStats of the trades closed since publication'),
    gap: LiveGap,
  })
  .meta({ id: 'LiveView' });
export type LiveView = z.infer<typeof LiveView>;

/** The live block without the full TradeStats: what the leaderboard rows and the catalogue carry. */
export const LiveSummary = LiveView.omit({ stats: true }).meta({ id: 'LiveSummary' });
export type LiveSummary = z.infer<typeof LiveSummary>;

/** The flag as views show it (DIVERGENCE_RULE in GET /leaderboard's description says when it is raised and cleared). */
export const DivergenceView = z
  .object({
    since: IsoDateTime.describe('Open of the first bar of the earliest divergent check among the recent ones when the flag was raised'),
    flagged_at: IsoDateTime.describe('Close of the last bar of the check that raised the flag'),
    checks: z.number().int().describe('Divergent checks among the last ones that compared something (GET /leaderboard says how many)'),
    what: z.string().describe('The first difference the latest divergent check found, e.g. which trade and how'),
    agreeing: z.number().int().describe('Agreeing checks since the last divergent one (the flag clears at a number of them)'),
  })
  .meta({ id: 'Divergence' });
export type DivergenceView = z.infer<typeof DivergenceView>;

export const EntryModel = z.object({
  stem: z.string(),
  name: z.string().describe('The model’s display name'),
  symbol: Symbol,
  timeframe: Timeframe,
  model_type: z.string(),
  strategy_title: z.string().describe('strategy_config title'),
});

/** The verdict as views show it: null for an entry shared before the robustness report existed. */
const EntryVerdict = Verdict.nullable().describe(
  'The robustness verdict frozen at share (is the edge real?); null for entries shared before the report existed',
);

/** Ranking figures derived from the frozen test trades (formulas: GET /leaderboard). */
export const EntryScores = z.object({
  sharpe: z.number().describe('Per-trade Sharpe of the test trades'),
  composite: z.number(),
  qualified: z.boolean().describe(`At least ${MIN_RANKED_TRADES} test trades: ranked by ratio metrics ahead of entries with fewer`),
});

/** One community entry as GET /community/{id}, POST /share and the catalogue show it: metrics, no code. */
export const CommunityEntry = z
  .object({
    ...EntryBasics.shape,
    description: z.string(),
    model: EntryModel,
    backtest: z.object({
      train: TradeStats.describe('In-sample'),
      test: TradeStats.describe('Out-of-sample: what the leaderboard ranks'),
      post_cutoff: TradeStats.nullable().describe('Bars after the training end_date, when the model had some'),
    }),
    scores: EntryScores,
    live: LiveView.nullable().describe('The verified live track record since publication; null until the first bar is scored'),
    descent: DescentCheck.nullable().describe(
      'When a parent_id was named at share: whether the code descends from it (if not, parent_id is null). Null otherwise',
    ),
    divergence: DivergenceView.nullable().describe(
      'Set while the live trades persistently differ from what the backtest path gives on the same bars: the entry is then off the leaderboard. Null otherwise',
    ),
    verdict: EntryVerdict,
    robustness: RobustnessSummary.nullable().describe(
      'Is the edge real? The verdict, its reasons and the deflated Sharpe of the out-of-sample record, frozen at share beside the live record that tests it; null for entries shared before the report existed',
    ),
    tracking_failure: z
      .object({ reason: z.string().describe('What failed, in plain words'), failed_at: IsoDateTime })
      .nullable()
      .describe(
        'Set when the live tracker stopped following this entry for good (its frozen model failed the safety check): `live` ends at its last bar scored, and is not resumed. Null while it tracks',
      ),
  })
  .meta({ id: 'CommunityEntry', examples: [exampleEntry()] });
export type CommunityEntry = z.infer<typeof CommunityEntry>;

export const LEADERBOARD_SORTS = ['wr', 'pf', 'ret'] as const;
export const LEADERBOARD_METRICS = [
  'sharpe',
  'ret',
  'wr',
  'pf',
  'n_trades',
  'composite',
  'dsr',
  'forks',
  'live_ret',
  'live_wr',
  'live_pf',
] as const;
export const LeaderboardMetric = z.enum(LEADERBOARD_METRICS);
export type LeaderboardMetric = z.infer<typeof LeaderboardMetric>;

export const LeaderboardQuery = z.object({
  sort: z.enum(LEADERBOARD_SORTS).optional().describe('The contract’s ranking key (default pf). `metric` wins when both are given'),
  metric: LeaderboardMetric.optional().describe('The guide’s ranking key; wins over `sort` when both are given'),
  symbol: Symbol.optional(),
  timeframe: Timeframe.optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(LEADERBOARD_MAX_LIMIT)
    .default(LEADERBOARD_DEFAULT_LIMIT)
    .describe(`Rows at most (default ${LEADERBOARD_DEFAULT_LIMIT}, max ${LEADERBOARD_MAX_LIMIT})`),
});
export type LeaderboardQuery = z.infer<typeof LeaderboardQuery>;

export const LeaderboardRow = z.object({
  rank: z.number().int().describe('1-based position in this answer'),
  ...EntryBasics.shape,
  symbol: Symbol,
  timeframe: Timeframe,
  model_type: z.string(),
  value: z.number().nullable().describe('The ranked metric’s value (null: a live metric with no live record yet)'),
  qualified: z
    .boolean()
    .describe(
      'Meets the minimum trades of a ratio metric (always true for ret, n_trades, forks); unqualified rows follow every qualified one',
    ),
  test: HeadlineStats.describe('Out-of-sample backtest'),
  sharpe: z.number(),
  composite: z.number(),
  dsr: z
    .number()
    .nullable()
    .describe('Deflated Sharpe Ratio frozen at share (the `dsr` metric); null for entries shared before the robustness report existed'),
  verdict: EntryVerdict,
  live: LiveSummary.nullable(),
});
export type LeaderboardRow = z.infer<typeof LeaderboardRow>;

export const Leaderboard = z
  .object({
    ranked_by: LeaderboardMetric,
    symbol: Symbol.nullable(),
    timeframe: Timeframe.nullable(),
    total: z.number().int().describe('Entries matching the filters and ranked'),
    hidden: z
      .number()
      .int()
      .describe('Entries matching the filters left off for a live divergence (each says why at GET /api/v1/community/{id})'),
    count: z.number().int(),
    entries: z.array(LeaderboardRow),
  })
  .meta({ id: 'Leaderboard', examples: [exampleLeaderboard()] });
export type Leaderboard = z.infer<typeof Leaderboard>;

/** One node of a lineage: who, when, and the headline metrics. */
export const LineageNode = z.object({
  ...EntryBasics.shape,
  symbol: Symbol,
  timeframe: Timeframe,
  test: HeadlineStats,
  live: HeadlineStats.nullable().describe('Live headline since publication; null before the first bar is scored'),
});
export type LineageNode = z.infer<typeof LineageNode>;

export const Lineage = z
  .object({
    entry: LineageNode,
    ancestors: z.array(LineageNode).describe('Parent first, then its parent, up to the root (empty for a root)'),
    children: z.array(LineageNode).describe('Direct children (entries shared with parent_id = this one), oldest first'),
  })
  .meta({ id: 'Lineage', examples: [exampleLineage()] });
export type Lineage = z.infer<typeof Lineage>;

/** What POST /train needs to train a fork: the body, ready to send. */
export const ForkTrainRequest = z
  .object({
    code: z.string(),
    symbol: Symbol,
    timeframe: Timeframe,
    model_name: z.string().describe('A suggestion; any free name of yours will do'),
    start_date: IsoDate.describe('First UTC day of the parent’s fit span (warm-up included)'),
    end_date: IsoDate.describe(
      'Last UTC day the parent trained on: the copy reproduces its backtest; drop it (and start_date) to train on the latest bars',
    ),
    train_split: z.number(),
    confidence_threshold: z.number(),
    ...ExecutionSettings.shape,
  })
  .describe('A POST /api/v1/train body reproducing the parent’s training settings');

export const ForkResponse = z
  .object({
    forked_from: z.number().int().describe('The entry copied: send it as parent_id when you share your trained fork'),
    created: z.boolean().describe('false: you had forked this entry before; this is that copy'),
    forked_at: IsoDateTime,
    code: z.string().describe('The strategy code, as the author shared it'),
    suggested_model_name: z.string(),
    symbol: Symbol,
    timeframe: Timeframe,
    train_request: ForkTrainRequest,
  })
  .meta({ id: 'ForkResponse', examples: [exampleFork()] });
export type ForkResponse = z.infer<typeof ForkResponse>;

/**
 * One entry of community.json: headline metrics and lineage ids (the full TradeStats of each span
 * are at GET /community/{id}), so 10,000 entries stay a few megabytes.
 */
export const CatalogueEntry = z.object({
  ...EntryBasics.shape,
  description: z.string(),
  root_id: z.number().int().describe('The first ancestor (itself for a root)'),
  children: z.array(z.number().int()).describe('Direct children, ascending'),
  model: EntryModel,
  train: HeadlineStats,
  test: HeadlineStats,
  post_cutoff: HeadlineStats.nullable(),
  sharpe: z.number(),
  composite: z.number(),
  qualified: z.boolean(),
  dsr: z
    .number()
    .nullable()
    .describe('Deflated Sharpe Ratio frozen at share; null for entries shared before the robustness report existed'),
  verdict: EntryVerdict,
  live: LiveSummary.nullable(),
  divergence: DivergenceView.nullable().describe('Set while the entry is off the leaderboard for a live divergence (why, since when)'),
});
export type CatalogueEntry = z.infer<typeof CatalogueEntry>;

export const Catalogue = z
  .object({
    count: z.number().int(),
    entries: z.array(CatalogueEntry).describe('Every shared entry, by community_id ascending'),
  })
  .meta({ id: 'Catalogue', examples: [{ count: 1, entries: [exampleCatalogueEntry()] }] });
export type Catalogue = z.infer<typeof Catalogue>;

// ---- OpenAPI examples (functions: hoisted, so the schemas above can use them) -------------------

function exampleStats(n: number, wins: number, ret: number, pf: number, mdd: number): TradeStats {
  const np = ret * 10_000;
  return { n, wins, losses: n - wins, wr: wins / n, ret, pf, rr: 1.1, expect: np / n, mdd, np, avg: ret / n, best: 0.006, worst: -0.004 };
}

function exampleEntry() {
  const test = exampleStats(48, 29, 0.041, 1.62, -0.018);
  return {
    community_id: 12,
    title: 'EURUSD momentum, London hours',
    description: 'RSI + MACD, long and short.',
    author: 'brisk-otter-42',
    parent_id: null,
    created_at: '2025-03-04T10:15:00.000Z',
    forks: 3,
    trial_forks: 1,
    model: {
      stem: '7_EURUSD_15min_Model 3',
      name: 'Model 3',
      symbol: 'EURUSD' as const,
      timeframe: '15min' as const,
      model_type: 'XGBClassifier',
      strategy_title: 'RSI/MACD momentum',
    },
    backtest: { train: exampleStats(160, 101, 0.19, 2.1, -0.022), test, post_cutoff: exampleStats(6, 4, 0.004, 1.7, -0.003) },
    scores: { sharpe: 0.21, composite: 1.22, qualified: true },
    live: exampleLive(test),
    descent: null,
    divergence: null,
    verdict: 'inconclusive' as const,
    tracking_failure: null,
    robustness: {
      verdict: 'inconclusive' as const,
      reasons: ['deflated-Sharpe p-value 0.21 across 4 variants tried: the edge may be luck', '3 of 5 walk-forward folds profitable'],
      dsr: 0.79,
      dsr_p_value: 0.21,
      trials: 4,
      sharpe_annualised: 1.4,
      random_p_value: 0.08,
      folds_profitable: 3,
      folds: 5,
    },
  };
}

function exampleCatalogueEntry() {
  const e = exampleEntry();
  const h = (t: TradeStats) => ({ n_trades: t.n, wr: t.wr, pf: t.pf, ret: t.ret, mdd: t.mdd });
  const { stats: _stats, ...live } = e.live;
  return {
    community_id: e.community_id,
    title: e.title,
    description: e.description,
    author: e.author,
    created_at: e.created_at,
    parent_id: e.parent_id,
    root_id: e.community_id,
    children: [15],
    forks: e.forks,
    trial_forks: e.trial_forks,
    model: e.model,
    train: h(e.backtest.train),
    test: h(e.backtest.test),
    post_cutoff: h(e.backtest.post_cutoff),
    sharpe: e.scores.sharpe,
    composite: e.scores.composite,
    qualified: e.scores.qualified,
    dsr: e.robustness.dsr,
    verdict: e.verdict,
    live,
    divergence: null,
  };
}

function exampleLive(test: TradeStats) {
  const stats = exampleStats(9, 5, 0.008, 1.31, -0.007);
  const days = 6;
  return {
    since: '2025-03-04T10:15:00.000Z',
    last_bar: '2025-03-10T10:00:00.000Z',
    days_tracked: days,
    bars: 576,
    n_trades: stats.n,
    ret: stats.ret,
    wr: stats.wr,
    pf: stats.pf,
    mdd: stats.mdd,
    stats,
    gap: { ret_per_day: stats.ret / days - test.ret / 55, wr: stats.wr - test.wr, pf: stats.pf - test.pf, avg_trade: stats.avg - test.avg },
  };
}

function exampleLeaderboard() {
  const e = exampleEntry();
  const { stats: _stats, ...live } = e.live;
  const t = e.backtest.test;
  return {
    ranked_by: 'composite' as const,
    symbol: 'EURUSD' as const,
    timeframe: null,
    total: 1,
    hidden: 0,
    count: 1,
    entries: [
      {
        rank: 1,
        community_id: e.community_id,
        title: e.title,
        author: e.author,
        parent_id: e.parent_id,
        created_at: e.created_at,
        symbol: e.model.symbol,
        timeframe: e.model.timeframe,
        model_type: e.model.model_type,
        forks: e.forks,
        trial_forks: e.trial_forks,
        value: e.scores.composite,
        qualified: true,
        test: { n_trades: t.n, wr: t.wr, pf: t.pf, ret: t.ret, mdd: t.mdd },
        sharpe: e.scores.sharpe,
        composite: e.scores.composite,
        dsr: e.robustness.dsr,
        verdict: e.verdict,
        live,
      },
    ],
  };
}

function exampleLineage() {
  const node = (id: number, parent: number | null, author: string, title: string) => ({
    community_id: id,
    title,
    author,
    created_at: '2025-03-04T10:15:00.000Z',
    parent_id: parent,
    symbol: 'EURUSD' as const,
    timeframe: '15min' as const,
    forks: 1,
    trial_forks: 0,
    test: { n_trades: 48, wr: 0.6, pf: 1.62, ret: 0.041, mdd: -0.018 },
    live: null,
  });
  return {
    entry: node(15, 12, 'calm-heron-07', 'Momentum, tighter stop'),
    ancestors: [node(12, 3, 'brisk-otter-42', 'EURUSD momentum, London hours'), node(3, null, 'quiet-lynx-11', 'Momentum')],
    children: [node(21, 15, 'bold-crane-30', 'Momentum, Asian session')],
  };
}

function exampleFork() {
  const code =
    'import numpy as np\nimport pandas as pd\n\ndef feature_engineering(df, close, open_, high, low):\n    ...\n\ndef strategy_config():\n    ...\n';
  return {
    forked_from: 12,
    created: true,
    forked_at: '2025-03-05T08:00:00.000Z',
    code,
    suggested_model_name: 'fork-12 Model 3',
    symbol: 'EURUSD' as const,
    timeframe: '15min' as const,
    train_request: {
      code,
      symbol: 'EURUSD' as const,
      timeframe: '15min' as const,
      model_name: 'fork-12 Model 3',
      start_date: '2024-02-12',
      end_date: '2025-02-28',
      train_split: 0.7,
      confidence_threshold: 0.55,
      capital: 10_000,
      lot_size: 1,
      commission: 0,
      swap_long: 0,
      swap_short: 0,
      risk_unit: 'pips' as const,
      fill_at_bid_ask: false,
      intrabar: 'finer' as const,
    },
  };
}
