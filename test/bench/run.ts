/**
 * `npm run bench [-- NAME... --key=value...]`: runs the benchmark modules of test/bench/ and
 * prints ONE JSON document on stdout: { machine, results: [...] }. Logs go to stderr.
 *
 * Adding a benchmark: write test/bench/<name>.ts exporting `benchmark: Benchmark`
 * (see lib/types.ts) and add one line to MODULES below. Modules run in the listed order.
 *
 *   npm run bench                       every benchmark
 *   npm run bench -- http-edge          only the named ones
 *   npm run bench -- --list             names and descriptions
 *   npm run bench -- --duration=5       flags are handed to every module (each reads its own)
 *   npm run bench -- --max-seconds=300  the whole run's deadline (default 600 s)
 *   npm run bench -- --out=FILE         also write the JSON document to FILE
 *   npm run -s bench > bench.json       npm itself prints a "> signalforge@… bench" banner on
 *                                       stdout unless -s/--silent is given
 *
 * Exit code: 0 when every selected benchmark finished, 1 when one failed (its entry in
 * `results` carries `error`), 2 on a bad command line.
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import type { BenchContext, BenchResult, Benchmark } from './lib/types.ts';

const MODULES: Record<string, () => Promise<{ benchmark: Benchmark }>> = {
  'http-edge': () => import('./http-edge.ts'),
  'market-ingest': () => import('./market-ingest.ts'),
  'market-rebuild': () => import('./market-rebuild.ts'),
  'market-read': () => import('./market-read.ts'),
  'tick-sources': () => import('./tick-sources.ts'),
  'strategy-runtime': () => import('./strategy-runtime.ts'),
  'sandbox-hostile': () => import('./sandbox-hostile.ts'),
  pipeline: () => import('./pipeline.ts'),
  'train-fairness': () => import('./train-fairness.ts'),
  'pool-fairness': () => import('./pool-fairness.ts'),
  'live-signals': () => import('./live-signals.ts'),
  'model-scoring': () => import('./model-scoring.ts'),
  'backtest-engine': () => import('./backtest-engine.ts'),
  'engine-sweep': () => import('./engine-sweep.ts'),
  optimize: () => import('./optimize.ts'),
  'optimize-sampler': () => import('./optimize-sampler.ts'),
  'optimize-edge': () => import('./optimize-edge.ts'),
  'generator-offline': () => import('./generator-offline.ts'),
  'generator-matrix': () => import('./generator-matrix.ts'),
  'generator-intent': () => import('./generator-intent.ts'),
  'signal-delivery': () => import('./signal-delivery.ts'),
  'payout-sweep': () => import('./payout-sweep.ts'),
  community: () => import('./community.ts'),
  'ws-stream': () => import('./ws-stream.ts'),
  web: () => import('./web.ts'),
  pine: () => import('./pine.ts'),
  'live-tracker': () => import('./live-tracker.ts'),
  'chaos-cluster': () => import('./chaos-cluster.ts'),
  'actor-fleet': () => import('./actor-fleet.ts'),
  'actor-step': () => import('./actor-step.ts'),
  'delivery-step': () => import('./delivery-step.ts'),
  'recorder-step': () => import('./recorder-step.ts'),
  'delivery-catchup': () => import('./delivery-catchup.ts'),
  'model-check': () => import('./model-check.ts'),
  'robustness-report': () => import('./robustness-report.ts'),
  'train-robustness': () => import('./train-robustness.ts'),
  'train-meta': () => import('./train-meta.ts'),
  shutdown: () => import('./shutdown.ts'),
  'startup-cluster': () => import('./startup-cluster.ts'),
};

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

function parseArgs(argv: string[]): { names: string[]; options: Record<string, string>; list: boolean } {
  const names: string[] = [];
  const options: Record<string, string> = {};
  let list = false;
  for (const arg of argv) {
    if (arg === '--list') list = true;
    else if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      if (eq < 0) options[arg.slice(2)] = 'true';
      else options[arg.slice(2, eq)] = arg.slice(eq + 1);
    } else names.push(arg);
  }
  return { names, options, list };
}

function machine() {
  const cpuList = cpus();
  return {
    cpus: cpuList.length,
    cpu_model: cpuList[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${release()} ${process.arch}`,
    memory_gb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    loadavg_1m_at_start: Math.round(loadavg()[0]! * 100) / 100,
    date: new Date().toISOString(),
  };
}

async function main(): Promise<number> {
  const { names, options, list } = parseArgs(process.argv.slice(2));
  const unknown = names.filter((name) => !(name in MODULES));
  if (unknown.length) {
    log(`unknown benchmark(s): ${unknown.join(', ')}; known: ${Object.keys(MODULES).join(', ')}`);
    return 2;
  }
  const selected = names.length ? names : Object.keys(MODULES);
  if (list) {
    for (const name of selected) {
      const { benchmark } = await MODULES[name]!();
      process.stderr.write(`${name}\t${benchmark.description}\n`);
    }
    return 0;
  }

  const maxSeconds = Number(options['max-seconds'] ?? 600);
  const controller = new AbortController();
  const abort = (why: string) => {
    if (controller.signal.aborted) return;
    log(`aborting: ${why}`);
    controller.abort(new Error(why));
  };
  const deadline = setTimeout(() => abort(`deadline of ${maxSeconds} s passed`), maxSeconds * 1000);
  deadline.unref();
  process.on('SIGINT', () => abort('SIGINT'));
  process.on('SIGTERM', () => abort('SIGTERM'));

  const doc = { machine: machine(), results: [] as BenchResult[] };
  let failed = false;
  for (const name of selected) {
    if (controller.signal.aborted) {
      doc.results.push({ benchmark: name, name: 'skipped', error: String(controller.signal.reason) });
      failed = true;
      continue;
    }
    const cleanups: Array<() => Promise<void> | void> = [];
    const ctx: BenchContext = {
      options,
      log: (message) => process.stderr.write(`[${name}] ${message}\n`),
      defer: (cleanup) => void cleanups.push(cleanup),
      signal: controller.signal,
    };
    const started = performance.now();
    log(`${name}: starting`);
    try {
      const { benchmark } = await MODULES[name]!();
      // A module that ignores the abort signal still ends: the race gives up on it.
      const aborted = new Promise<never>((_, reject) => {
        if (controller.signal.aborted) reject(controller.signal.reason);
        controller.signal.addEventListener('abort', () => setTimeout(() => reject(controller.signal.reason), 5000), { once: true });
      });
      aborted.catch(() => undefined);
      const results = await Promise.race([benchmark.run(ctx), aborted]);
      for (const result of results) doc.results.push({ benchmark: name, ...result });
    } catch (err) {
      failed = true;
      log(`${name}: failed: ${(err as Error)?.stack ?? String(err)}`);
      doc.results.push({ benchmark: name, name: 'failed', error: (err as Error)?.message ?? String(err) });
    } finally {
      for (const cleanup of cleanups.reverse()) {
        try {
          await cleanup();
        } catch (err) {
          log(`${name}: cleanup failed: ${String(err)}`);
        }
      }
    }
    log(`${name}: done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  clearTimeout(deadline);
  const json = JSON.stringify(doc, null, 2) + '\n';
  process.stdout.write(json);
  if (options.out) writeFileSync(options.out, json);
  return failed ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
    // Anything a module left behind (a socket, a timer) must not keep the run alive.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (err: unknown) => {
    log(`failed: ${(err as Error)?.stack ?? String(err)}`);
    process.exit(1);
  },
);
