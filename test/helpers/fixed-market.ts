/**
 * The real service over a fixed window of real market data instead of the synthetic market,
 * whose history ends at the current hour: OANDA's EURUSD ticks of 2014-05-01 → 09 (seven trading
 * days), imported by `signalforge import-ticks` before the service starts, with no live feed. A
 * model trained here comes out the same on any day the tests run, so a test may rely on its figures.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli.ts';
import { startTestService, type TestService } from './service.ts';

const TICKS = '../shared/data/fx/lean_quotes_2014-05-01_09/normalized/oanda_EURUSD_ticks_2014-05-01_2014-05-09.csv.gz';

/** The window's days: train up to `endDay`; `lastDay` is the post-cutoff day. */
export const FIXED_DAYS = { endDay: '2014-05-08', lastDay: '2014-05-09' } as const;

export async function startFixedMarketService(env: Record<string, string> = {}): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sf-fixed-'));
  const imported = await runCli(dataDir, ['import-ticks', '--symbol', 'EURUSD', '--format', 'csv', TICKS]);
  assert.equal(imported.code, 0, `importing the fixed window failed:\n${imported.stderr}`);
  return startTestService({ MARKET_FEED: 'none', ...env }, { dataDir });
}
