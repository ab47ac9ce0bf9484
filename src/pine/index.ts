/**
 * The Pine Script language (v5/v6) for custom indicators: parsed by our own parser and run by our
 * own interpreter (never as JavaScript), in worker threads. POST /api/v1/indicators/custom, in
 * order: source → (text: Pine from generation/pine) → `PinePool.run` over the bars → `runJob` in a
 * worker (parse, check, run, `shapeRun`) → the response's JSON.
 *
 * Folders by job: syntax/ (lexer, parser, AST, errors), check/ (the static check before any bar
 * runs), bars/ (the bar-by-bar evaluator: closures over the AST), columns/ (the column plan: top-level
 * series computed for every bar at once), builtins/ (ta.*, math.*, str.*, array.*, time functions,
 * drawing), runtime/ (values, frames, scopes and operators both evaluators share), job/ (one job: run
 * and shape the response), pool/ (the worker threads, fair share between users).
 */
export { PinePool, type PinePoolOptions, type PineRunStamps } from './pool/pool.ts';
export { shapeRun } from './job/shape.ts';
export { parsePine } from './syntax/parser.ts';
export { PineError } from './syntax/errors.ts';
export { runProgram } from './bars/interpreter.ts';
export { runJob, type PineJob, type PineJobResult, type ScriptProblem } from './job/job.ts';
export type { RunResult } from './runtime/outputs.ts';
export type { Bars as PineBars } from './runtime/values.ts';
