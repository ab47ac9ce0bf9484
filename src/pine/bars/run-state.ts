/**
 * One run's state, apart from the closures (which hold nothing of a run): the bars, the bar being
 * run, frames, outputs and budgets. Steps, loop iterations, array sizes and the wall clock are
 * budgeted; going over is a PineError naming the line:column.
 */
import { pineError, type PineError, type Pos } from '../syntax/errors.ts';
import { barField } from '../builtins/bar-values.ts';
import type { Binding } from '../runtime/bindings.ts';
import type { Ctx } from '../runtime/ctx.ts';
import { Frame, Slot } from '../runtime/slots.ts';
import { NA, type Bars, type RunLimits, type Value } from '../runtime/values.ts';
import type { Compiled } from './closures.ts';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export interface RunOptions {
  limits: RunLimits;
  /** Timeframe label and minimum tick for timeframe.period and syminfo.mintick. */
  timeframe: string;
  symbol: string;
  mintick: number;
}

export const NO_BARS: Bars = {
  ts: new Float64Array(0),
  open: new Float64Array(0),
  high: new Float64Array(0),
  low: new Float64Array(0),
  close: new Float64Array(0),
  volume: new Float64Array(0),
};
const emptyOut = (): Ctx['out'] => ({
  header: { title: '', kind: 'none', overlay: false },
  plots: new Map(),
  hlines: new Map(),
  signals: [],
  inputs: new Map(),
  position: { now: 0, pending: 0 },
});

/** What a run reads and writes, set fresh by start() and dropped when it ends. */
export class RunState {
  n = 0;
  bar = 0;
  steps = 0;
  arrayElements = 0;
  /** Numbers each run: a `once` call site remembers the run its value belongs to. */
  runNo = 0;
  root = new Frame();
  frame = this.root;
  /** The built-in call being made: its node id keys its state, its position locates its errors. */
  siteId = 0;
  sitePos: Pos = { line: 1, col: 1 };
  /** The value of the last statement run (what an `if`/`switch`/function body gives back). */
  last: Value = NA;
  depth = 0;
  maxSteps = 0;
  deadline = 0;
  private clockIn = 4096;
  maxLoops = 0;
  options: RunOptions = {
    limits: { maxSteps: 0, deadlineMs: 0, maxLoopIterations: 0, maxArraySize: 0 },
    timeframe: '',
    symbol: '',
    mintick: 0,
  };
  /** This run's bar-field column per name node that reads one (by id), filled on first read. */
  nameColumns: (Float64Array | undefined)[] = [];
  /** This run's bar fields as whole columns, computed once on first use (hl2, hour… included). */
  private readonly columns = new Map<string, Float64Array>();
  /**
   * What the built-ins see, one object for every run: plain fields the run sets (the bar as it
   * advances, the outputs, the name being declared), read by the built-ins as cheaply as locals.
   */
  readonly ctx: Mutable<Ctx>;

  constructor() {
    const self = this;
    this.ctx = {
      bar: 0,
      n: 0,
      bars: NO_BARS,
      limits: this.options.limits,
      timeframe: '',
      mintick: 0,
      out: emptyOut(),
      target: null,
      state<T>(init: () => T): T {
        const states = self.frame.states;
        let s = states[self.siteId] as T | undefined;
        if (s === undefined) states[self.siteId] = s = init();
        return s;
      },
      fail(message: string, construct?: string): never {
        throw pineError(self.sitePos, message, construct);
      },
      grow(elements: number) {
        self.arrayElements += elements;
        const max = self.options.limits.maxArraySize * 10;
        if (self.arrayElements > max) throw pineError(self.sitePos, `arrays hold more than ${max} elements in all`);
      },
    };
  }

  /** Everything a run reads or writes, fresh: the bars, budgets, frames, outputs. */
  start(bars: Bars, options: RunOptions): void {
    this.runNo++;
    this.options = options;
    this.n = bars.close.length;
    this.maxSteps = options.limits.maxSteps;
    this.deadline = options.limits.deadlineMs;
    this.clockIn = 4096;
    this.maxLoops = options.limits.maxLoopIterations;
    this.bar = 0;
    this.steps = 0;
    this.arrayElements = 0;
    this.root = this.frame = new Frame();
    this.siteId = 0;
    this.sitePos = { line: 1, col: 1 };
    this.last = NA;
    this.depth = 0;
    this.nameColumns = [];
    this.columns.clear();
    const ctx = this.ctx;
    ctx.bar = 0;
    ctx.n = this.n;
    ctx.bars = bars;
    ctx.limits = options.limits;
    ctx.timeframe = options.timeframe;
    ctx.mintick = options.mintick;
    ctx.out = emptyOut();
    ctx.target = null;
  }

  /**
   * Counts a step and checks the budgets. A leaf (a literal, a name read) only counts its step
   * (`this.steps++`): it cannot loop, and the statement or operation around it checks right after.
   */
  tick(pos: Pos): void {
    if (++this.steps > this.maxSteps) throw this.overBudget(pos);
    // The clock every 4096 checked steps: counted down, since leaves' steps come in between.
    if (--this.clockIn === 0) {
      this.clockIn = 4096;
      if (performance.now() > this.deadline)
        throw pineError(pos, 'the script ran past its time limit (an endless or very long loop?); simplify it or shorten loops');
    }
  }
  overBudget(pos: Pos): PineError {
    return pineError(pos, `the script ran more than ${this.maxSteps} steps (an endless or very long loop?); simplify it or shorten loops`);
  }
  /** Counts the steps a column's closures would have counted on this bar, and checks the budget. */
  countSteps(steps: number, pos: Pos): void {
    this.steps += steps;
    if (this.steps > this.maxSteps) throw this.overBudget(pos);
  }
  overCap(s: Pos, cap: number): PineError {
    return pineError(s, `a loop ran more than ${cap} iterations on one bar; shorten it`);
  }
  /** A declaration's variable in the current frame, by its node id. */
  declSlot(id: number, isVar: boolean): Slot {
    return (this.frame.declSlots[id] ??= new Slot(this.n, isVar));
  }
  /** A parameter's, tuple name's or loop variable's variable in the current frame, by its local number. */
  localSlot(k: number): Slot {
    return (this.frame.locals[k] ??= new Slot(this.n, false));
  }
  /** A bound variable's slot; undefined for a top-level one a function reads before its declaration has run on this bar. */
  slotOf(b: Binding): Slot | undefined {
    const frame = b.global ? this.root : this.frame;
    const slot = b.kind === 'decl' ? frame.declSlots[b.index] : frame.locals[b.index];
    return b.global && slot && !slot.has(this.bar) ? undefined : slot;
  }
  /** A bar field's values on every bar (the same numbers barField gives bar by bar). */
  column(name: string): Float64Array {
    let col = this.columns.get(name);
    if (!col) {
      col = new Float64Array(this.n);
      for (let j = 0; j < this.n; j++) col[j] = barField(this.ctx.bars, name, j) as number;
      this.columns.set(name, col);
    }
    return col;
  }
  /** Evaluates a declaration's value with its name known (input.* calls take it as their title). */
  assigned(init: Compiled, name: string): Value {
    const before = this.ctx.target;
    this.ctx.target = name;
    try {
      return init();
    } finally {
      this.ctx.target = before;
    }
  }
}
