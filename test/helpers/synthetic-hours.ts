/**
 * EURUSD-like 1-hour bars over the FX week (Sunday 22:00 to Friday 22:00 UTC, from Sunday
 * 2024-01-07), each from STEPS Gaussian price steps of SIGMA per hour (its high and low the path's
 * extremes): the known-truth markets of the optimiser's and meta-labelling's tests. What makes a
 * market known is its drift, which each test plants: `drift(t, lastMove)` before a bar (t its open
 * time, lastMove the previous bar's close − open), `after(t)` once it is made.
 */
import { seededRandom } from '../../src/lib/seeded-random.ts';
import type { SeriesColumns } from '../../src/store/index.ts';

export const HOUR = 3_600_000;
/** Standard deviation of a 1-hour EURUSD move (price units): 11 pips. */
export const SIGMA = 0.0011;
/** Price steps per bar, from which each bar's high and low are taken. */
export const STEPS = 12;

export interface SyntheticHours {
  /** The seededRandom seed. */
  seed: number;
  count: number;
  /** The bar's drift in price units. */
  drift: (t: number, lastMove: number) => number;
  /** The bar's spread (after its steps, from the same random stream). */
  spread: (random: () => number) => number;
  after?: (t: number) => void;
}

/** Whether the FX market is open at ms (closed Friday 22:00 to Sunday 22:00 UTC). */
const fxOpen = (ms: number) => {
  const d = new Date(ms);
  const day = d.getUTCDay();
  const hour = d.getUTCHours();
  return !(day === 6 || (day === 5 && hour >= 22) || (day === 0 && hour < 22));
};

export function syntheticHours({ seed, count, drift, spread, after }: SyntheticHours): SeriesColumns {
  const random = seededRandom(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const cols: SeriesColumns = {
    ts: new Float64Array(count),
    open: new Float64Array(count),
    high: new Float64Array(count),
    low: new Float64Array(count),
    close: new Float64Array(count),
    spread: new Float64Array(count),
    volume: new Float64Array(count).fill(1),
    ticks: new Uint32Array(count).fill(1),
    source: new Uint8Array(count),
  };
  let t = Date.UTC(2024, 0, 7, 22); // a Sunday, 22:00: the week opens
  let price = 1.1;
  let last = 0;
  for (let i = 0; i < count; i++) {
    while (!fxOpen(t)) t += HOUR;
    const o = price;
    let hi = o;
    let lo = o;
    const d = drift(t, last);
    for (let s = 0; s < STEPS; s++) {
      price += d / STEPS + (SIGMA / Math.sqrt(STEPS)) * gauss();
      hi = Math.max(hi, price);
      lo = Math.min(lo, price);
    }
    last = price - o;
    after?.(t);
    cols.ts[i] = t;
    cols.open[i] = o;
    cols.high[i] = hi;
    cols.low[i] = lo;
    cols.close[i] = price;
    cols.spread[i] = spread(random);
    t += HOUR;
  }
  return cols;
}
