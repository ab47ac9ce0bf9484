/**
 * Is a Sharpe ratio luck? The Probabilistic Sharpe Ratio (Bailey & López de Prado, "The Sharpe
 * Ratio Efficient Frontier", Journal of Risk 15(2), 2012), the expected maximum Sharpe of N
 * unskilled trials and the Deflated Sharpe Ratio (Bailey & López de Prado, "The Deflated Sharpe
 * Ratio: Correcting for Selection Bias, Backtest Overfitting and Non-Normality", Journal of
 * Portfolio Management 40(5), 2014), and the Minimum Track Record Length (2012). Every Sharpe
 * here is per observation (per bar), never annualised: the formulas count observations.
 */
import type { MinTrackRecord, SharpeSignificance } from '../../schemas/robustness.ts';
import { moments, normalCdf, normalQuantile } from './normal.ts';

/** γ, the Euler–Mascheroni constant. */
export const EULER_GAMMA = 0.5772156649015329;

/**
 * Below this a standard deviation of bar returns is rounding noise (identical returns summed in
 * floating point leave ~1e-19), not dispersion: the Sharpe is then 0 (see community/ranking.ts).
 */
export const SD_FLOOR = 1e-12;

/** The confidence of the minimum track record and of "significant" (the schema's 95 %). */
export const SIGNIFICANCE = 0.95;

/**
 * 1 − γ₃·SR + (γ₄ − 1)/4 · SR²: the Sharpe estimator's variance times (T − 1) for non-normal
 * returns (γ₃ skewness, γ₄ Pearson kurtosis); 1 + SR²/2 for normal returns. Never negative for
 * real moments (γ₄ ≥ γ₃² + 1 makes it ≥ (1 − γ₃·SR/2)²), floored at a tiny number so a
 * degenerate sample cannot divide by zero.
 */
export function sharpeVarianceFactor(sharpe: number, skewness: number, kurtosis: number): number {
  return Math.max(1 - skewness * sharpe + ((kurtosis - 1) / 4) * sharpe * sharpe, MIN_VARIANCE_FACTOR);
}

/** The floor of sharpeVarianceFactor: far below any real sample's factor, above 0 so nothing divides by it. */
const MIN_VARIANCE_FACTOR = 1e-12;

export interface SharpeSample {
  /** Observed Sharpe ratio per observation. */
  sharpe: number;
  /** T: observations the Sharpe was measured on. */
  observations: number;
  skewness: number;
  /** Pearson kurtosis (3 = normal). */
  kurtosis: number;
}

/**
 * PSR(SR*) = Φ((SR − SR*)·√(T − 1) / √(1 − γ₃·SR + (γ₄ − 1)/4·SR²)): the probability that the
 * true Sharpe exceeds `benchmark`, given the observed one. 0.5 when T ≤ 1 (no evidence either way).
 */
export function probabilisticSharpe(sample: SharpeSample, benchmark = 0): number {
  const { sharpe, observations, skewness, kurtosis } = sample;
  if (observations <= 1) return 0.5;
  const z = ((sharpe - benchmark) * Math.sqrt(observations - 1)) / Math.sqrt(sharpeVarianceFactor(sharpe, skewness, kurtosis));
  return normalCdf(z);
}

/**
 * SR₀ = √V · ((1 − γ)·Φ⁻¹(1 − 1/N) + γ·Φ⁻¹(1 − 1/(N·e))): the Sharpe the best of N independent
 * unskilled trials shows by luck, V being the variance of the trials' Sharpes (DSR paper, eq. 2,
 * the expected maximum of N normal draws). 0 for N = 1: one trial selects nothing.
 */
export function expectedMaxSharpe(trials: number, variance: number): number {
  if (!(Number.isInteger(trials) && trials >= 1)) throw new RangeError(`expectedMaxSharpe: trials must be an integer ≥ 1, got ${trials}`);
  if (!(variance >= 0)) throw new RangeError(`expectedMaxSharpe: variance must be ≥ 0, got ${variance}`);
  if (trials === 1) return 0;
  return (
    Math.sqrt(variance) * ((1 - EULER_GAMMA) * normalQuantile(1 - 1 / trials) + EULER_GAMMA * normalQuantile(1 - 1 / (trials * Math.E)))
  );
}

/**
 * DSR = PSR(SR₀): the probability that the true Sharpe exceeds what the best of `trials`
 * unskilled variants would show. `trialSharpeVariance` is the variance of the trials' Sharpes
 * (per observation); unknown (undefined), it is taken as the estimator variance of this Sharpe,
 * (1 − γ₃·SR + (γ₄ − 1)/4·SR²)/(T − 1) — the spread of Sharpes that luck alone gives strategies
 * like this one over T observations, i.e. the trials are assumed unskilled and alike.
 */
export function deflatedSharpe(
  sample: SharpeSample,
  trials: number,
  trialSharpeVariance?: number,
): { expectedMaxSharpe: number; dsr: number; variance: number } {
  const { sharpe, observations, skewness, kurtosis } = sample;
  const variance = trialSharpeVariance ?? (observations > 1 ? sharpeVarianceFactor(sharpe, skewness, kurtosis) / (observations - 1) : 0);
  const sr0 = expectedMaxSharpe(trials, variance);
  return { expectedMaxSharpe: sr0, dsr: probabilisticSharpe(sample, sr0), variance };
}

/**
 * MinTRL = 1 + (1 − γ₃·SR + (γ₄ − 1)/4·SR²)·(Φ⁻¹(confidence)/(SR − SR*))²: the observations
 * after which a Sharpe this high would be significant against `benchmark` at `confidence`
 * (2012 paper, eq. 11). null when SR ≤ SR*: no track record is long enough.
 */
export function minTrackRecordLength(
  sample: Pick<SharpeSample, 'sharpe' | 'skewness' | 'kurtosis'>,
  benchmark = 0,
  confidence = SIGNIFICANCE,
): number | null {
  const { sharpe, skewness, kurtosis } = sample;
  if (!(sharpe > benchmark)) return null;
  const z = normalQuantile(confidence);
  return 1 + sharpeVarianceFactor(sharpe, skewness, kurtosis) * (z / (sharpe - benchmark)) ** 2;
}

/**
 * The schema's MinTrackRecord: MinTRL against a Sharpe of 0 at 95 %, in bars and in calendar days
 * at `barsPerDay` (see report.ts barsPerDay); both null when the Sharpe is ≤ 0.
 */
export function minTrackRecord(sample: Pick<SharpeSample, 'sharpe' | 'skewness' | 'kurtosis'>, barsPerDay: number): MinTrackRecord {
  if (!(barsPerDay > 0)) throw new RangeError(`minTrackRecord: barsPerDay must be > 0, got ${barsPerDay}`);
  const bars = minTrackRecordLength(sample);
  return { bars, days: bars === null ? null : bars / barsPerDay };
}

/** Sharpe per observation of a return series (mean / sample sd); 0 when the sd is below SD_FLOOR. */
export function sharpeOf(returns: ArrayLike<number>): SharpeSample & { mean: number; sd: number } {
  const m = moments(returns);
  const sharpe = m.sd >= SD_FLOOR ? m.mean / m.sd : 0;
  return { sharpe, observations: m.n, skewness: m.skewness, kurtosis: m.kurtosis, mean: m.mean, sd: m.sd };
}

export interface SignificanceOptions {
  /** N: variants tried (≥ 1). */
  trials: number;
  /** Bars per year of the timeframe: annualises the Sharpe for display only. */
  barsPerYear: number;
  /** Variance of the trials' Sharpes per bar, when the trials are known (an optimisation); see deflatedSharpe. */
  trialSharpeVariance?: number | undefined;
}

/** The schema's SharpeSignificance of per-bar returns (see schemas/robustness.ts). */
export function sharpeSignificance(barReturns: ArrayLike<number>, options: SignificanceOptions): SharpeSignificance {
  const { trials, barsPerYear, trialSharpeVariance } = options;
  if (!(barsPerYear > 0)) throw new RangeError(`sharpeSignificance: barsPerYear must be > 0, got ${barsPerYear}`);
  const sample = sharpeOf(barReturns);
  const { expectedMaxSharpe: sr0, dsr } = deflatedSharpe(sample, trials, trialSharpeVariance);
  return {
    returns: 'bar',
    observations: sample.observations,
    sharpe: sample.sharpe,
    sharpe_annualised: sample.sharpe * Math.sqrt(barsPerYear),
    skewness: sample.skewness,
    kurtosis: sample.kurtosis,
    psr: probabilisticSharpe(sample),
    trials,
    expected_max_sharpe: sr0,
    dsr,
    p_value: 1 - dsr,
  };
}
