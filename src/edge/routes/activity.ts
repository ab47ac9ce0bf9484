import { z } from 'zod';
import type { ActivityFeed } from '../../community/index.ts';
import { RateLimitedError } from '../../errors.ts';
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
  /** Concurrent streams per client address without a key. */
  perAnonymousIp: number;
}

const StreamQuery = z.object({
  since: z.coerce.number().int().min(0).optional().describe('Replay events with a greater id first (resume)'),
  kind: ActivityKind.optional(),
});

const REPLAY_LIMIT = 200;

export function activityRoutes(app: App, deps: ActivityRoutesDeps): void {
  const { slots } = deps;

  app.get('/api/v1/activity', {
    config: { auth: 'none' },
    schema: {
      tags: ['activity'],
      summary: 'Recent public events',
      description:
        'Events carry only kind, bot handle, model metadata and headline metrics. Newest first; page back ' +
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
        `One concurrent stream per key (a second gets 429); without a key, ${deps.perAnonymousIp} per client address.`,
      querystring: StreamQuery,
      response: {
        200: { description: 'An SSE stream', content: { 'text/event-stream': { schema: ActivityEvent } } },
      },
    },
    handler: async (request, reply) => {
      const holder = request.user ? `key:${request.user.user_id}` : `ip:${request.ip}`;
      const limit = request.user ? deps.perKey : deps.perAnonymousIp;
      const release = slots.acquire(holder, limit);
      if (!release) {
        throw new RateLimitedError(
          `at most ${limit} concurrent activity stream${limit === 1 ? '' : 's'} per ${request.user ? 'key' : 'address'}: close the other one first`,
          5,
        );
      }
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
