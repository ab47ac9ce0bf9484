import { answer, ask, type Bus, type TopicSubscription } from '../bus/index.ts';
import type { Logger } from '../log.ts';
import type { SeriesColumns } from '../store/index.ts';
import { Requests, type BarPageRequest } from '../../schemas/messages.ts';
import type { Symbol, Timeframe } from '../../schemas/common.ts';
import type { BarCache } from './bar-cache.ts';

/** Bars per reply: 8,000 × 9 float64 columns = 576 KB, under NATS's default 1 MB payload. */
export const PAGE_BARS = 8000;
const COLS = 9;

/**
 * Serves pages of recent bars over NATS (`market.bars.page`) from the process that holds the
 * store, so roles on other machines (`signalforge actors`) need no database of their own.
 * Reply: float64 little-endian, column-major [ts, open, high, low, close, volume, spread, ticks,
 * source] × n bars, oldest first: the `limit` bars before `beforeMs`.
 */
export function serveBarPages(bus: Pick<Bus, 'nc'>, cache: Pick<BarCache, 'get'>, log: Logger): TopicSubscription {
  const page = async ({ symbol, timeframe, beforeMs, limit }: BarPageRequest): Promise<Uint8Array> => {
    const series = await cache.get(symbol, timeframe);
    const c = series.columns();
    const to = beforeMs === undefined ? series.length : series.lowerBound(beforeMs);
    const from = Math.max(0, to - Math.min(limit, PAGE_BARS));
    const n = to - from;
    const out = new Float64Array(n * COLS);
    const columns = [c.ts, c.open, c.high, c.low, c.close, c.volume, c.spread, c.ticks, c.source];
    columns.forEach((col, k) => {
      for (let i = 0; i < n; i++) out[k * n + i] = col[from + i]!;
    });
    return new Uint8Array(out.buffer);
  };
  // A request that does not parse gets an empty page (the asker stops there).
  return answer(bus, Requests.barPage, page, { log, invalid: () => new Uint8Array(0) });
}

/**
 * A bar loader for BarCache that asks the serving process over NATS: the latest `maxBars` bars
 * of a series, in pages. What a model actor needs (its warm window, the bars it missed).
 */
export class NatsBarLoader {
  constructor(
    private readonly bus: Pick<Bus, 'nc'>,
    private readonly maxBars = 20_000,
  ) {}

  async load(symbol: Symbol, timeframe: Timeframe): Promise<SeriesColumns> {
    const pages: Float64Array[] = [];
    let beforeMs: number | undefined;
    let total = 0;
    while (total < this.maxBars) {
      const limit = Math.min(PAGE_BARS, this.maxBars - total);
      const data = await ask(
        this.bus,
        Requests.barPage,
        { symbol, timeframe, limit, ...(beforeMs === undefined ? {} : { beforeMs }) },
        10_000,
      );
      const page = new Float64Array(data.byteLength / 8);
      new Uint8Array(page.buffer).set(data);
      const n = page.length / COLS;
      if (n === 0) break;
      pages.unshift(page);
      total += n;
      beforeMs = page[0]!;
      if (n < limit) break;
    }
    const cols: SeriesColumns = {
      ts: new Float64Array(total),
      open: new Float64Array(total),
      high: new Float64Array(total),
      low: new Float64Array(total),
      close: new Float64Array(total),
      volume: new Float64Array(total),
      spread: new Float64Array(total),
      ticks: new Uint32Array(total),
      source: new Uint8Array(total),
    };
    const targets = [cols.ts, cols.open, cols.high, cols.low, cols.close, cols.volume, cols.spread, cols.ticks, cols.source];
    let at = 0;
    for (const page of pages) {
      const n = page.length / COLS;
      targets.forEach((col, k) => col.set(page.subarray(k * n, (k + 1) * n), at));
      at += n;
    }
    return cols;
  }
}
