/**
 * Custom indicators: Pine Script v5/v6 parsed by our own parser and run bar by bar by our own
 * interpreter (never as JavaScript), in worker threads. POST /api/v1/indicators/custom, in order:
 * source → (text: Pine from generation/pine) → `PinePool.run` over the bars → `shapeRun`.
 */
export { PinePool, type PinePoolOptions, type PineRunStamps } from './pool.ts';
export { shapeRun } from './shape.ts';
export { parsePine } from './pine/parser.ts';
export { PineError } from './pine/errors.ts';
export { runProgram } from './run/interpreter.ts';
export { runJob, type PineJob, type PineJobResult, type ScriptProblem } from './job.ts';
export type { RunResult } from './run/outputs.ts';
export type { Bars as PineBars } from './run/values.ts';
