import type { Metering } from '../../accounts/index.ts';
import { CapsResponse, UsageQuery, UsageResponse } from '../../../schemas/accounts.ts';
import { requireUser } from '../plugins/auth.ts';
import type { App } from '../types.ts';

export function usageRoutes(app: App, { metering }: { metering: Metering }): void {
  app.get('/api/v1/key/usage', {
    config: { auth: 'key' },
    schema: {
      tags: ['keys'],
      summary: 'Credit balance and usage history',
      description:
        'Every balance change, newest first, each with the balance after it. Page with `before` = the ' +
        '`next_before` of the previous page.',
      querystring: UsageQuery,
      response: { 200: UsageResponse },
    },
    handler: async (request) => metering.usageFor(requireUser(request).user_id, request.query),
  });

  app.get('/api/v1/caps', {
    config: { auth: 'key' },
    schema: {
      tags: ['keys'],
      summary: 'Daily limits, what is used today, and the platform cost guard',
      description:
        'Daily caps (training-compute 100, Sonnet 1, Haiku 3, Opus 1 per UTC day) reset at UTC midnight; a call ' +
        'past a cap gets 429 with Retry-After until `resets_at`.',
      response: { 200: CapsResponse },
    },
    handler: async (request) => {
      const user = requireUser(request);
      return metering.capsFor(user.user_id, user.plan);
    },
  });
}
