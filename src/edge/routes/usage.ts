import type { Metering } from '../../accounts/index.ts';
import type { Config } from '../../config.ts';
import { CapsResponse, UsageQuery, UsageResponse } from '../../../schemas/accounts.ts';
import { requireUser } from '../plugins/auth.ts';
import type { App } from '../types.ts';

export interface UsageRoutesDeps {
  metering: Metering;
  config: Pick<Config, 'MONTHLY_CREDITS_FREE' | 'MONTHLY_CREDITS_PRO' | 'TRIAL_CREDITS'>;
}

export function usageRoutes(app: App, { metering, config }: UsageRoutesDeps): void {
  app.get('/api/v1/key/usage', {
    config: { auth: 'key' },
    schema: {
      tags: ['keys'],
      summary: 'Credit balance and usage history',
      description:
        'Every balance change, newest first, each with the balance after it. Page with `before` = the ' +
        '`next_before` of the previous page.\n\n' +
        `**Monthly allowance.** A claimed free account has ${config.MONTHLY_CREDITS_FREE} credits a month, a pro account ` +
        `(trial or not) ${config.MONTHLY_CREDITS_PRO}; a free trial has only its ${config.TRIAL_CREDITS} signup credits. ` +
        'The balance is topped up to the allowance at the claim, at a change to pro, and at the first call of each ' +
        'UTC month that reads or moves credits (this one, /caps, a charge): raised to it when below, never lowered, ' +
        'nothing added on top — unused credits do not carry over beyond the allowance. It happens once per account ' +
        'and month however many requests race (an upgrade within the month tops up once more, to the higher ' +
        'allowance), and shows here as a `monthly_allowance` event whose `ref` is the month (YYYY-MM); a balance ' +
        'already at or above the allowance gets no event. Allowances are not spend (`spent_today`).',
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
