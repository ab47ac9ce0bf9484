import { subscribe, type SubscribeVia, type TopicSubscription } from '../bus/index.ts';
import type { Logger } from '../log.ts';
import type { BarsRepo } from '../store/index.ts';
import type { Symbol, Timeframe } from '../../schemas/common.ts';
import type { BarMessage } from '../../schemas/market.ts';
import { Topics } from '../../schemas/messages.ts';
import { BarSeries } from './bar-series.ts';

/**
 * Bars served from memory. A series is loaded from ClickHouse the first time it is asked for,
 * then kept current from the `bars.>` events every bar builder publishes after storing a bar;
 * a bulk rebuild (`market.bars-rebuilt`) drops the symbol's series so the next read reloads it.
 * Any number of processes can hold one: they all follow the same subjects.
 */
export class BarCache {
  private readonly series = new Map<string, BarSeries>();
  private readonly loading = new Map<string, { promise: Promise<BarSeries>; early: BarMessage[] }>();
  private readonly subscriptions: TopicSubscription[] = [];
  private readonly listeners = new Set<(bar: BarMessage) => void>();

  constructor(
    private readonly repo: Pick<BarsRepo, 'load'>,
    private readonly bus: SubscribeVia,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.subscriptions.push(
      subscribe(this.bus, Topics.bars, Topics.bars.all, (bar) => this.apply(bar)),
      subscribe(this.bus, Topics.barsRebuilt, Topics.barsRebuilt.all, (rebuilt) => {
        for (const key of [...this.series.keys()]) if (key.startsWith(`${rebuilt.symbol}/`)) this.series.delete(key);
        this.log.info(rebuilt, 'bar cache dropped a rebuilt symbol');
      }),
    );
  }

  stop(): void {
    for (const s of this.subscriptions) s.unsubscribe();
  }

  private apply(bar: BarMessage): void {
    const key = `${bar.symbol}/${bar.timeframe}`;
    const series = this.series.get(key);
    if (series) series.upsert(bar);
    else this.loading.get(key)?.early.push(bar);
    for (const listener of this.listeners) listener(bar);
  }

  /**
   * Calls `listener` with each closed bar once the cache holds it (a series not loaded yet loads
   * it from the store, where it was written before it was published). Returns the unsubscribe.
   */
  onBar(listener: (bar: BarMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The series, loading it on first use (concurrent callers share one load). */
  async get(symbol: Symbol, timeframe: Timeframe): Promise<BarSeries> {
    const key = `${symbol}/${timeframe}`;
    const ready = this.series.get(key);
    if (ready) return ready;
    const pending = this.loading.get(key);
    if (pending) return pending.promise;
    const early: BarMessage[] = [];
    const promise = this.repo
      .load(symbol, timeframe)
      .then((columns) => {
        const series = new BarSeries(columns);
        // Bars published while the load ran may or may not be in it; upsert makes both fine.
        for (const bar of early) series.upsert(bar);
        this.series.set(key, series);
        return series;
      })
      .finally(() => this.loading.delete(key));
    this.loading.set(key, { promise, early });
    return promise;
  }

  /** Bars held in memory across all series (for the bench's memory figure). */
  size(): number {
    let n = 0;
    for (const s of this.series.values()) n += s.length;
    return n;
  }
}
