import type { PayoutsLedger } from '../../payouts/index.ts';
import { PAYOUT_PAGE_MAX, PAYOUT_TERMS, PayoutsQuery, PayoutsResponse } from '../../../schemas/payouts.ts';
import type { App } from '../types.ts';

const t = PAYOUT_TERMS;

export function payoutsRoutes(app: App, { ledger }: { ledger: PayoutsLedger }): void {
  app.get('/api/v1/payouts', {
    config: { auth: 'key-if-sent' },
    schema: {
      tags: ['community'],
      summary: 'Fork revenue share: the charity ledger, and what your entries earned from forks',
      description:
        `When someone publishes a fork of your shared entry, you receive ${t.share_pct} % of their billable credit spend ` +
        `(charges net of refunds) during the ${t.window_days} days after the fork was published, at most ${t.daily_cap} credits ` +
        'per UTC day over all your forks, settled by a daily sweep shortly after UTC midnight. Forks of your own entries ' +
        `earn nothing. On the pro plan, ${t.pro_charity_pct} % of that payout is donated to charity instead of credited. ` +
        'Payouts are paid by the platform out of its markup on credits (the fork publisher pays nothing extra), so the ' +
        'donations are markup-derived: `charity` is their public ledger, one row per donor and day, handles only. ' +
        'With an X-API-Key, `earnings` adds what your entries have earned: `total_credits_earned` and one row per day ' +
        'and fork; without a key it is null, and a key that is not valid gets 401. ' +
        `Both lists are newest day first, \`limit\` rows each (default 50, at most ${PAYOUT_PAGE_MAX}); page with ` +
        '`before` = `charity.next_before` and `earnings_before` = `earnings.next_before`.',
      querystring: PayoutsQuery,
      response: { 200: PayoutsResponse },
    },
    handler: async (request) => ledger.read(request.query, request.user),
  });
}
