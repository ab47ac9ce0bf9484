import { z } from 'zod';

/** One dependency's answer to the readiness probe. */
export const DependencyStatus = z
  .object({
    ok: z.boolean(),
    ms: z.number().int().min(0).describe('How long the check took'),
    error: z.string().optional().describe('Why the dependency is not ready'),
  })
  .meta({ id: 'DependencyStatus' });
export type DependencyStatus = z.infer<typeof DependencyStatus>;

/** GET /_readyz: whether this process can serve requests now, dependency by dependency. */
export const Readiness = z
  .object({
    ready: z.boolean(),
    checks: z.record(z.string(), DependencyStatus).describe('nats, clickhouse, python (each with ok, ms, error)'),
    error: z.string().optional().describe('When not ready: which dependencies fail'),
    code: z.number().int().optional().describe('503 when not ready'),
    waiting_for: z
      .array(z.string())
      .optional()
      .describe(
        'While starting: what the process still waits for, e.g. "nats nats://10.0.0.1:4222,nats://10.0.0.2:4222", "stream TICKS", "kv accounts" (each retried until the cluster answers)',
      ),
  })
  .meta({ id: 'Readiness' });
export type Readiness = z.infer<typeof Readiness>;
