/** The messages between the edge and a Pine worker, and the one function a worker runs. */
import type { FeMode } from '../../../schemas/custom-indicators.ts';
import { PineError } from '../syntax/errors.ts';
import { parsePine } from '../syntax/parser.ts';
import { Interpreter } from '../bars/interpreter.ts';
import type { RunResult } from '../runtime/outputs.ts';
import { DEFAULT_LIMITS, type Bars } from '../runtime/values.ts';
import { shapedJsonBytes } from './print.ts';
import { shapeRun } from './shape.ts';

export interface PineJob {
  id: number;
  source: string;
  bars: Bars;
  timeframe: string;
  symbol: string;
  mintick: number;
  /** Wall-clock budget of the run inside the worker. */
  wallMs: number;
  maxSteps?: number;
  /** When set, the worker also shapes the response part (bars from `shape.from` on) as JSON, UTF-8 encoded. */
  shape?: { from: number; feMode: FeMode };
}

/** A problem with the script itself: answered 422 and refunded. */
export interface ScriptProblem {
  message: string;
  line: number;
  col: number;
  construct: string | null;
  /** The run used up its budget (the step budget, the time limit, or the worker's heap): charged, and counted against the user. */
  exhausted?: boolean;
}

/** The interpreter's two budget refusals (bars/run-state.ts): past the step budget, past the time limit. */
const BUDGET_SPENT = /ran more than \d+ steps|ran past its time limit/;

export type PineJobResult =
  /** `body`: the shaped part as UTF-8 JSON bytes, its buffer transferred to the edge (not copied). */
  | { id: number; ok: true; result: RunResult; parseMs: number; runMs: number; body?: Uint8Array }
  | { id: number; ok: false; problem: ScriptProblem }
  | { id: number; ok: false; failure: string };

/**
 * Scripts this worker has made ready, by source text, the most recently used last. A script run
 * again (a chart reloaded, another symbol, the next bar) reuses its checked program and the
 * closures V8 already optimised; each run still goes over every bar, and nothing of a run is kept.
 */
const ready = new Map<string, Interpreter>();
const READY_MAX = 32;

function interpreterFor(source: string): Interpreter {
  let interpreter = ready.get(source);
  if (interpreter) ready.delete(source);
  else interpreter = new Interpreter(parsePine(source));
  ready.set(source, interpreter);
  if (ready.size > READY_MAX) ready.delete(ready.keys().next().value!);
  return interpreter;
}

/** Parses and runs one script; never throws (a script problem and our own failure are told apart). */
export function runJob(job: PineJob): PineJobResult {
  try {
    const t0 = performance.now();
    const interpreter = interpreterFor(job.source);
    const t1 = performance.now();
    const result = interpreter.run(job.bars, {
      limits: { ...DEFAULT_LIMITS, maxSteps: job.maxSteps ?? DEFAULT_LIMITS.maxSteps, deadlineMs: performance.now() + job.wallMs },
      timeframe: job.timeframe,
      symbol: job.symbol,
      mintick: job.mintick,
    });
    if (!job.shape) return { id: job.id, ok: true, result, parseMs: t1 - t0, runMs: performance.now() - t1 };
    // Shaped, printed and encoded here, off the event loop: the edge only splices the bytes in.
    const body = shapedJsonBytes(shapeRun(result, job.bars.ts, job.bars.close, job.shape.from, job.shape.feMode));
    return { id: job.id, ok: true, result: { ...result, plots: [], signals: [] }, parseMs: t1 - t0, runMs: performance.now() - t1, body };
  } catch (err) {
    // A script that failed is made ready afresh next time: nothing half-built is ever run again.
    ready.delete(job.source);
    if (err instanceof PineError) {
      const exhausted = BUDGET_SPENT.test(err.message);
      return {
        id: job.id,
        ok: false,
        problem: {
          message: err.message,
          line: err.line,
          col: err.col,
          construct: err.construct ?? null,
          ...(exhausted ? { exhausted } : {}),
        },
      };
    }
    if (err instanceof RangeError) {
      // The JS stack or heap ran out under the script: its fault, told as such.
      return {
        id: job.id,
        ok: false,
        problem: { message: `the script needs too much memory or nesting (${err.message})`, line: 1, col: 1, construct: null },
      };
    }
    return { id: job.id, ok: false, failure: err instanceof Error ? err.message : String(err) };
  }
}
