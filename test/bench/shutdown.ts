/**
 * shutdown: how long `signalforge serve` takes from SIGTERM to exit, against its own bound
 * (SHUTDOWN_TIMEOUT_MS: past it, the service exits whatever is still stopping). The functional
 * test (test/e2e/shutdown.test.ts) only checks that the stop is clean and does not hang; the
 * figure is here.
 *
 * The real service runs as a child process (embedded NATS and chdb, a temp DATA_DIR, loopback):
 *   idle        started and ready, one trial key minted, nothing else running, then SIGTERM
 *   under-load  a train job running (a pool worker busy in its feature step), an SSE stream open
 *               and --clients concurrent keyed GETs in flight when SIGTERM arrives
 * Each state runs --runs times on a fresh service; the report gives every run and the worst.
 *
 * Flags: --runs=2 --clients=16 --history-days=4 --start-timeout=90 --log-level=warn
 */
import { EnvConfig } from '../../schemas/config.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { apiCaller } from './lib/api.ts';
import { startServiceProcess, type ServiceProcess } from './lib/service.ts';
import { numberOption, type BenchContext, type BenchResult, type Benchmark } from './lib/types.ts';

const SHUTDOWN_BOUND_MS = EnvConfig.parse({}).SHUTDOWN_TIMEOUT_MS;

interface Stop {
  ms: number;
  code: number | null;
  signal: string | null;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (signal.aborted) throw signal.reason;
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Keyed GETs from `clients` loops until `stopped` is set; counts answers and connection errors. */
function hammer(service: ServiceProcess, key: string, clients: number) {
  let stopped = false;
  const counts = { answered: 0, refused: 0 };
  const loops = Array.from({ length: clients }, async () => {
    while (!stopped) {
      try {
        const res = await fetch(`${service.url}/api/v1/whoami-key`, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(5000) });
        await res.arrayBuffer();
        counts.answered++;
      } catch {
        // Refused or reset: the edge has stopped listening, which is what a drain ends with.
        counts.refused++;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  });
  return {
    counts,
    async end() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

export const benchmark: Benchmark = {
  name: 'shutdown',
  description:
    'SIGTERM → exit of the real service, idle and under load (a train job, an SSE stream, keyed GETs), against SHUTDOWN_TIMEOUT_MS',
  async run(ctx: BenchContext): Promise<BenchResult[]> {
    const runs = numberOption(ctx, 'runs', 2);
    const clients = numberOption(ctx, 'clients', 16);
    const env = {
      HISTORY_DAYS: String(numberOption(ctx, 'history-days', 4)),
      LOG_LEVEL: ctx.options['log-level'] ?? 'warn',
      RATE_LIMIT_PER_MIN: '1000000',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_BOUND_MS),
    };
    const start = { signal: ctx.signal, log: ctx.log, timeoutMs: numberOption(ctx, 'start-timeout', 90) * 1000 };

    const once = async (state: 'idle' | 'under-load'): Promise<Stop & { answered?: number; refused?: number }> => {
      const service = await startServiceProcess(env, start);
      ctx.defer(() => service.stop(5000).then(() => undefined));
      const api = apiCaller(service.url);
      const { api_key: key } = await api('POST', '/api/v1/key/trial', {});
      // Ready (the synthetic history built, every part up): the stop measured is a running service's.
      await waitFor('/_readyz', async () => (await fetch(`${service.url}/_readyz`)).ok, 120_000, ctx.signal);
      if (state === 'idle') return service.stop(SHUTDOWN_BOUND_MS * 2);

      const job = await api(
        'POST',
        '/api/v1/train',
        { code: strategyCode({ prelude: 'busy = sum(range(20_000_000))' }), timeframe: '1min' },
        key,
      );
      await waitFor(
        'the train job to run',
        async () => (await api('GET', `/api/v1/train/${job.job_id}`, undefined, key)).status === 'running',
        60_000,
        ctx.signal,
      );
      const stream = await fetch(`${service.url}/api/v1/activity/stream`);
      const streamEnded = stream.text().catch(() => '');
      const load = hammer(service, key, clients);
      await new Promise((r) => setTimeout(r, 1000));
      const stopped = await service.stop(SHUTDOWN_BOUND_MS * 2);
      await load.end();
      await streamEnded;
      return { ...stopped, ...load.counts };
    };

    const results: BenchResult[] = [];
    for (const state of ['idle', 'under-load'] as const) {
      const stops: Array<Awaited<ReturnType<typeof once>>> = [];
      for (let i = 0; i < runs; i++) {
        const stop = await once(state);
        ctx.log(`${state} run ${i + 1}: SIGTERM → exit ${stop.ms} ms (exit ${stop.code ?? stop.signal})`);
        stops.push(stop);
      }
      const worst = Math.max(...stops.map((s) => s.ms));
      results.push({
        name: state,
        what:
          state === 'idle'
            ? 'SIGTERM → exit of a started, ready service with nothing running'
            : `SIGTERM → exit with a train job running, an SSE stream open and ${clients} concurrent keyed GETs`,
        runs: stops.map((s) => ({
          ms: s.ms,
          exit: s.code ?? s.signal,
          ...(s.answered === undefined ? {} : { answered: s.answered, refused: s.refused }),
        })),
        worst_ms: worst,
        median_ms: stops.map((s) => s.ms).sort((a, b) => a - b)[Math.floor((stops.length - 1) / 2)],
        bound_ms: SHUTDOWN_BOUND_MS,
        within_bound: worst <= SHUTDOWN_BOUND_MS,
        clean_exits: stops.every((s) => s.code === 0),
        service_env: env,
      });
    }
    return results;
  },
};
