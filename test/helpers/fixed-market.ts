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
import { strategyCode } from './strategies.ts';

const TICKS = '../shared/data/fx/lean_quotes_2014-05-01_09/normalized/oanda_EURUSD_ticks_2014-05-01_2014-05-09.csv.gz';

/** Imports the fixed window's ticks into a service's data directory (`signalforge import-ticks`). */
export async function importFixedWindow(dataDir: string): Promise<void> {
  const imported = await runCli(dataDir, ['import-ticks', '--symbol', 'EURUSD', '--format', 'csv', TICKS]);
  assert.equal(imported.code, 0, `importing the fixed window failed:\n${imported.stderr}`);
}

/** Trained up to this day, the window's last day (2014-05-09) is the post-cutoff span. */
export const FIXED_END_DAY = '2014-05-08';

/** A scalper: no stop, opposite signals ignored, so nearly every trade reaches its small target. */
export const SCALPER = strategyCode({ onOpposite: 'ignore', stopLoss: null, takeProfit: null });

/**
 * The take-profit under which SCALPER ends its test span on this window in profit: 113 trades,
 * one loss, ret ≈ +1.4 % — so it passes the share gate.
 */
export const PROFITABLE_TAKE_PROFIT = 0.5;

export async function startFixedMarketService(env: Record<string, string> = {}): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sf-fixed-'));
  await importFixedWindow(dataDir);
  return startTestService({ MARKET_FEED: 'none', ...env }, { dataDir });
}
