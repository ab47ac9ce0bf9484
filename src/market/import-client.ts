import { resolve } from 'node:path';
import { ask, connectBus } from '../bus/index.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { readRunFile } from '../run-file.ts';
import { BarsRepo, openClickHouse, TicksRepo } from '../store/index.ts';
import { ImportResult, type ImportRequest } from '../../schemas/market.ts';
import { Requests } from '../../schemas/messages.ts';
import { UnprocessableError } from '../errors.ts';
import { TickImporter } from './tick-importer.ts';

const IMPORT_TIMEOUT_MS = 6 * 3_600_000;

/**
 * Runs an import for `signalforge import-ticks`. The process that owns the store does the work:
 * a service running on this DATA_DIR (or on NATS_URL) is asked over NATS, so its caches and
 * live actors learn of the new bars; with none running, this process opens the store itself.
 */
export async function runImport(
  request: ImportRequest,
  config: Pick<Config, 'DATA_DIR' | 'NATS_URL' | 'CLICKHOUSE_URL'>,
  log: Logger,
): Promise<ImportResult> {
  const dataDir = resolve(config.DATA_DIR);
  const files = request.files.map((f) => resolve(f));
  const natsUrl = readRunFile(dataDir)?.natsUrl ?? config.NATS_URL;
  if (natsUrl) {
    const bus = await connectBus(natsUrl, 'signalforge-import', log);
    try {
      const reply = await ask(bus, Requests.marketImport, { ...request, files }, IMPORT_TIMEOUT_MS);
      const body = JSON.parse(Buffer.from(reply).toString('utf8')) as { error?: string };
      // The service refused the import (a missing file, a wrong header…): its message is the whole story.
      if (body.error && !('files' in body)) throw new UnprocessableError(body.error);
      return ImportResult.parse(body);
    } catch (err) {
      if ((err as Error).name === 'NoRespondersError' || /no responders/i.test((err as Error).message)) {
        throw new Error(`no signalforge service answers on ${natsUrl}: start one (npm start) or unset NATS_URL`);
      }
      throw err;
    } finally {
      await bus.close();
    }
  }
  const clickhouse = await openClickHouse({ url: config.CLICKHOUSE_URL, path: resolve(dataDir, 'clickhouse'), log });
  try {
    const importer = new TickImporter({ ticks: new TicksRepo(clickhouse), bars: new BarsRepo(clickhouse), bus: null, log });
    return await importer.import({ ...request, files });
  } finally {
    await clickhouse.close();
  }
}

/** The import report as a person reads it. */
export function describeImport(result: ImportResult): string {
  const lines: string[] = [];
  for (const f of result.files) {
    const span = f.firstTs !== null ? ` ${new Date(f.firstTs).toISOString()} → ${new Date(f.lastTs!).toISOString()}` : '';
    lines.push(`${f.file}: ${f.rows} rows, ${f.imported} ticks imported, ${f.badCount} bad${span}`);
    for (const bad of f.bad.slice(0, 20)) lines.push(`  line ${bad.line}: ${bad.reason}: ${bad.text}`);
    if (f.badCount > 20) lines.push(`  … and ${f.badCount - 20} more bad rows`);
  }
  if (result.rebuilt) {
    lines.push(
      `${result.symbol}: bars rebuilt ${new Date(result.rebuilt.fromMs).toISOString()} → ${new Date(result.rebuilt.toMs).toISOString()} ` +
        `from ${result.ticksInSpan} stored ticks`,
    );
  } else lines.push(`${result.symbol}: nothing imported, no bars rebuilt`);
  return lines.join('\n');
}
