import type { FeatureSources } from '../../src/scoring/index.ts';

/**
 * Which entries a closed bar advances, so the tracker's cost per bar stays bounded however many
 * different programs are shared. A program with a warm session costs a few ms per bar: its entries
 * advance on every bar. A program without one pays a pool job (a fresh sandboxed fork, ~20 ms of
 * CPU) per call, whatever the number of bars in it: such programs take turns — each on every K-th
 * bar of its timeframe, K = ⌈cold programs / maxPoolJobsPerBar⌉, staggered by the program's hash —
 * and their entries catch up the K bars in one call, exactly as after a restart (the same trades).
 * Their records run up to K − 1 bars behind. `maxPoolJobsPerBar` 0: every program on every bar.
 */
export class Cadence {
  /** K for the bar being handled, computed once per bar time. */
  private cached = { barTs: Number.NaN, every: 1 };

  constructor(
    private readonly features: Pick<FeatureSources, 'coldPrograms'>,
    private readonly maxPoolJobsPerBar: number,
  ) {}

  /** K: on how many bars the programs without a warm session take turns now. */
  every(barTs: number): number {
    if (this.cached.barTs !== barTs) {
      const every = this.maxPoolJobsPerBar > 0 ? Math.max(1, Math.ceil(this.features.coldPrograms / this.maxPoolJobsPerBar)) : 1;
      this.cached = { barTs, every };
    }
    return this.cached.every;
  }

  /** Whether the bar opening at `barTs` (of a timeframe of `timeframeMs`) advances an entry of this program. */
  due(source: { program: string; warm: boolean }, barTs: number, timeframeMs: number): boolean {
    if (source.warm) return true;
    const every = this.every(barTs);
    return every === 1 || (Math.floor(barTs / timeframeMs) + slot(source.program)) % every === 0;
  }
}

/** A program's stagger: its key ends with the code's sha256 in hex. */
const slot = (program: string): number => Number.parseInt(program.slice(-8), 16) || 0;
