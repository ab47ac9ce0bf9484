/**
 * http-edge: what one service process answers per second at its HTTP edge, measured from outside.
 *
 * The real service runs as a child process (`node --import tsx src/cli.ts serve`, embedded NATS
 * and chdb, a temp DATA_DIR, 127.0.0.1 only); autocannon runs in a second process. Three runs:
 *   (a) GET /_healthz              no key: Fastify + hooks + the access-log hook
 *   (b) GET /api/v1/whoami-key     X-API-Key: (a) + key hash lookup + rate limiter + zod response
 *   (c) GET /api/v1/whoami-key     one key at the default 120/min, hammered: the 429 path
 * (a) and (b) run against a service whose RATE_LIMIT_PER_MIN is far above what the run can send,
 * so the limiter is consulted on every request but never rejects; (c) needs a service with the
 * default limit, so it gets its own. The goal (issue): ≥ 10,000 authenticated requests/s.
 *
 * The service runs with MARKET_FEED=none: no synthetic history build at start (a minute for 365
 * days) and no live synthetic feed competing for the cores; --service-env=MARKET_FEED=synthetic
 * measures the edge beside the feed.
 *
 * Flags: --duration=10 --warmup=2 --connections=50 --pipelining=1 --reject-duration=5
 *        --log-level=warn
 *        --quiet-wait=10         before each run, wait up to this many seconds for the machine to
 *                                be idle (other work on 2 cores halves the figures)
 *        --runs=a,b,c            a subset of the runs (the summary needs a and b)
 *        --service-root=DIR      start DIR/src/cli.ts instead of this checkout's (A/B a change)
 *        --service-env=K=V,K=V   extra environment for the service (experiments on a variant)
 *        --start-timeout=30      seconds a service may take to answer /_healthz
 *        --cpu-prof=DIR          start the service under `node --cpu-prof`, profiles into DIR
 *                                (read them with lib/cpuprofile-summary.ts)
 */
import { EnvConfig } from '../../schemas/config.ts';
import { runLoad, type LoadRun } from './lib/load.ts';
import type { LoadSpec } from './lib/load-worker.ts';
import { startServiceProcess, waitForQuiet, type ServiceProcess } from './lib/service.ts';
import { numberOption, type BenchContext, type BenchResult, type Benchmark } from './lib/types.ts';

const GOAL_AUTH_RPS = 10_000;
/** A ceiling on what one loopback connection set could send per second, to size the limiter. */
const MAX_PLAUSIBLE_RPS = 100_000;

/** Cores used by anything but the service and the load generator above which a run is noisy. */
const NOISY_CORES = 0.35;

const round = (x: number, digits = 0) => Math.round(x * 10 ** digits) / 10 ** digits;

async function mintKey(service: ServiceProcess): Promise<string> {
  const res = await fetch(`${service.url}/api/v1/key/trial`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { api_key?: string };
  if (res.status !== 200 || !body.api_key) throw new Error(`minting a trial key failed: ${res.status} ${JSON.stringify(body)}`);
  const check = await fetch(`${service.url}/api/v1/whoami-key`, { headers: { 'x-api-key': body.api_key } });
  if (check.status !== 200) throw new Error(`the minted key is refused: ${check.status} ${await check.text()}`);
  return body.api_key;
}

/** One run's figures, in the shape the JSON document reports. */
/** Waits for a quiet moment (bounded), then runs the load; the wait is part of the report. */
async function measure(ctx: BenchContext, spec: LoadSpec, service: ServiceProcess, maxWaitMs: number) {
  const before = await waitForQuiet(maxWaitMs, ctx.signal);
  if (!before.quiet) ctx.log(`machine still busy (${before.busy_cores} cores) after waiting ${before.waited_ms} ms: measuring anyway`);
  else if (before.waited_ms > 600) ctx.log(`waited ${before.waited_ms} ms for other work to finish`);
  const logBefore = service.logBytes();
  const run = await runLoad(spec, { serverPid: service.pid, signal: ctx.signal });
  // Includes the warm-up's lines: per request it is the same.
  const logBytes = service.logBytes() - logBefore;
  return { ...run, before, logBytes };
}

function describe(
  name: string,
  what: string,
  spec: LoadSpec,
  run: LoadRun & { before: Awaited<ReturnType<typeof waitForQuiet>>; logBytes: number },
  service: Record<string, string>,
): BenchResult {
  const r = run.result;
  const windowS = run.window_ms / 1000;
  const serverCores = run.server_cpu_ms === null ? null : run.server_cpu_ms / run.window_ms;
  return {
    name,
    what,
    request: `${spec.method ?? 'GET'} ${new URL(spec.url).pathname}${spec.headers?.['x-api-key'] ? ' (X-API-Key)' : ''}`,
    requests_per_s: round(r.requests.mean),
    requests_per_s_stddev: round(r.requests.stddev),
    requests_total: r.requests.total,
    latency_ms: {
      p50: run.latency_ms.p50,
      p90: run.latency_ms.p90,
      p99: run.latency_ms.p99,
      max: run.latency_ms.max,
      mean: run.latency_ms.mean,
    },
    non_2xx: r.non2xx,
    status_codes: Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count])),
    errors: r.errors,
    timeouts: r.timeouts,
    // What the service itself spent: comparable across machines where the load generator differs.
    service_cpu_cores: serverCores === null ? null : round(serverCores, 2),
    requests_per_service_cpu_s: run.server_cpu_ms ? round(r.requests.total / (run.server_cpu_ms / 1000)) : null,
    loadgen_cpu_cores: round(run.cpu_ms / run.wall_ms, 2),
    service_log_bytes: run.logBytes,
    // Machine busy cores just before the run (after waiting up to --quiet-wait for a quiet moment).
    busy_cores_before: run.before.busy_cores,
    waited_for_quiet_ms: run.before.waited_ms,
    // Everything else that ran meanwhile (other processes, loopback softirq ≈ 0.1–0.2 on a quiet
    // machine): much higher means a noisy figure.
    other_cpu_cores:
      run.machine_busy_cpu_ms === null || run.server_cpu_ms === null
        ? null
        : round(Math.max(0, run.machine_busy_cpu_ms - run.server_cpu_ms - run.cpu_ms) / run.window_ms, 2),
    load: {
      connections: spec.connections,
      pipelining: spec.pipelining,
      duration_s: spec.durationS,
      measured_window_s: round(windowS, 2),
      warmup_s: spec.warmupS,
      tool: 'autocannon 8 (programmatic, own process; latency percentiles from every response)',
    },
    service,
  };
}

export const benchmark: Benchmark = {
  name: 'http-edge',
  description: 'requests/s of the real service: /_healthz, authenticated /api/v1/whoami-key, and the 429 path',
  async run(ctx: BenchContext): Promise<BenchResult[]> {
    const durationS = numberOption(ctx, 'duration', 10);
    const warmupS = numberOption(ctx, 'warmup', 2);
    const connections = numberOption(ctx, 'connections', 50);
    const pipelining = numberOption(ctx, 'pipelining', 1);
    const rejectDurationS = numberOption(ctx, 'reject-duration', 5);
    const logLevel = ctx.options['log-level'] ?? 'warn';
    const quietWaitMs = numberOption(ctx, 'quiet-wait', 10) * 1000;
    const extraEnv = Object.fromEntries(
      (ctx.options['service-env'] ?? '')
        .split(',')
        .filter(Boolean)
        .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
    );
    // The edge alone: no market feed building history or ticking beside it (overridable).
    const baseEnv = { MARKET_FEED: 'none', ...extraEnv };
    const runs = new Set((ctx.options.runs ?? 'a,b,c').split(','));
    const start = {
      timeoutMs: numberOption(ctx, 'start-timeout', 30) * 1000,
      signal: ctx.signal,
      log: ctx.log,
      ...(ctx.options['service-root'] ? { root: ctx.options['service-root'] } : {}),
      nodeArgs: ctx.options['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${ctx.options['cpu-prof']}`] : [],
    };
    const defaults = EnvConfig.parse({});
    // Never reached by what (a)+(b) can send within one rolling minute, so (b) never sees a 429;
    // the limiter's ring is Float64Array(limit), so this costs limit × 8 bytes for the one key.
    const highLimit = Math.max(1_000_000, Math.ceil(MAX_PLAUSIBLE_RPS * Math.min(60, warmupS + durationS + 1)));
    const load = (url: string, headers: Record<string, string>, d = durationS, w = warmupS): LoadSpec => ({
      url,
      headers,
      connections,
      pipelining,
      durationS: d,
      warmupS: w,
    });
    const results: BenchResult[] = [];
    const byName: Record<string, { result: BenchResult; run: LoadRun }> = {};
    const stops: Record<string, number> = {};

    // (a) and (b): one service, limiter on but out of reach.
    if (runs.has('a') || runs.has('b')) {
      const env = { ...baseEnv, LOG_LEVEL: logLevel, RATE_LIMIT_PER_MIN: String(highLimit) };
      const report = {
        ...baseEnv,
        LOG_LEVEL: logLevel,
        RATE_LIMIT_PER_MIN: String(highLimit),
        note: 'limit far above what the run sends: the limiter runs on every keyed request and never rejects',
        ...(start.root ? { root: start.root } : {}),
      };
      ctx.log(`starting the service (${JSON.stringify(env)})`);
      const open = await startServiceProcess(env, start);
      ctx.defer(() => open.stop(5000).then(() => undefined));
      const key = await mintKey(open);
      ctx.log(`service up in ${open.startMs} ms`);
      stops.open_start = open.startMs;

      if (runs.has('a')) {
        ctx.log(`(a) GET /_healthz: ${warmupS} s warm-up + ${durationS} s, ${connections} connections, pipelining ${pipelining}`);
        const spec = load(`${open.url}/_healthz`, {});
        const run = await measure(ctx, spec, open, quietWaitMs);
        const result = describe('healthz-unauth', 'GET /_healthz, no key (public route: no lookup, no limiter)', spec, run, report);
        results.push(result);
        byName.a = { result, run };
        ctx.log(`(a) ${result.requests_per_s} req/s, p50 ${run.latency_ms.p50} ms, p99 ${run.latency_ms.p99} ms`);
      }
      if (runs.has('b')) {
        ctx.log(`(b) GET /api/v1/whoami-key with X-API-Key: ${warmupS} s warm-up + ${durationS} s`);
        const spec = load(`${open.url}/api/v1/whoami-key`, { 'x-api-key': key });
        const run = await measure(ctx, spec, open, quietWaitMs);
        const result = describe(
          'whoami-auth',
          'GET /api/v1/whoami-key with a valid key: sha256 lookup, limiter take, handler, zod-validated JSON',
          spec,
          run,
          report,
        );
        results.push(result);
        byName.b = { result, run };
        ctx.log(`(b) ${result.requests_per_s} req/s, p50 ${run.latency_ms.p50} ms, p99 ${run.latency_ms.p99} ms`);
        if (run.result.non2xx > 0) ctx.log(`(b) WARNING: ${run.result.non2xx} non-2xx answers: the figure is not clean`);
      }
      const stopped = await open.stop();
      stops.open_stop = stopped.ms;
      ctx.log(`service stopped by SIGTERM in ${stopped.ms} ms (exit ${stopped.code ?? stopped.signal})`);
    }

    // (c) a key at the default limit: after the first 120 requests (spent in the warm-up) every
    // answer is a 429 with Retry-After, built by the error handler.
    if (runs.has('c')) {
      ctx.log(`starting a second service with the default RATE_LIMIT_PER_MIN (${defaults.RATE_LIMIT_PER_MIN})`);
      const limited = await startServiceProcess({ ...baseEnv, LOG_LEVEL: logLevel }, start);
      stops.limited_start = limited.startMs;
      ctx.defer(() => limited.stop(5000).then(() => undefined));
      const key = await mintKey(limited);
      ctx.log(`(c) GET /api/v1/whoami-key, key over its limit: 1 s warm-up + ${rejectDurationS} s`);
      const spec = load(`${limited.url}/api/v1/whoami-key`, { 'x-api-key': key }, rejectDurationS, 1);
      const run = await measure(ctx, spec, limited, quietWaitMs);
      const result = describe(
        'whoami-rate-limited',
        'GET /api/v1/whoami-key with a key past its 120/min: every answer a 429 (the cost of rejecting)',
        spec,
        run,
        {
          ...baseEnv,
          LOG_LEVEL: logLevel,
          RATE_LIMIT_PER_MIN: `${defaults.RATE_LIMIT_PER_MIN} (default)`,
          ...(start.root ? { root: start.root } : {}),
        },
      );
      results.push(result);
      byName.c = { result, run };
      ctx.log(`(c) ${result.requests_per_s} answers/s (${JSON.stringify(result.status_codes)})`);
      const stopped = await limited.stop();
      stops.limited_stop = stopped.ms;
      ctx.log(`second service stopped by SIGTERM in ${stopped.ms} ms (exit ${stopped.code ?? stopped.signal})`);
    }

    const measured = Object.values(byName).map((x) => x.result);
    const noisy = measured.filter((r) => typeof r.other_cpu_cores === 'number' && r.other_cpu_cores > NOISY_CORES);
    if (noisy.length) ctx.log(`WARNING: other work competed for the cores during ${noisy.map((r) => r.name).join(', ')}`);
    const rps = (k: string) => byName[k]?.run.result.requests.mean ?? null;
    const [unauth, auth, rejected] = [rps('a'), rps('b'), rps('c')];
    const ratio = (x: number | null, y: number | null) => (x === null || y === null ? null : round(x / y, 3));
    results.push({
      name: 'summary',
      auth_requests_per_s: auth === null ? null : round(auth),
      unauth_requests_per_s: unauth === null ? null : round(unauth),
      rejected_429_per_s: rejected === null ? null : round(rejected),
      ratio_auth_to_unauth: ratio(auth, unauth),
      ratio_429_to_auth: ratio(rejected, auth),
      auth_requests_per_service_cpu_s: byName.b?.result.requests_per_service_cpu_s ?? null,
      goal: GOAL_AUTH_RPS,
      met: auth === null ? null : auth >= GOAL_AUTH_RPS && byName.b!.run.result.non2xx === 0,
      goal_meaning: 'authenticated requests/s (run b, mean of 1 s samples, no non-2xx) on this machine',
      // The same goal for the service alone, given one whole core: robust to a noisy neighbour.
      met_per_service_core:
        typeof byName.b?.result.requests_per_service_cpu_s === 'number'
          ? byName.b.result.requests_per_service_cpu_s >= GOAL_AUTH_RPS
          : null,
      caveat:
        "service and load generator share this machine's cores; service_cpu_cores and " +
        'requests_per_service_cpu_s show what the service itself spent',
      noise_warning: noisy.length
        ? `other processes used > ${NOISY_CORES} cores during ${noisy.map((r) => r.name).join(', ')}: ` +
          'the req/s figures understate; rerun on a quiet machine'
        : null,
      service_start_stop_ms: stops,
    });
    return results;
  },
};
