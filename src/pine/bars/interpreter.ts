/**
 * Runs a parsed Pine program bar by bar over our bars. Each AST node becomes, once, a closure of
 * ours (expressions.ts, statements.ts); top-level series that depend on nothing a bar's run changes
 * are computed as whole columns on a run's first bar (columns/). What a run reads and writes lives
 * in run-state.ts.
 */
import { checkProgram } from '../check/check.ts';
import { TopLevelColumns } from '../columns/top-level.ts';
import type { PlotOut, RunResult } from '../runtime/outputs.ts';
import type { Bars } from '../runtime/values.ts';
import type { Program } from '../syntax/ast.ts';
import type { Block } from './closures.ts';
import { Expressions } from './expressions.ts';
import { Names } from './names.ts';
import { NO_BARS, RunState, type RunOptions } from './run-state.ts';
import { Scope } from './scope.ts';
import { Statements } from './statements.ts';

export type { RunOptions };

export function runProgram(program: Program, bars: Bars, options: RunOptions): RunResult {
  return new Interpreter(program).run(bars, options);
}

/**
 * A program made ready to run (checked, its closures made as they are first needed) and run any
 * number of times, one run at a time, over any bars. The closures hold nothing of a run: what a
 * run reads and writes (bars, frames, outputs, budgets) lives in its RunState for that run only and
 * is dropped when it ends. Running the same script again therefore reuses closures V8 has already
 * optimised instead of compiling fresh ones (a new set per request kept its JIT busy on every run).
 */
export class Interpreter {
  private readonly r = new RunState();
  private readonly statements: Statements;
  private readonly body: Block;
  /** Top-level series computed as whole columns on each run's first bar (null: every statement bar by bar). */
  private readonly columns: TopLevelColumns | null;

  /** `columns: false` runs every statement bar by bar (tests compare the two ways). */
  constructor(program: Program, options: { columns?: boolean } = {}) {
    const scope = new Scope(program);
    checkProgram(program, scope.funcs);
    const names = new Names(program, this.r, scope);
    const exprs = new Expressions(this.r, scope, names);
    this.columns = options.columns !== false ? new TopLevelColumns(program, this.r, scope, names, exprs) : null;
    this.statements = new Statements(this.r, scope, exprs, this.columns);
    exprs.attach(this.statements);
    this.body = this.statements.codeOf(program.body, scope.env);
  }

  /** How many top-level statements the last run computed as columns (what tests and benches check it does). */
  get columnsUsed(): number {
    return this.columns?.used ?? 0;
  }

  /** Runs the program over `bars`; nothing of an earlier run is seen, nothing of this one kept. */
  run(bars: Bars, options: RunOptions): RunResult {
    const r = this.r;
    this.start(bars, options);
    if (this.columns) this.columns.used = 0;
    try {
      const body = this.body;
      const statements = this.statements;
      const ctx = r.ctx;
      const out = ctx.out;
      for (r.bar = 0; r.bar < r.n; r.bar++) {
        ctx.bar = r.bar;
        out.position.now = out.position.pending;
        r.frame = r.root;
        statements.exec(body);
      }
      const plots: PlotOut[] = [...out.plots.values()].map(({ offset, ...p }) =>
        offset === 0 ? p : { ...p, values: shift(p.values, offset) },
      );
      return {
        title: out.header.title,
        kind: out.header.kind,
        overlay: out.header.overlay,
        plots,
        hlines: [...out.hlines.values()],
        signals: out.signals,
        inputs: [...out.inputs.values()],
        steps: r.steps,
      };
    } finally {
      this.start(NO_BARS, r.options);
    }
  }

  /** Everything a run reads or writes, fresh: the bars, budgets, frames, outputs, the run's column maker. */
  private start(bars: Bars, options: RunOptions): void {
    this.r.start(bars, options);
    this.columns?.reset();
  }
}

function shift(values: Float64Array, offset: number): Float64Array {
  const out = new Float64Array(values.length).fill(NaN);
  for (let i = 0; i < values.length; i++) {
    const j = i + offset;
    if (j >= 0 && j < values.length) out[j] = values[i]!;
  }
  return out;
}
