import type { BarSeries } from '../market/index.ts';
import { BadRequestError } from '../errors.ts';
import type { Timeframe } from '../../schemas/common.ts';
import { MAX_TRAIN_BARS, MIN_TRAIN_BARS } from '../../schemas/training.ts';

const DAY_MS = 86_400_000;

/** The trained span when start_date is omitted: about 25,000–90,000 bars, whatever the timeframe. */
export const DEFAULT_SPAN_DAYS: Record<Timeframe, number> = { '1min': 60, '5min': 180, '15min': 365, '1h': 730 };

/** Post-cutoff bars scored after training, at most (the first ones after the cutoff). */
export const MAX_POST_CUTOFF_BARS = 20_000;

/** Bar indexes into a series: [from, fitEnd) is trained on, [fitEnd, to) is post-cutoff. */
export interface BarSpan {
  from: number;
  fitEnd: number;
  to: number;
}

export interface SpanRequest {
  start_date?: string | undefined;
  end_date?: string | undefined;
  timeframe: Timeframe;
}

const dayStart = (date: string): number => Date.parse(`${date}T00:00:00Z`);

/**
 * The bars a train request covers. end_date is inclusive (its whole UTC day); without it the
 * span ends at the latest bar. Throws 400 naming the dates when the span is unusable.
 */
export function resolveSpan(series: BarSeries, request: SpanRequest): BarSpan {
  const cols = series.columns();
  const n = cols.ts.length;
  if (n === 0) throw new BadRequestError('no bars stored for this symbol and timeframe yet; import ticks or wait for the feed');
  const endMs = request.end_date ? dayStart(request.end_date) + DAY_MS : cols.ts[n - 1]! + 1;
  const startMs = request.start_date ? dayStart(request.start_date) : endMs - DEFAULT_SPAN_DAYS[request.timeframe] * DAY_MS;
  if (startMs >= endMs) throw new BadRequestError('start_date must be before end_date');
  const from = series.lowerBound(startMs);
  const fitEnd = series.lowerBound(endMs);
  const bars = fitEnd - from;
  const first = n ? new Date(cols.ts[0]!).toISOString().slice(0, 10) : '-';
  const last = n ? new Date(cols.ts[n - 1]!).toISOString().slice(0, 10) : '-';
  if (bars < MIN_TRAIN_BARS) {
    throw new BadRequestError(
      `only ${bars} ${request.timeframe} bars between the dates (history covers ${first} to ${last}); ` +
        `training needs at least ${MIN_TRAIN_BARS}: widen the dates or choose a shorter timeframe`,
    );
  }
  if (bars > MAX_TRAIN_BARS) {
    throw new BadRequestError(
      `${bars} ${request.timeframe} bars between the dates; at most ${MAX_TRAIN_BARS}: narrow the dates or choose a longer timeframe`,
    );
  }
  return { from, fitEnd, to: Math.min(n, fitEnd + MAX_POST_CUTOFF_BARS) };
}
