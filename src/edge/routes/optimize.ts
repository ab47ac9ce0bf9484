import type { OptimizeJobs } from '../../optimize/index.ts';
import { CONCURRENT_OPTIMIZATIONS, ENGINE_TRIAL_CREDITS, MODEL_TRIAL_CREDITS } from '../../optimize/index.ts';
import {
  OptimizeIdParams,
  OptimizeJobView,
  OptimizeProgress,
  OptimizeRequest,
  OptimizeSaveRequest,
  OptimizeStart,
} from '../../../schemas/optimize.ts';
import { MAX_GRID_SIZE } from '../../../schemas/optimize-space.ts';
import { requireUser } from '../plugins/auth.ts';
import { openSse, type SseSlots } from '../plugins/sse.ts';
import type { App } from '../types.ts';

export interface OptimizeRoutesDeps {
  optimize: OptimizeJobs;
  slots: SseSlots;
  perKey: number;
  heartbeatMs: number;
}

const ID = 'Another user’s optimisation is 404.';

export function optimizeRoutes(app: App, deps: OptimizeRoutesDeps): void {
  const { optimize } = deps;
  app.post('/api/v1/optimize', {
    config: { auth: 'key' },
    schema: {
      tags: ['optimize'],
      summary: 'Walk-forward optimisation of a strategy over a search space (returns at once; poll or stream the job)',
      description:
        'Checks the code (400 with `violations`), the span (400), the objective (`optimization`: 422 listing the metrics when it cannot be read) and the ' +
        `search space against the strategy (422: an empty space; a grid over ${MAX_GRID_SIZE.toLocaleString('en-US')} combinations, giving its size and the maximum; ` +
        'a parameter the strategy does not have, named; an indicators.<key> its strategy_config() does not return in "indicators" — the only place its ' +
        'feature_engineering can read a value from — with how to make it tunable; MACD ranges where fast could reach slow). Then charges by size — ' +
        `${ENGINE_TRIAL_CREDITS} credit per trial when every parameter is an engine parameter, ${MODEL_TRIAL_CREDITS} per trial when the space changes the model ` +
        `(402 when short) — and queues the job. At most ${CONCURRENT_OPTIMIZATIONS.free} optimisation at once on the free plan, ` +
        `${CONCURRENT_OPTIMIZATIONS.pro} on pro (429 with Retry-After). ` +
        'The job fits the code once with k walk-forward fold models (each fold’s bars scored by a model fitted only before them, purged and embargoed); ' +
        'engine parameters (levels, threshold, pos_rules, filters) reuse those probabilities and run only the position engine, all trials of a batch in ' +
        'one pass; model parameters (model_type, model_params.*, indicators.*) fit the fold models again per variant, an indicator variant on features ' +
        'recomputed in the sandbox with its values (the code’s own strategy_config() returns them, so its feature_engineering reads them). A saved trial’s ' +
        'indicator values are the model’s: its config carries them and its features are computed with them at train, predict and live. ' +
        'Trials are suggested by optuna in the sandbox ' +
        '(grid, random, tpe) and chosen on the in-sample folds (all but the last); the last fold is out-of-sample for every trial. A trial whose strategy ' +
        'fails is reported failed with its error; the others go on. Credits of trials not run (cancel, grid exhausted, the job failing) are refunded exactly. ' +
        'With `save_as` the chosen trial is saved as a model when the job is done (a train job, one training-compute run), and deployed with `deploy`.',
      body: OptimizeRequest,
      response: { 200: OptimizeStart },
    },
    handler: async (request) => optimize.submit(requireUser(request), request.body),
  });

  app.get('/api/v1/optimize/:optimize_id', {
    config: { auth: 'key' },
    schema: {
      tags: ['optimize'],
      summary: 'An optimisation job: progress, every trial, and when done the chosen trial, walk-forward, PBO, degradation and robustness',
      description:
        'queued → running (with `stage`) → done | failed (`error`) | cancelled. Each trial: its parameters, in-sample metrics (every fold but the last), ' +
        'out-of-sample metrics (the last fold), objective value, feasibility and state (failed with `error`). When done: `chosen_trial` (best in-sample among the ' +
        'feasible), `walk_forward` (at each fold, the trial best on the folds before it traded on it; stitched out-of-sample equity), `pbo` (CSCV over the ' +
        'trial × period return matrix, S = 16 slices, with its logits), `degradation` (slope of out-of-sample on in-sample objective over the trials) and ' +
        '`robustness` (the chosen trial’s report, N = the trials run). A job whose process stops is resumed by another (or after a restart) from its stored ' +
        `trials; after 3 attempts it fails and the trials not run are refunded. ${ID}`,
      params: OptimizeIdParams,
      response: { 200: OptimizeJobView },
    },
    handler: async (request) => optimize.view(requireUser(request).user_id, request.params.optimize_id),
  });

  app.get('/api/v1/optimize/:optimize_id/stream', {
    config: { auth: 'key' },
    schema: {
      tags: ['optimize'],
      summary: 'Progress of an optimisation (SSE)',
      description:
        'Events: `progress` {status, stage, trials_planned, trials_done, trials_failed, best_value, last_trial} now and on every change; then one `done` ' +
        `with the job as GET /optimize/{id} answers it, and the stream closes. One concurrent SSE stream per key. ${ID}`,
      params: OptimizeIdParams,
      response: {
        200: { description: 'An SSE stream of progress events, then done', content: { 'text/event-stream': { schema: OptimizeProgress } } },
      },
    },
    handler: async (request, reply) => {
      const user = requireUser(request);
      const release = await deps.slots.acquireForKey(user.user_id, deps.perKey);
      let follow;
      let stream: ReturnType<typeof openSse> | null = null;
      const pending: Array<[string, unknown]> = [];
      try {
        follow = await optimize.follow(user.user_id, request.params.optimize_id, (p) =>
          stream ? stream.send('progress', p) : pending.push(['progress', p]),
        );
      } catch (err) {
        release();
        throw err;
      }
      stream = openSse(request, reply, deps.heartbeatMs);
      stream.onClose(() => {
        follow.stop();
        release();
      });
      for (const [event, data] of pending) stream.send(event, data);
      const view = await follow.done;
      stream.send('done', view);
      stream.close();
    },
  });

  app.delete('/api/v1/optimize/:optimize_id', {
    config: { auth: 'key' },
    schema: {
      tags: ['optimize'],
      summary: 'Cancel an optimisation; the trials not run are refunded',
      description:
        'The job stops before its next batch of trials (a batch running finishes and is kept), ends `cancelled`, and the credits of every trial not run ' +
        `are refunded (\`credits_refunded\`). Answers the job once it has stopped. 409 when it had ended already. ${ID}`,
      params: OptimizeIdParams,
      response: { 200: OptimizeJobView },
    },
    handler: async (request) => optimize.cancel(requireUser(request).user_id, request.params.optimize_id),
  });

  app.post('/api/v1/optimize/:optimize_id/save', {
    config: { auth: 'key' },
    schema: {
      tags: ['optimize'],
      summary: 'Save the chosen trial of a finished optimisation as a model (and deploy it)',
      description:
        'Queues a train job (as POST /train: one training-compute run; follow it at GET /train/{saved.train_job_id}) on the optimisation’s span with the ' +
        'chosen trial’s parameters: levels and threshold as settings, model class and hyperparameters for the fit, pos_rules and filters over the code’s ' +
        'strategy_config. With `deploy` the model is deployed once trained (`saved.deployment_id`, or `saved.deploy_error`). The model carries its own ' +
        `robustness report from training. 409 until the job is done; 422 when no trial met the objective. ${ID}`,
      params: OptimizeIdParams,
      body: OptimizeSaveRequest,
      response: { 200: OptimizeJobView },
    },
    handler: async (request) => optimize.save(requireUser(request), request.params.optimize_id, request.body),
  });
}
