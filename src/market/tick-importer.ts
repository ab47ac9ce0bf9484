import { answer, publish, type PublishVia, type SubscribeVia, type TopicSubscription } from '../bus/index.ts';
import { stat } from 'node:fs/promises';
import { UnprocessableError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { BarsRepo, TicksRepo } from '../store/index.ts';
import type { ImportRequest, ImportResult } from '../../schemas/market.ts';
import { Topics, Requests } from '../../schemas/messages.ts';
import { importTickFile } from './import/index.ts';

export interface TickImporterDeps {
  ticks: Pick<TicksRepo, 'insert' | 'compact' | 'count'>;
  bars: Pick<BarsRepo, 'rebuildFromTicks'>;
  bus: (PublishVia & SubscribeVia) | null;
  log: Logger;
}

/**
 * File import, the bulk path: ticks are parsed and stored as they stream in; then the touched
 * partitions are compacted (a re-imported file leaves no duplicates), the bars of the imported
 * span are rebuilt from all stored ticks inside ClickHouse, and every bar cache is told to reload.
 */
export class TickImporter {
  private subscription: TopicSubscription | null = null;

  constructor(private readonly deps: TickImporterDeps) {}

  async import(request: ImportRequest): Promise<ImportResult> {
    const { symbol, format, files } = request;
    // All files are checked first: a missing third file must not leave two imported with no bars.
    const unreadable: string[] = [];
    for (const path of files) {
      const ok = await stat(path).then(
        (s) => s.isFile(),
        () => false,
      );
      if (!ok) unreadable.push(path);
    }
    if (unreadable.length > 0) {
      throw new UnprocessableError(unreadable.map((path) => `${path}: no such file: check the path`).join('; '));
    }
    const reports: ImportResult['files'] = [];
    let fromMs = Number.POSITIVE_INFINITY;
    let toMs = Number.NEGATIVE_INFINITY;
    for (const path of files) {
      const report = await importTickFile({
        path,
        format,
        symbol,
        sink: { write: (batch) => this.deps.ticks.insert(batch, 'import') },
        batchSize: 50_000,
      });
      reports.push(report);
      if (report.firstTs !== null && report.lastTs !== null) {
        fromMs = Math.min(fromMs, report.firstTs);
        toMs = Math.max(toMs, report.lastTs);
      }
      this.deps.log.info({ file: path, symbol, imported: report.imported, bad: report.badCount }, 'tick file imported');
    }
    if (!Number.isFinite(fromMs)) return { symbol, files: reports, rebuilt: null, ticksInSpan: 0 };
    await this.deps.ticks.compact(fromMs, toMs);
    const rebuilt = await this.deps.bars.rebuildFromTicks(symbol, fromMs, toMs);
    if (this.deps.bus) await publish(this.deps.bus, Topics.barsRebuilt, [], { symbol, ...rebuilt });
    const ticksInSpan = await this.deps.ticks.count(symbol, rebuilt.fromMs, rebuilt.toMs);
    return { symbol, files: reports, rebuilt, ticksInSpan };
  }

  /** Answers `market.import` requests from `signalforge import-ticks`, one import at a time. */
  serve(): void {
    if (!this.deps.bus) return;
    let queue: Promise<unknown> = Promise.resolve();
    const importOne = (request: ImportRequest): Promise<string> => {
      const done = queue.then(async () => {
        let result: ImportResult | { error: string };
        try {
          result = await this.import(request);
        } catch (err) {
          result = { error: (err as Error).message };
        }
        return JSON.stringify(result);
      });
      queue = done;
      return done;
    };
    this.subscription = answer(this.deps.bus, Requests.marketImport, importOne, {
      log: this.deps.log,
      invalid: (reason) => JSON.stringify({ error: `invalid import request: ${reason}` }),
    });
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }
}
