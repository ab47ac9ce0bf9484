import { z } from 'zod';
import {
  communityEntry,
  DESCENT_RULE,
  DIVERGENCE_RULE,
  FORK_COUNT_RULE,
  gzipEtag,
  lineage,
  matchesEtag,
  RANKING_RULES,
  rankingKey,
  type Community,
} from '../../community/index.ts';
import { ResponseCache } from '../response-cache.ts';
import { ErrorBody } from '../../../schemas/common.ts';
import {
  Catalogue,
  CommunityEntry,
  CommunityIdParams,
  DESCRIPTION_MAX,
  ForkResponse,
  Leaderboard,
  LEADERBOARD_MAX_LIMIT,
  LeaderboardQuery,
  Lineage,
  ShareGateRejected,
  ShareRequest,
  TITLE_MAX,
} from '../../../schemas/community.ts';
import { requireUser } from '../plugins/auth.ts';
import { plainJsonSerializer, sendJsonText } from '../plugins/fast-serializer.ts';
import type { App } from '../types.ts';

/** community.json may be served from a cache this long; revalidation with its ETag is cheap (304). */
const CATALOGUE_CACHE_CONTROL = 'public, max-age=30, must-revalidate';

/** Whether the client takes gzip (`Accept-Encoding: gzip`, not refused with q=0). */
function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}

/** Leaderboard pages kept encoded (each up to ~130 KB at limit 200). */
const LEADERBOARD_PAGES_KEPT = 128;

const TEXT_RULES =
  `Titles (1-${TITLE_MAX} characters, one line) and descriptions (up to ${DESCRIPTION_MAX}, line feeds allowed) are plain text: ` +
  'control characters and text-direction overrides are refused (400); they are stored and served exactly as given and ' +
  'never interpreted as HTML (every answer is JSON).';

const LIVE =
  '`live` is the verified live track record: the same position engine and rules as the backtest, run on the bars ' +
  'closed since publication — days tracked, bars, n_trades, ret, wr, pf, mdd and `gap` (live − test backtest: ' +
  'return per day, wr, pf, mean per-trade return). It is null until the tracker has scored the first bar.';

/**
 * The community: share, fork, lineage, leaderboard, catalogue. Reads are public and answered from
 * the in-memory index (src/community); writes need a key. Code leaves only through fork.
 */
export function communityRoutes(app: App, { community }: { community: Community }): void {
  const { index } = community;

  app.post('/api/v1/share', {
    config: { auth: 'key' },
    schema: {
      tags: ['community'],
      summary: 'Publish one of your trained models as a community entry',
      description:
        'Publishes `model_stem` (default: your most recently trained model) with a title and description. The gate is ' +
        'the contract’s, on the model’s **recorded** test backtest: n_trades >= 1 and total return > 0; otherwise 422 ' +
        '`SF_SHARE_GATE`, naming each failed condition with the model’s values (`gate`). The entry freezes the model as it ' +
        'is now — stats, robustness verdict and deflated Sharpe, settings, strategy code and ONNX file — so retraining or deleting the model later changes ' +
        'nothing. `community_id` is sequential. Sharing the same trained model again (same stem and the same training) ' +
        'answers 200 with the existing entry — no duplicate, no second event, also when two shares race; a new entry is ' +
        '201 and emits SHARED. Another user’s model, or an unknown one, is 404; `parent_id` must be an entry you forked ' +
        '(400 otherwise). A model retrained while being shared is 409 (share again). ' +
        TEXT_RULES +
        ' Costs 0 credits.\n\n' +
        DESCENT_RULE,
      body: ShareRequest,
      response: { 200: CommunityEntry, 201: CommunityEntry, 404: ErrorBody, 409: ErrorBody, 422: ShareGateRejected },
    },
    handler: async (request, reply) => {
      const { entry, created } = await community.share.share(requireUser(request), request.body);
      return reply.status(created ? 201 : 200).send(communityEntry(index, entry.community_id));
    },
  });

  app.post('/api/v1/fork/:community_id', {
    config: { auth: 'key' },
    schema: {
      tags: ['community'],
      summary: 'Copy an entry’s strategy code into your account',
      description:
        'The copy is a strategy, not a model: train it (the answer’s `train_request` is a ready POST /api/v1/train body ' +
        'with the parent’s symbol, timeframe and settings and a suggested model name), then share the model with ' +
        '`parent_id` = this entry to link it as a child in the lineage. Forking your own entry is allowed. Each user ' +
        'forks an entry once: the first fork is 201 and emits FORKED; forking it again answers 200 with the same copy. ' +
        'No request body. Unknown id: 404. Costs 0 credits. Sharing your trained fork links it only if its code still ' +
        'descends from this entry’s (see POST /api/v1/share).\n\n' +
        FORK_COUNT_RULE,
      params: CommunityIdParams,
      response: { 200: ForkResponse, 201: ForkResponse, 404: ErrorBody },
    },
    handler: async (request, reply) => {
      const forked = await community.fork.fork(requireUser(request), request.params.community_id);
      return reply.status(forked.created ? 201 : 200).send(forked);
    },
  });

  app.get('/api/v1/lineage/:community_id', {
    config: { auth: 'none' },
    schema: {
      tags: ['community'],
      summary: 'Ancestors and direct children of a community entry',
      description:
        '`ancestors` runs from the parent up to the root, in that order (empty for a root); `children` are the entries ' +
        'shared with this one as parent_id, oldest first. Each node has title, author, created_at, headline test metrics ' +
        'and live headline (null before the first scored bar). Unknown id: 404.\n\n' +
        DESCENT_RULE,
      params: CommunityIdParams,
      response: { 200: Lineage, 404: ErrorBody },
    },
    handler: async (request) => lineage(index, request.params.community_id),
  });

  app.get('/api/v1/community/:community_id', {
    config: { auth: 'none' },
    schema: {
      tags: ['community'],
      summary: 'One community entry: backtest and live track record, no code',
      description:
        `Train, test and post-cutoff TradeStats frozen at publication, the ranking scores, forks, \`live\`, \`descent\` ` +
        `(the check of the parent named at share), \`divergence\`, and the robustness \`verdict\` with its reasons and deflated ` +
        `Sharpe (\`robustness\`) frozen at share — is the edge real? — beside the live record that tests it (null for entries ` +
        `shared before the report existed). ${LIVE} Unknown id: 404.\n\n${DIVERGENCE_RULE}`,
      params: CommunityIdParams,
      response: { 200: CommunityEntry, 404: ErrorBody },
    },
    handler: async (request) => communityEntry(index, request.params.community_id),
  });

  const pages = new ResponseCache(LEADERBOARD_PAGES_KEPT);
  app.get('/api/v1/leaderboard', {
    config: { auth: 'none' },
    ...plainJsonSerializer,
    schema: {
      tags: ['community'],
      summary: 'Community entries ranked by a metric',
      description:
        `Filters: \`symbol\`, \`timeframe\`; \`limit\` default 50, max ${LEADERBOARD_MAX_LIMIT}; \`total\` counts every entry ` +
        `matching the filters and ranked; \`hidden\` counts those left off for a live divergence. Each row shows the test ` +
        `backtest, the live record, and the robustness \`verdict\` and deflated Sharpe (\`dsr\`) frozen at share (null for ` +
        `entries shared before the report existed); \`metric=dsr\` ranks by that deflated Sharpe.\n\n${RANKING_RULES}\n\n${FORK_COUNT_RULE}\n\n${LIVE}\n\n${DIVERGENCE_RULE}`,
      querystring: LeaderboardQuery,
      response: { 200: Leaderboard },
    },
    handler: async (request, reply) => {
      const q = request.query;
      // Pages are kept as bytes until the index changes: a repeat costs a lookup, not 50 rows of JSON.
      const key = `${rankingKey(q)}|${q.symbol ?? ''}|${q.timeframe ?? ''}|${q.limit}`;
      return sendJsonText<Leaderboard>(
        reply,
        pages.get(key, index.stamp(), () => JSON.stringify(community.leaderboard.query(q))),
      );
    },
  });

  app.get('/api/v1/community.json', {
    config: { auth: 'none' },
    ...plainJsonSerializer,
    schema: {
      tags: ['community'],
      summary: 'The full catalogue of shared entries: metrics and lineage ids, no code',
      description:
        'Every entry (community_id ascending) with its headline metrics (train, test, post-cutoff, live), scores and ' +
        'lineage ids (`parent_id`, `root_id`, `children`); the full TradeStats are at GET /api/v1/community/{id}. ' +
        `Cacheable: a strong \`ETag\` (a hash of the content; \`-gz\` appended inside the quotes for the gzip ` +
        `representation) and \`Cache-Control: ${CATALOGUE_CACHE_CONTROL}\`; send \`If-None-Match\` with either to get 304 ` +
        'with no body while nothing changed. Sent gzip-compressed to clients that accept it (`Accept-Encoding: gzip`). ' +
        LIVE,
      response: { 200: Catalogue, 304: z.null().describe('Not modified: the ETag sent is current (no body)') },
    },
    handler: async (request, reply) => {
      const catalogue = community.catalogue.current();
      const gzip = acceptsGzip(request.headers['accept-encoding']);
      reply
        .header('etag', gzip ? gzipEtag(catalogue.etag) : catalogue.etag)
        .header('cache-control', CATALOGUE_CACHE_CONTROL)
        .header('vary', 'Accept-Encoding');
      if (matchesEtag(request.headers['if-none-match'], catalogue.etag)) return reply.status(304).send(null);
      if (!gzip) return sendJsonText<Catalogue>(reply, catalogue.body());
      reply.header('content-encoding', 'gzip');
      return sendJsonText<Catalogue>(reply, await community.catalogue.gzipped(catalogue));
    },
  });
}
