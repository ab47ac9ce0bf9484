/**
 * The switchboard: every NATS subject, stream, KV bucket and object store the platform uses,
 * with the schema of what travels there. Components reach each other only through these names.
 */
import { z } from 'zod';
import {
  AttemptsRecord,
  ChallengeRecord,
  CostRecord,
  CreditsRecord,
  CredentialsRecord,
  KeyRecord,
  RateClaimsRecord,
  SessionRecord,
  UsageCursor,
  UsernameRecord,
  UserRecord,
  WindowRecord,
} from './account-records.ts';
import { ActivityInput, type ActivityKind } from './activity.ts';
import { BarMessage, ImportRequest, SyntheticCheckpoint, TickClock, TickMessage } from './market.ts';
import { JobRecord, ModelRecord, SignalsResponse, TrainJobMessage } from './training.ts';
import { ActorState, BarPrediction, DeploymentRecord, LeaseRecord, SignalEvent, WatchRecord } from './live.ts';
import { Symbol as SymbolSchema, Timeframe as TimeframeSchema, type Symbol, type Timeframe } from './common.ts';
import {
  DeadLetterRecord,
  DeliveryKick,
  DeliveryProgressPage,
  DeliveryState,
  MessengerLinkRecord,
  PairingCodeRecord,
  type DeliveryChannel,
} from './delivery.ts';
import { OneShotRun } from './oneshot.ts';
import { OptimizeRecord, OptimizeTrialChunk } from './optimize.ts';
import { CommunityEntryRecord, ForkRecord, LiveRecord, ShareClaim } from './community.ts';
import { PayoutMark, PayoutSweepState } from './payouts.ts';
import { TrackerState } from './tracker.ts';

// ---- KV payloads ---------------------------------------------------------------------------

export const CounterRecord = z.object({ value: z.number().int().min(0) });

/**
 * One holder's open streams over every edge (a key's SSE streams, or its WebSocket connections):
 * each entry is kept alive by its edge renewing `expires` (epoch ms) while the stream is open.
 */
export const StreamSlotsRecord = z.object({
  streams: z.array(z.object({ edge: z.string(), id: z.string(), expires: z.number().int() })),
});
export type StreamSlotsRecord = z.infer<typeof StreamSlotsRecord>;

/** A user's deployments (their `sf_deployments` keys), oldest first: the one value the plan limit is enforced on by compare-and-set. */
export const DeploymentSet = z.object({ keys: z.array(z.string()) });
export type DeploymentSet = z.infer<typeof DeploymentSet>;

/**
 * Where ingest of a symbol resumes: the TICKS sequence of the first message of the hour whose bars
 * are still open, and that hour's start (ticks before it in that message were already built into
 * stored bars and are skipped). Written once the previous hour's bars are stored.
 */
export const IngestCursor = z.object({
  seq: z.number().int().positive(),
  from_ts: z.number().int().nonnegative().describe('epoch ms: the start of the open hour'),
  updated_at: z.number().int(),
});
export type IngestCursor = z.infer<typeof IngestCursor>;

/** An actor host whose heartbeat is not renewed for this long is gone: its claims are taken over. */
export const LEASE_TTL_SECONDS = 6;

// ---- KV buckets -----------------------------------------------------------------------------

export interface BucketSpec<S extends z.ZodType> {
  /** Bucket name in NATS. */
  name: string;
  schema: S;
  /** Seconds after its last write that a key expires; 0 keeps it forever. */
  ttlSeconds: number;
  /** Revisions kept per key (1 unless a reader must see superseded ones; NATS allows up to 64). */
  history?: number;
}

const bucket = <S extends z.ZodType>(name: string, schema: S, ttlSeconds = 0, history?: number): BucketSpec<S> => ({
  name,
  schema,
  ttlSeconds,
  ...(history ? { history } : {}),
});

/**
 * Revisions the credits bucket keeps per key: the usage recorder reads every one it reaches
 * before it is superseded this many times (a change in a superseded revision is carried in the
 * entry's `changes` until known stored).
 */
export const CREDITS_HISTORY = 64;

export const Buckets = {
  /** `<user_id>` → the account. */
  users: bucket('sf_users', UserRecord),
  /** `<lower-case username>` → owner; created with create() so a name is taken once. */
  usernames: bucket('sf_usernames', UsernameRecord),
  /** `<sha256(api key)>` → owner. The key itself is never stored. */
  apiKeys: bucket('sf_api_keys', KeyRecord),
  /** `<user_id>.<sha256(session token)>` → owner, device and last use, for the web app's session cookie. */
  sessions: bucket('sf_sessions', SessionRecord, 30 * 24 * 3600),
  /** `<user_id>` → the account's passkeys, password hash and recovery code hashes. */
  credentials: bucket('sf_credentials', CredentialsRecord),
  /** `<challenge>` → a WebAuthn ceremony in progress; answered once, within 5 minutes. */
  challenges: bucket('sf_webauthn_challenges', ChallengeRecord, 300),
  /** `name.<lower-case username>` / `addr.<client block>` → sign-in attempts (forgotten after a quiet day). */
  signInAttempts: bucket('sf_sign_in_attempts', AttemptsRecord, 24 * 3600),
  /** `<user_id>` → credit balance, changed only by compare-and-set; each change goes into `usage_events` by the usage recorder. */
  credits: bucket('sf_credits', CreditsRecord, 0, CREDITS_HISTORY),
  /** `cursor` → how far the usage recorder has stored the credits bucket's changes. */
  usageCursor: bucket('sf_usage_cursor', UsageCursor),
  /** `<name>` → a monotonic id counter (user_id, job_id…). */
  counters: bucket('sf_counters', CounterRecord),
  /** `<user_id>.<cap>.<yyyymmdd>` → runs used that UTC day. */
  caps: bucket('sf_caps', CounterRecord, 2 * 24 * 3600),
  /** `mint.<client>` → trial mints in the last hour. */
  mintWindows: bucket('sf_mint_windows', WindowRecord, 3600),
  /** `rate.<user_id>` → the key's requests claimed in the last minute, over every edge (ClusterRateLimiter). */
  rateWindows: bucket('sf_rate_windows', RateClaimsRecord, 120),
  /** `sse.<user_id>` / `ws.<user_id>` → the key's open streams over every edge (ClusterStreamSlots); a record not written for a minute is gone. */
  streamSlots: bucket('sf_stream_slots', StreamSlotsRecord, 60),
  /** `<SYMBOL>` → the synthetic series' latest hourly checkpoint. */
  synthetic: bucket('sf_synthetic', SyntheticCheckpoint),
  /** `ai.<yyyymmdd>` → platform AI spend that day. */
  costGuard: bucket('sf_cost_guard', CostRecord, 2 * 24 * 3600),
  /** `<job_id>` → a train job and its status; finished jobs are forgotten after 30 days. */
  jobs: bucket('sf_jobs', JobRecord, 30 * 24 * 3600),
  /** `<user_id>.<hex of model_name>` → a trained model (artifacts in the `sf_artifacts` object store). */
  models: bucket('sf_models', ModelRecord),
  /** `<user_id>.<hex of model_name>` → the model's latest prediction signals (GET /signals). */
  signals: bucket('sf_signals', SignalsResponse),
  /** `<user_id>.<hex of model_name>` → the model's deployment (desired state the actor hosts follow). */
  deployments: bucket('sf_deployments', DeploymentRecord),
  /** `<deployment_id>` → watched until (a WebSocket `predictions` subscription): only then does its actor publish predictions. */
  watched: bucket('sf_watched', WatchRecord, 300),
  /** `<user_id>` → the user's deployment set (limit by plan, enforced by compare-and-set). */
  deploymentSets: bucket('sf_deployment_sets', DeploymentSet),
  /** `<deployment_id>` → the model actor's resume point (engine snapshot, last bar). */
  actorState: bucket('sf_actor_state', ActorState),
  /**
   * `<actor id>` (a deployment id, `delivery.<id>`, `ingest.<SYMBOL>`, `tracker_<shard>`) → the host
   * that claimed it. A claim does not expire: it holds while its host's heartbeat (`hosts`) lives,
   * so a host renews one key however many actors it runs; another host takes a claim over (by
   * compare-and-set) once that heartbeat is gone.
   */
  leases: bucket('sf_claims', LeaseRecord),
  /** `<kind of actor>.<host id>` → an actor host's heartbeat; the key expires unless the host renews it. */
  hosts: bucket('sf_hosts', LeaseRecord, LEASE_TTL_SECONDS),
  /** `<SYMBOL>` → where an ingest process taking the symbol over starts reading TICKS (the hour of its open bars). */
  ingest: bucket('sf_ingest', IngestCursor),
  /** `<run_id>` → a one_shot pipeline's progress, so another process finishes a run whose process died. */
  oneShots: bucket('sf_one_shots', OneShotRun, 30 * 24 * 3600),
  /** `<optimize_id>` → an optimisation job with its trials (POST /optimize); kept 30 days. */
  optimize: bucket('sf_optimize', OptimizeRecord, 30 * 24 * 3600),
  /** `<user_id>.<optimize_id>.<chunk>` → 200 of that optimisation's trials at a time. */
  optimizeTrials: bucket('sf_optimize_trials', OptimizeTrialChunk, 30 * 24 * 3600),
  /** `<community_id>` → a shared entry, frozen at publication (code and ONNX in the `sf_community` object store). */
  community: bucket('sf_community', CommunityEntryRecord),
  /** `<community_id>` → the entry's verified live track record since publication. */
  trackRecords: bucket('sf_track_records', LiveRecord),
  /** `<community_id>` → the live tracker's resume point for the entry (engine snapshot, last bar, trades stored). */
  trackerState: bucket('sf_tracker_state', TrackerState),
  /** `<yyyymmdd>.<parent user_id>` → that parent's fork payout for the day, fixed before it is credited (kept 60 days). */
  payoutMarks: bucket('sf_payout_marks', PayoutMark, 60 * 24 * 3600),
  /** `state` → the payout sweep's last settled day and its lease. */
  payoutSweep: bucket('sf_payout_sweep', PayoutSweepState),
  /** `<user_id>.<hex of stem>.<artifact>` → the entry that model artifact was shared as (idempotent share). */
  communityShares: bucket('sf_community_shares', ShareClaim),
  /** `<user_id>.<community_id>` → the user's fork of that entry (code in the `sf_forks` object store). */
  forks: bucket('sf_forks', ForkRecord),
} as const;

/**
 * Community entries are tracked in this many shards (entry `community_id % TRACKER_SHARDS`): a
 * tracker host claims a shard by its lease (`tracker_<shard>` in `sf_claims`), so claims cost the
 * same for ten entries or ten thousand. Every process must agree on it.
 */
export const TRACKER_SHARDS = 16;

// ---- Streams and subjects -------------------------------------------------------------------

export interface StreamSpec {
  name: string;
  subjects: string[];
  maxMessages: number;
  maxAgeSeconds: number;
  /** Work-queue retention: a message leaves the stream once a consumer acknowledges it. */
  workQueue?: boolean;
}

export const Streams = {
  /** The public activity feed; the stream sequence is the event id and the `since` cursor. */
  activity: { name: 'ACTIVITY', subjects: ['activity.>'], maxMessages: 200_000, maxAgeSeconds: 90 * 24 * 3600 },
  /** Train jobs waiting for a trainer: a work queue (each message is removed once acknowledged). */
  trainJobs: { name: 'JOBS', subjects: ['jobs.train'], maxMessages: 1_000_000, maxAgeSeconds: 7 * 24 * 3600, workQueue: true },
  /** Live signal events of deployed models (`SignalEvent`), kept for delivery, replay and SSE catch-up. */
  signals: { name: 'SIGNALS', subjects: ['signals.>'], maxMessages: 5_000_000, maxAgeSeconds: 30 * 24 * 3600 },
  /**
   * Live ticks as published on `ticks.<SYMBOL>`: the one path of every tick to the bars (ingest reads
   * it, in `serve` as in `signalforge ingest`), kept a few hours so that an ingest process taking a
   * symbol over rebuilds its open bars from them, and a feed taking over knows the last tick
   * published.
   */
  ticks: { name: 'TICKS', subjects: ['ticks.>'], maxMessages: 50_000_000, maxAgeSeconds: 6 * 3600 },
} as const satisfies Record<string, StreamSpec>;

/** Object stores: model artifacts (`<user_id>/<hex of model_name>/<artifact>/{model.onnx,strategy.py,results.json}`). */
export const ObjectStores = {
  artifacts: 'sf_artifacts',
  /** Store requests and replies too large for one message (`store.rpc`, schemas/store-link.ts); kept 10 minutes at most. */
  storeRpc: 'sf_store_rpc',
  /** Frozen files of shared entries: `<community_id>/strategy.py`, `<community_id>/model.onnx`. */
  community: 'sf_community',
  /** Users' forked strategies: `<user_id>/<community_id>/strategy.py`. */
  forks: 'sf_forks',
} as const;

/** The durable consumer every trainer pulls train jobs through. */
export const TRAINER_CONSUMER = 'trainer';

/** A durable JetStream consumer: created once (src/bus `ensureConsumer`), then shared by every process. */
export interface ConsumerSpec {
  stream: StreamSpec;
  name: string;
  /** Where a new consumer starts: every stored message, or only those published from now on. */
  deliver: 'all' | 'new';
  filterSubject?: string;
  /** Unacknowledged this long, a message is delivered again (default: the server's, 30 s). */
  ackWaitMs?: number;
  maxAckPending?: number;
  /** Deliveries of one message at most; -1 for no limit. */
  maxDeliver?: number;
}

/** Where delivery stands per durable consumer of the platform (the switchboard's consumers). */
export const Consumers = {
  /** Trainers pull train jobs; attempts are counted by the trainer (it fails a job after repeated interruptions). */
  trainer: { stream: Streams.trainJobs, name: TRAINER_CONSUMER, deliver: 'all', filterSubject: 'jobs.train', maxDeliver: -1 },
  /**
   * The signal recorder copies every signal into ClickHouse. A bar's signals of every deployment
   * wait unacknowledged together, to go into one insert (SignalsRepo: up to 10,000 rows).
   */
  signalsStore: { stream: Streams.signals, name: 'signals-store', deliver: 'all', maxAckPending: 20_000 },
} as const satisfies Record<string, ConsumerSpec>;

/**
 * A subject family tied to the schema of what travels on it: `publish` in src/bus validates
 * against it, `subscribe` parses with it. `stream` names the JetStream stream that stores it.
 */
export interface TopicSpec<S extends z.ZodType, A extends readonly unknown[]> {
  subject: (...args: A) => string;
  /** Every subject of the family, for one subscription over all. */
  all: string;
  schema: S;
  stream?: StreamSpec;
}

const topic = <S extends z.ZodType, A extends readonly unknown[]>(
  subject: (...args: A) => string,
  all: string,
  schema: S,
  stream?: StreamSpec,
): TopicSpec<S, A> => ({
  subject,
  all,
  schema,
  ...(stream ? { stream } : {}),
});

/** A batch of ticks as a feed may publish it: one tick or an array. */
export const TickPayload = z.union([TickMessage, z.array(TickMessage)]);

/**
 * Header of a `ticks.<SYMBOL>` message naming where its ticks come from: `synthetic` marks our
 * generator's ticks (the synthetic feed), so the bars built from them say so; any
 * other value, or none, is a live feed.
 */
export const TICK_SOURCE_HEADER = 'Sf-Source';

export const Topics = {
  /** What is published on `activity.<KIND>`: the event without id and ts (see ActivityMessage below). */
  activity: topic((kind: ActivityKind) => `activity.${kind}`, 'activity.>', ActivityInput, Streams.activity),
  /** A closed bar (`BarMessage`), published after it is stored; the bar cache subscribes, actors hear it from there. */
  bars: topic((symbol: Symbol, timeframe: Timeframe) => `bars.${symbol}.${timeframe}`, 'bars.>', BarMessage),
  /** Bars of a span were rebuilt in bulk (an import): caches reload that span. */
  barsRebuilt: topic(
    () => 'market.bars-rebuilt',
    'market.bars-rebuilt',
    z.lazy(() => BarsRebuilt),
  ),
  /**
   * Stored by TICKS: a feed publishing through `publish` (src/bus) waits until the stream holds its
   * ticks, with a message id (a re-sent batch is stored once). Outside feeds may publish on core
   * NATS, which the stream captures too.
   */
  ticks: topic((symbol: Symbol) => `ticks.${symbol}`, 'ticks.>', TickPayload, Streams.ticks),
  /** A feed publisher's clock for one symbol (`TickClock`), live only: what ingest closes quiet bars by. */
  tickClock: topic((symbol: Symbol) => `feeds.clock.${symbol}`, 'feeds.clock.>', TickClock),
  trainJob: topic(() => 'jobs.train', 'jobs.train', TrainJobMessage, Streams.trainJobs),
  signal: topic((deploymentId: string) => `signals.${deploymentId}`, 'signals.>', SignalEvent, Streams.signals),
  /** Each bar a deployed model scored (`BarPrediction`), live only (core NATS): the WebSocket `predictions` channel. */
  prediction: topic((deploymentId: string) => `predictions.${deploymentId}`, 'predictions.>', BarPrediction),
  deliveryKick: topic(
    (channel: DeliveryChannel, deploymentId: string) => `delivery.kick.${channel}.${deploymentId}`,
    'delivery.kick.>',
    DeliveryKick,
  ),
  /** A Telegram update as Telegram sent it (grammY reads it), relayed by the edge in webhook mode. */
  telegramUpdate: topic(() => 'delivery.telegram.update', 'delivery.telegram.update', z.record(z.string(), z.unknown())),
} as const;

export const BarPageRequest = z.object({
  symbol: SymbolSchema,
  timeframe: TimeframeSchema,
  beforeMs: z.number().optional().describe('Only bars opening before this (epoch ms); default: up to the latest'),
  limit: z.number().int().min(1).max(8000),
});
export type BarPageRequest = z.infer<typeof BarPageRequest>;

/**
 * The request/reply services (core NATS), each answered by the process that owns the store:
 * the subject, and the schema of a JSON request (null: bytes in the service's own framing).
 * `ask` and `answer` in src/bus speak them; what travels on the other subjects is in `Topics`.
 */
export const Requests = {
  /** `ImportRequest` → `ImportResult` as JSON (or `{ error }`), one import at a time. */
  marketImport: { subject: 'market.import', request: ImportRequest },
  /** `BarPageRequest` → the latest bars of a series (float64 columns, see src/market/bar-pages.ts). */
  barPage: { subject: 'market.bars.page', request: BarPageRequest },
  /** ClickHouse over NATS: `StoreRequest` frames (schemas/store-link.ts, src/store-link/frames.ts) both ways. */
  storeRpc: { subject: 'store.rpc', request: null },
} as const;

export const BarsRebuilt = z.object({ symbol: SymbolSchema, fromMs: z.number(), toMs: z.number() });
export type BarsRebuilt = z.infer<typeof BarsRebuilt>;

/**
 * What is published on `activity.<KIND>`: the event without id and ts, which come from the
 * stream (sequence and storage time), so ids and times rise together whoever emits.
 */
export const ActivityMessage = ActivityInput;
export type ActivityMessage = z.infer<typeof ActivityMessage>;

// ---- Delivery (webhook + messenger): actors/delivery, src/delivery -------------------------------

/** KV buckets of signal delivery (schemas in schemas/delivery.ts). */
export const DeliveryBuckets = {
  /** `<channel>.<deployment_id>` → where that channel's delivery stands (cursor, failing attempt, replays). */
  state: bucket('sf_delivery', DeliveryState),
  /**
   * `<page>.<host>` → a delivery process's webhook deliveries not yet in `sf_delivery` (rewritten
   * within a fifth of a second of each; a page of a dead process goes after a day, long after its
   * deployments were taken over).
   */
  progress: bucket('sf_delivery_progress', DeliveryProgressPage, 24 * 3600),
  /** `<channel>.<deployment_id>.<seq>` → a signal that ran out of retries; kept 30 days, replayable. */
  dead: bucket('sf_delivery_dead', DeadLetterRecord, 30 * 24 * 3600),
  /** `<CODE>` → a pending messenger pairing (one use, 10 minutes). */
  pairingCodes: bucket('sf_messenger_codes', PairingCodeRecord, 600),
  /** `<user_id>` → the user's current pairing code and linked Telegram chats. */
  messengerLinks: bucket('sf_messenger_links', MessengerLinkRecord),
} as const;
