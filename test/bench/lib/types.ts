/**
 * The contract between `test/bench/run.ts` and each benchmark module. A module exports
 * `benchmark: Benchmark`; run.ts lists the modules, runs the selected ones in order and prints
 * one JSON document on stdout. Everything else a benchmark says goes to stderr (`ctx.log`).
 */

/** One figure (or a small group of figures) a benchmark reports. */
export interface BenchResult {
  /** The module that produced it (filled in by run.ts when left out). */
  benchmark?: string;
  /** What was measured, unique within its benchmark, e.g. `healthz-unauth`. */
  name: string;
  [field: string]: unknown;
}

export interface BenchContext {
  /** `--key=value` flags from the command line (e.g. `--duration=5`); each module reads its own. */
  options: Readonly<Record<string, string>>;
  /** Progress and diagnostics, to stderr (stdout carries only the JSON document). */
  log(message: string): void;
  /** Registers a cleanup; run.ts runs them in reverse order when the module ends or is aborted. */
  defer(cleanup: () => Promise<void> | void): void;
  /** Aborted when the run's deadline passes or on SIGINT/SIGTERM: stop waiting, clean up. */
  signal: AbortSignal;
}

export interface Benchmark {
  name: string;
  description: string;
  run(ctx: BenchContext): Promise<BenchResult[]>;
}

/** Reads a positive number flag, or the default. */
export function numberOption(ctx: BenchContext, name: string, fallback: number): number {
  const raw = ctx.options[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name}=${raw}: expected a positive number`);
  return value;
}
