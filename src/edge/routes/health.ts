import { z } from 'zod';
import type { App } from '../types.ts';

export function healthRoutes(app: App): void {
  app.get('/_healthz', {
    config: { auth: 'none' },
    schema: {
      tags: ['meta'],
      summary: 'Liveness',
      description: 'Answers the text `ok` while the service is up.',
      response: { 200: { description: 'ok', content: { 'text/plain': { schema: z.literal('ok') } } } },
    },
    handler: async (_request, reply) => reply.type('text/plain; charset=utf-8').send('ok'),
  });
}
