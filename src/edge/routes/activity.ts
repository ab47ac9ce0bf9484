import { z } from 'zod';
import type { ActivityFeed } from '../../community/index.ts';
import { clientBlock } from '../../accounts/index.ts';
import { StreamLimitError } from '../../errors.ts';
import { ActivityEvent, ActivityKind, ActivityList, ActivityQuery } from '../../../schemas/activity.ts';
import { openSse, type SseSlots } from '../plugins/sse.ts';
import type { App } from '../types.ts';

export interface ActivityRoutesDeps {
  feed: ActivityFeed;
  /** The app's SSE slots, shared by every stream: the per-key limit spans them all. */
  slots: SseSlots;
  heartbeatMs: number;
  /** Concurrent streams per key (the contract: 1). */
  perKey: number;
  /** Concurrent streams per client address (IPv4, IPv6 /64) without a key. */
  perAnonymousAddress: number;
  /** Concurrent streams without a key, all addresses together. */
  anonymousTotal: number;
}

/** What each public event may show: see src/community/activity-privacy.ts. */
const PRIVACY =
  'Live signals of deployed models (private, shared to the community or not: an entry is a frozen copy) are announced as ' +
  'SIGNAL_FIRED with the model metadata only: no side, price, levels, probability or P&L; signals are decided ' +
  'only when a bar closes, so the event time tells the bar and nothing finer.';

const StreamQuery = z.object({
  since: z.coerce.number().int().min(0).optional().describe('Replay events with a greater id first (resume)'),
  kind: ActivityKind.optional(),
});

const REPLAY_LIMIT = 200;

export function activityRoutes(app: App, deps: ActivityRoutesDeps): void {
  const { slots } = deps;

  /** Two slots: one of the address's, one of the anonymous total. */
  const anonymousSlot = (ip: string) => {
    const own = slots.acquire(`ip:${clientBlock(ip)}`, deps.perAnonymousAddress);
    if (!own) {
      throw new StreamLimitError(
        `at most ${deps.perAnonymousAddress} concurrent activity streams per address without a key: close one first`,
        5,
      );
    }
    const shared = slots.acquire('anonymous', deps.anonymousTotal);
    if (!shared) {
      own();
      throw new StreamLimitError('the service is at its limit of activity streams without a key: retry later, or send your X-API-Key', 5);
    }
    return () => {
      own();
      shared();
    };
  };

  app.get('/api/v1/activity', {
    config: { auth: 'none' },
    schema: {
      tags: ['activity'],
      summary: 'Recent public events',
      description:
        'Events carry only kind, bot handle, model metadata and headline metrics. ' +
        PRIVACY +
        ' Newest first; page back ' +
        'with `before` = `next_before`. With `since` (an event id) the page holds the events after it, oldest first, ' +
        'so polling with the last id seen never misses one.',
      querystring: ActivityQuery,
      response: { 200: ActivityList },
    },
    handler: async (request) => deps.feed.list(request.query),
  });

  app.get('/api/v1/activity/stream', {
    config: { auth: 'none' },
    schema: {
      tags: ['activity'],
      summary: 'Live public events (SSE)',
      description:
        'Frames are `id: <event id>`, `event: <KIND>`, `data: <ActivityEvent JSON>`; a `heartbeat` event every 15 s. ' +
        `Resume with \`since\` or the Last-Event-ID header (up to ${REPLAY_LIMIT} events are replayed). ` +
        `One concurrent stream per key (a second gets 429); without a key, ${deps.perAnonymousAddress} per client address ` +
        `(IPv6: per /64) and ${deps.anonymousTotal} in total (429 SF_STREAM_LIMIT). ` +
        PRIVACY,
      querystring: StreamQuery,
      response: {
        200: { description: 'An SSE stream', content: { 'text/event-stream': { schema: ActivityEvent } } },
      },
    },
    handler: async (request, reply) => {
      const release = request.user ? await slots.acquireForKey(request.user.user_id, deps.perKey) : anonymousSlot(request.ip);
      const lastEventId = Number(request.headers['last-event-id']);
      const since = request.query.since ?? (Number.isInteger(lastEventId) ? lastEventId : undefined);
      const { kind } = request.query;
      const stream = openSse(request, reply, deps.heartbeatMs);
      let lastSent = since ?? -1;
      const send = (event: ActivityEvent) => {
        if (event.id <= lastSent || (kind && event.kind !== kind)) return;
        lastSent = event.id;
        stream.send(event.kind, event, event.id);
      };
      const unsubscribe = deps.feed.subscribe(send);
      if (since !== undefined) {
        for (const event of deps.feed.list({ since, limit: REPLAY_LIMIT, kind }).events) send(event);
      }
      stream.onClose(() => {
        unsubscribe();
        release();
      });
    },
  });
}
