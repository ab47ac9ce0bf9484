import { z } from 'zod';
import type { App } from '../types.ts';

/** Counters the composition root gathers from the running parts, by metric name. */
export type MetricsSource = () => Record<string, number>;

/**
 * GET /_metrics: process counters in Prometheus' text format (ingest, storage, sources,
 * memory). Counts only — nothing about users — so it needs no key.
 */
export function metricsRoutes(app: App, { metrics }: { metrics: MetricsSource }): void {
  app.get('/_metrics', {
    config: { auth: 'none' },
    schema: {
      tags: ['meta'],
      summary: 'Operational counters (Prometheus text format)',
      description: 'Ticks received, stored and late per source, bars stored, process memory. No user data.',
      response: { 200: { description: 'metrics', content: { 'text/plain': { schema: z.string() } } } },
    },
    handler: async (_request, reply) => {
      const memory = process.memoryUsage();
      const all: Record<string, number> = {
        signalforge_process_rss_bytes: memory.rss,
        signalforge_process_heap_used_bytes: memory.heapUsed,
        ...metrics(),
      };
      const text = Object.entries(all)
        .map(([name, value]) => `${name} ${value}`)
        .join('\n');
      return reply.type('text/plain; version=0.0.4; charset=utf-8').send(`${text}\n`);
    },
  });
}
