import type { GeneratorState, Tick } from '../../../schemas/market.ts';
import type { Instrument } from '../../lib/instruments.ts';
import { Prng, seedState } from './prng.ts';
import { activity, isOpen, nextOpen, spreadFactor } from './seasonality.ts';

const YEAR_MS = 365.25 * 86_400_000;
const HOUR_MS = 3_600_000;
/** Ticks per minute at activity 1 (≈ 11 a minute over a weekday, ≈ 40 in the busiest hour). */
const TICKS_PER_MIN = 12;
/** FX variance accrues only while the market is open (~260 days a year). */
const OPEN_DAYS_PER_YEAR = 260;

export type { GeneratorState };

export function initialState(instrument: Instrument, startMs: number, seed: string): GeneratorState {
  const rng = new Prng(seedState(`${seed}:${instrument.symbol}`));
  const logPrice = Math.log(instrument.synthetic.price * (1 + 0.04 * (rng.uniform() - 0.5)));
  return {
    ts: startMs,
    nextTs: null,
    lastTickTs: -1,
    seq: 0,
    pendingGap: 0,
    logPrice,
    lnVol: 0,
    regime: 0,
    drift: 0,
    anchor: logPrice,
    regimeCheckedAt: Math.floor(startMs / HOUR_MS) * HOUR_MS,
    rng: rng.state(),
  };
}

/**
 * A seeded, deterministic tick process for one instrument: Poisson arrivals whose rate follows
 * the trading sessions; log-returns with fat tails (a normal scale mixture), volatility that
 * clusters (an Ornstein-Uhlenbeck log-volatility with occasional news shocks) and follows the
 * sessions; regimes that switch between ranges (mean reversion to an anchor) and trends of a
 * few days; weekend closes with a gap at the reopen; a spread that widens in thin markets and
 * storms. Prices are quantised to the instrument's quote digits.
 */
export class SyntheticTickGenerator {
  private readonly rng: Prng;
  private readonly state: GeneratorState;
  private readonly sigmaOpen: number;
  private readonly scale: number;

  constructor(
    private readonly instrument: Instrument,
    state: GeneratorState,
  ) {
    this.state = { ...state };
    this.rng = new Prng(state.rng);
    const openFraction = instrument.weekends ? 1 : OPEN_DAYS_PER_YEAR / 365.25;
    // 0.8: clustering, news shocks and trends add their own variance; this lands the realised
    // annual volatility near the instrument's figure.
    this.sigmaOpen = (0.8 * instrument.synthetic.annualVol) / Math.sqrt(openFraction);
    this.scale = 10 ** instrument.digits;
  }

  snapshot(): GeneratorState {
    return { ...this.state, rng: this.rng.state() };
  }

  /**
   * Generates every tick after the last one up to `untilMs` (inclusive). The process visits
   * every hour boundary (arrivals are memoryless, so redrawing there changes nothing in law),
   * and `onHour` receives a snapshot at each: a checkpoint from which exactly the same ticks
   * follow. Closed hours are skipped, and the weekend's gap lands on the first tick after.
   */
  generate(untilMs: number, emit: (tick: Tick) => void, onHour?: (hourStart: number, state: GeneratorState) => void): void {
    const s = this.state;
    const rng = this.rng;
    const inst = this.instrument;
    const pointsPerPip = inst.pipSize * this.scale;
    // Session figures change only on the hour: computed once per hour, not per tick.
    let cachedHour = -1;
    let season = 1;
    let rate = 0;
    let spreadBase = 0;
    const hourFigures = (ts: number) => {
      const hour = Math.floor(ts / HOUR_MS);
      if (hour === cachedHour) return;
      cachedHour = hour;
      season = activity(inst, ts);
      rate = (TICKS_PER_MIN / 60_000) * season;
      spreadBase = inst.synthetic.spreadPips * pointsPerPip * spreadFactor(inst, ts);
    };
    while (true) {
      hourFigures(s.ts);
      s.nextTs ??= s.ts + rng.exponential(rate);
      const boundary = (Math.floor(s.ts / HOUR_MS) + 1) * HOUR_MS;
      if (s.nextTs >= boundary) {
        if (boundary > untilMs) return;
        s.ts = boundary;
        s.nextTs = null;
        if (!isOpen(inst, boundary)) {
          // A weekend's news arrives at once: the reopen gaps by about half a day's move.
          s.pendingGap += this.sigmaOpen * Math.sqrt(0.5 / 365.25) * rng.normal();
          s.ts = nextOpen(inst, boundary);
        }
        this.advanceHours(s.ts);
        if (onHour) onHour(s.ts, this.snapshot());
        continue;
      }
      const ts = Math.floor(s.nextTs);
      if (ts > untilMs) return;
      const dtMs = Math.max(0.001, s.nextTs - s.ts);
      s.ts = s.nextTs;
      s.nextTs = null;
      const dtHours = dtMs / HOUR_MS;
      // Log-volatility: mean reversion (half-life ~14 h) plus diffusion.
      s.lnVol += -0.05 * s.lnVol * dtHours + 0.12 * Math.sqrt(dtHours) * rng.normal();
      const sigma = this.sigmaOpen * Math.exp(s.lnVol) * Math.sqrt(season);
      const dtYears = dtMs / YEAR_MS;
      const pull = s.regime === 0 ? -8 * (s.logPrice - s.anchor) : s.regime * s.drift;
      // Fat tails: 10% of moves come from a wider normal, with unit variance overall.
      const shock = rng.uniform() < 0.1 ? 2 : 0.8165;
      s.logPrice += pull * dtYears + sigma * Math.sqrt(dtYears) * shock * rng.normal() + s.pendingGap;
      s.pendingGap = 0;

      const bidPoints = Math.round(Math.exp(s.logPrice) * this.scale);
      // Spread in quote points (0.1 pip on FX, a cent on BTCUSD), wider when thin or stormy.
      const widen = (1 + 0.3 * Math.max(0, s.lnVol)) * (0.85 + 0.3 * rng.uniform());
      const spreadPoints = Math.max(1, Math.round(spreadBase * widen));
      s.seq = ts === s.lastTickTs ? s.seq + 1 : 0;
      s.lastTickTs = ts;
      emit({ symbol: inst.symbol, ts, seq: s.seq, bid: bidPoints / this.scale, ask: (bidPoints + spreadPoints) / this.scale, volume: 0 });
    }
  }

  /** Hourly: maybe switch regime, maybe a news shock to volatility. */
  private advanceHours(until: number): void {
    const s = this.state;
    const rng = this.rng;
    const hour = Math.floor(until / HOUR_MS) * HOUR_MS;
    for (let h = s.regimeCheckedAt + HOUR_MS; h <= hour; h += HOUR_MS) {
      if (!isOpen(this.instrument, h)) continue;
      if (s.regime === 0) {
        // Ranges last ~4 days on average, then a trend starts in either direction.
        if (rng.uniform() < 1 / 96) {
          s.regime = rng.uniform() < 0.5 ? 1 : -1;
          s.drift = this.instrument.synthetic.annualVol * (6 + 10 * rng.uniform());
        }
      } else if (rng.uniform() < 1 / 48) {
        // Trends last ~2 days; the range that follows centres where the trend ended.
        s.regime = 0;
        s.anchor = s.logPrice;
      }
      if (s.regime === 0) s.anchor += 0.02 * (s.logPrice - s.anchor);
      if (rng.uniform() < 0.004 * activity(this.instrument, h)) s.lnVol += 0.8 + 0.6 * rng.uniform();
    }
    s.regimeCheckedAt = hour;
  }
}
