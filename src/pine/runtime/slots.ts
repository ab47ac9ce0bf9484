import { NA, type Value } from './values.ts';

/**
 * A variable's value on every bar. Numbers live in a Float64Array (no boxed number per bar for
 * the collector to promote and trace); other values beside it.
 */
export class Slot {
  private readonly nums: Float64Array;
  /** Per bar: 0 not written, 1 a number, 2 another value. */
  private readonly kinds: Uint8Array;
  private others: Value[] | null = null;
  inited = false;
  constructor(
    private readonly n: number,
    readonly isVar: boolean,
    nums = new Float64Array(n),
  ) {
    this.nums = nums;
    this.kinds = new Uint8Array(n);
  }

  /**
   * A variable whose value on every bar is known (a column: see columns/run.ts), never written after.
   * A bool series holds booleans, na as NaN. The numbers are the column's own array, not a copy.
   */
  /** A variable with the same value on every bar (a constant, a typed input), never written after. */
  static steady(n: number, v: Value): Slot {
    if (typeof v === 'number') return Slot.of(new Float64Array(n).fill(v), false);
    const slot = new Slot(n, false);
    slot.others = new Array<Value>(n).fill(v);
    slot.kinds.fill(2);
    return slot;
  }

  static of(values: Float64Array, bool: boolean): Slot {
    const slot = new Slot(values.length, false, values as Float64Array<ArrayBuffer>);
    if (!bool) slot.kinds.fill(1);
    else {
      const others = (slot.others = new Array<Value>(values.length));
      for (let i = 0; i < values.length; i++) {
        const x = values[i]!;
        slot.kinds[i] = x === x ? 2 : 1;
        if (x === x) others[i] = x === 1;
      }
    }
    return slot;
  }
  put(j: number, v: Value): void {
    if (typeof v === 'number') {
      this.nums[j] = v;
      this.kinds[j] = 1;
    } else {
      (this.others ??= new Array<Value>(this.n))[j] = v;
      this.kinds[j] = 2;
    }
  }
  has(j: number): boolean {
    return this.kinds[j] !== 0;
  }
  get(j: number): Value {
    if (j < 0) return NA;
    let k = j;
    // On bars where its declaration did not run (a `var`, or a variable of a branch or a function
    // call skipped that bar) a variable's history repeats its last value: TradingView advances a
    // series once per bar, not per run of its block, so x[1] after a skipped bar is the last value seen.
    while (k > 0 && this.kinds[k] === 0) k--;
    const kind = this.kinds[k];
    return kind === 1 ? this.nums[k]! : kind === 2 ? this.others![k]! : NA;
  }
}

/** Per call site of a user function (the script itself is the root): variables and built-in state. */
export class Frame {
  /** Declaration slots, built-in states and the frames of user calls made here, by node id (ids are small and dense: arrays, not maps). */
  declSlots: (Slot | undefined)[] = [];
  states: unknown[] = [];
  children: (Frame | undefined)[] = [];
  /** Parameters, tuple names and loop variables, by a number the interpreter gives each when it compiles them. */
  locals: (Slot | undefined)[] = [];
}
