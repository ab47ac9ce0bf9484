import { z } from 'zod';
import { Readiness } from '../../../schemas/health.ts';
import type { App } from '../types.ts';

export function healthRoutes(app: App): void {
  app.get('/_healthz', {
    config: { auth: 'none' },
    schema: {
      tags: ['meta'],
      summary: 'Liveness',
      description:
        'Answers the text `ok` while the process runs and its event loop turns: an orchestrator restarts the process ' +
        'when this fails. It says nothing about dependencies — that is GET /_readyz. A process whose embedded ' +
        'nats-server cannot be restarted within NATS_RESTART_BOUND_MS exits non-zero rather than staying up.',
      response: { 200: { description: 'ok', content: { 'text/plain': { schema: z.literal('ok') } } } },
    },
    handler: async (_request, reply) => reply.type('text/plain; charset=utf-8').send('ok'),
  });
}

export interface ReadinessRoutesDeps {
  /** Probes every dependency (each under its own deadline). */
  readiness: () => Promise<Readiness>;
}

/** GET /_readyz: 200 when every dependency answers, 503 naming the ones that do not. */
export function readinessRoutes(app: App, { readiness }: ReadinessRoutesDeps): void {
  app.get('/_readyz', {
    config: { auth: 'none' },
    schema: {
      tags: ['meta'],
      summary: 'Readiness',
      description:
        'Whether this process can serve requests now: `nats` (connected, JetStream answers), `clickhouse` (answers a ' +
        'query) and `python` (the strategy runtime has a live worker process). Each check has 1.5 s; the answer ' +
        'lists every dependency with `ok`, `ms` and, when failing, `error`. 200 when all are ok, 503 otherwise ' +
        '(and while shutting down): route traffic elsewhere until it is 200 again.',
      response: {
        200: Readiness.describe('Every dependency answers'),
        503: Readiness.describe('At least one dependency does not answer (see error and checks)'),
      },
    },
    handler: async (_request, reply) => {
      const answer = await readiness();
      return reply.status(answer.ready ? 200 : 503).send(answer);
    },
  });
}
