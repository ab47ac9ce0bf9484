import type { OneShot } from '../../oneshot/index.ts';
import { OneShotFrame, OneShotRequest } from '../../../schemas/oneshot.ts';
import { requireUser } from '../plugins/auth.ts';
import { openSse, type SseSlots } from '../plugins/sse.ts';
import type { App } from '../types.ts';

export interface OneShotRoutesDeps {
  oneShot: OneShot;
  slots: SseSlots;
  perKey: number;
  heartbeatMs: number;
  fee: number;
}

export function oneShotRoutes(app: App, deps: OneShotRoutesDeps): void {
  app.post('/api/v1/one_shot', {
    config: { auth: 'key' },
    schema: {
      tags: ['pipeline'],
      summary: 'Idea → strategy code → trained model → live deployment, streamed (SSE)',
      description:
        'Events: `token` {text} while the code is written; `step` {stage: generate|train|deploy, pct, msg} between and ' +
        'during phases; then exactly one terminal event: `done` {live_url, model, stem, channels, metrics (test ' +
        'TradeStats), robustness, deployed, …} or `error` {error}. **Is the edge real?** Every trained model gets a robustness ' +
        'report (walk-forward folds, deflated Sharpe, random-entry baseline, Monte Carlo, a verdict `robust` | `inconclusive` | ' +
        '`overfit` with its reasons): a `step` of stage train says the verdict before the deploy (an `overfit` one as a warning), ' +
        'and `done.robustness` carries the verdict, its reasons and headline figures (the full report: GET /api/v1/results/{stem}). ' +
        '`deploy_if` (`always` by default, `not_overfit`, `robust`) keeps a model whose verdict falls short off live: it is ' +
        'trained and kept, the pipeline fee is refunded, and `done` has `deployed: false`, `not_deployed_reason`, and ' +
        '`deployment_id` and `live_url` null (with the default `always` they are always strings). Credits: what generation costs (as POST /generate) plus a pipeline fee of ' +
        `${deps.fee}, charged before the stream opens (402 when short) and refunded when anything fails before the ` +
        'deploy or deploy_if keeps the model off live. With your own `code`, generation is skipped and nothing is charged but one training-compute run. ' +
        'If the client disconnects the pipeline still finishes: the model is trained and deployed (see /deployed), ' +
        'never left half-way. `live_url` is the model’s signal stream. One concurrent SSE stream per key.',
      body: OneShotRequest,
      response: {
        200: {
          description: 'An SSE stream of token, step, done | error',
          content: { 'text/event-stream': { schema: OneShotFrame } },
        },
      },
    },
    handler: async (request, reply) => {
      const user = requireUser(request);
      const release = await deps.slots.acquireForKey(user.user_id, deps.perKey);
      let events;
      try {
        events = await deps.oneShot.start(user, request.body);
      } catch (err) {
        release();
        throw err;
      }
      const stream = openSse(request, reply, deps.heartbeatMs);
      stream.onClose(release);
      for await (const e of events) stream.send(e.event, e.data);
      stream.close();
    },
  });
}
