import { subscribe, type SubscribeVia } from '../../bus/index.ts';
import type { Deployments } from '../../deployments/index.ts';
import { DeployedList, DeployParams, DeployRequest, DeployResponse, SignalEvent, UndeployResponse } from '../../../schemas/live.ts';
import { Topics } from '../../../schemas/messages.ts';
import { requireUser } from '../plugins/auth.ts';
import { openSse, type SseSlots } from '../plugins/sse.ts';
import type { App } from '../types.ts';

export interface DeployRoutesDeps {
  deployments: Deployments;
  /** For the live signal stream of a deployment. */
  bus: SubscribeVia;
  slots: SseSlots;
  perKey: number;
  heartbeatMs: number;
  limits: Record<'free' | 'pro', number>;
}

export function deployRoutes(app: App, deps: DeployRoutesDeps): void {
  const { deployments } = deps;

  app.post('/api/v1/deploy', {
    config: { auth: 'key' },
    schema: {
      tags: ['live'],
      summary: 'Deploy a trained model for live signals',
      description:
        'The model runs as its own actor: on every closed bar of its symbol and timeframe it computes the features, ' +
        'scores them with its ONNX model and steps the same position engine as the backtest; entries and exits are ' +
        'sent to the channels. Deploying a model again to the same channels and destinations changes nothing (`unchanged: true`, the same ' +
        'deployment_id and webhook secret; no signal is sent twice); with other channels or destinations, or after a retrain, it replaces ' +
        'the deployment (new deployment_id and webhook secret). ' +
        `Plan limits: free ${deps.limits.free} deployed model(s), pro ${deps.limits.pro}; deploying beyond the limit undeploys your oldest (\`replaced\`). ` +
        'webhook_url must be http(s) and must not resolve to a private, loopback or link-local address (400). ' +
        'discord: discord_webhook_url, a Discord webhook (https://discord.com/api/webhooks/<id>/<token>; discordapp.com and the ptb/canary hosts too), ' +
        'each signal as one embed (side, symbol, timeframe, price, stop, take profit, confidence, the model and a link to its page). ' +
        'slack: slack_webhook_url, a Slack incoming webhook (https://hooks.slack.com/services/…), each signal as a Block Kit message. ' +
        'Other hosts are refused (400), and so are addresses that are not public. ' +
        'email: each signal as a mail (text with an HTML alternative, a one-click unsubscribe) to the address your account confirmed ' +
        '(POST /api/v1/email, then its link); 422 until one is confirmed, and on a server without SMTP_URL, where the channel is unavailable ' +
        '(GET /api/v1/email says which). At most SIGNAL_EMAILS_PER_DAY signal mails per account per UTC day. ' +
        'webhook_template turns the webhook body into the shape an execution bridge takes (the signature headers stay); an unknown ' +
        'placeholder, a template that is not JSON once filled, or one over 4 KiB is refused (422, naming what is wrong). ' +
        'A model whose stored file fails the safety check is refused (422): retrain it. ' +
        'Emits DEPLOYED.',
      body: DeployRequest,
      response: { 200: DeployResponse },
    },
    handler: async (request) => deployments.deploy(requireUser(request), request.body),
  });

  app.delete('/api/v1/deploy/:model', {
    config: { auth: 'key' },
    schema: {
      tags: ['live'],
      summary: 'Stop a deployment',
      description: 'By stem or display name; 404 when the model is not deployed by this key.',
      params: DeployParams,
      response: { 200: UndeployResponse },
    },
    handler: async (request) => deployments.undeploy(requireUser(request).user_id, request.params.model),
  });

  app.get('/api/v1/deployed', {
    config: { auth: 'key' },
    schema: {
      tags: ['live'],
      summary: 'Your deployed models',
      description:
        '`status` is `deployed` while the model runs, `failed` once it stopped for good: its stored model failed the safety check, ' +
        '`error` says so in plain words. A failed deployment sends nothing and is not restarted (not after a restart of the service either); ' +
        'retrain the model and deploy it again, or undeploy it.',
      response: { 200: DeployedList },
    },
    handler: async (request) => deployments.list(requireUser(request).user_id),
  });

  app.get('/api/v1/signals/:model/stream', {
    config: { auth: 'key' },
    schema: {
      tags: ['live'],
      summary: 'A deployed model’s signals, live (SSE)',
      description:
        'Frames are `id: <signal id>`, `event: signal`, `data: <SignalEvent JSON>`, a `heartbeat` event every 15 s. ' +
        'Only the owner may stream a deployment (404 otherwise); one concurrent SSE stream per key (429).',
      params: DeployParams,
      response: { 200: { description: 'An SSE stream', content: { 'text/event-stream': { schema: SignalEvent } } } },
    },
    handler: async (request, reply) => {
      const user = requireUser(request);
      const deployment = await deployments.find(user.user_id, request.params.model);
      const release = await deps.slots.acquireForKey(user.user_id, deps.perKey);
      const stream = openSse(request, reply, deps.heartbeatMs);
      const sub = subscribe(deps.bus, Topics.signal, Topics.signal.subject(deployment.deployment_id), (event) =>
        stream.send('signal', event, event.id),
      );
      stream.onClose(() => {
        sub.unsubscribe();
        release();
      });
    },
  });
}
