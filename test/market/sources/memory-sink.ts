import type { Tick } from '../../../schemas/market.ts';
import type { TickSink } from '../../../src/market/tick-sink.ts';

/** An in-memory TickSink for tests: records batches, can fail or hold writes on demand. */
export class MemorySink implements TickSink {
  readonly batches: Tick[][] = [];
  calls = 0;
  /** Ticks accepted so far. */
  count = 0;
  /** Reject this many upcoming writes. */
  failNext = 0;
  private gate: Promise<void> | null = null;
  private open: (() => void) | null = null;
  private waiters: Array<{ count: number; resolve: () => void }> = [];

  get ticks(): Tick[] {
    return this.batches.flat();
  }

  ticksOf(symbol: string): Tick[] {
    return this.ticks.filter((t) => t.symbol === symbol);
  }

  /** Makes writes wait until release(). */
  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open?.();
    this.gate = null;
  }

  /** Resolves once at least `count` ticks were accepted. */
  waitFor(count: number, timeoutMs = 10_000): Promise<void> {
    if (this.count >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`sink has ${this.count} of ${count} ticks`)), timeoutMs);
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  async write(ticks: readonly Tick[]): Promise<void> {
    this.calls++;
    if (this.gate) await this.gate;
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('sink unavailable');
    }
    this.batches.push([...ticks]);
    this.count += ticks.length;
    if (this.waiters.length > 0) this.waiters = this.waiters.filter((w) => (this.count >= w.count ? (w.resolve(), false) : true));
  }
}
