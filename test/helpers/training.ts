/** Train jobs in tests: submit over HTTP and wait for the outcome. */
import assert from 'node:assert/strict';
import { JobView } from '../../schemas/training.ts';
import type { TestService } from './service.ts';
import { strategyCode } from './strategies.ts';

/** Polls GET /train/{id} until the job is done or failed. */
export async function waitForJob(sf: TestService, key: string, jobId: number, timeoutMs = 120_000): Promise<JobView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await sf.api('GET', `/api/v1/train/${jobId}`, { key });
    assert.equal(res.status, 200, res.text);
    const job = JobView.parse(res.body);
    if (job.status === 'done' || job.status === 'failed') return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status} (${job.stage})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Trains the test strategy on 1-minute bars (body fields override) and returns the finished job. */
export async function trainModel(sf: TestService, key: string, body: Record<string, unknown> = {}): Promise<JobView> {
  const start = await sf.api('POST', '/api/v1/train', { key, body: { code: strategyCode(), timeframe: '1min', ...body } });
  assert.equal(start.status, 200, start.text);
  const job = await waitForJob(sf, key, start.body.job_id);
  assert.equal(job.status, 'done', job.error);
  return job;
}

/** The UTC days with bars of `symbol` (from the hourly candles), oldest first; the last one is still trading. */
async function tradingDays(sf: TestService, key: string, symbol: string): Promise<string[]> {
  const hours = await sf.api('GET', `/api/v1/ohlc?symbol=${symbol}&timeframe=1h&limit=5000`, { key });
  return [...new Set((hours.body.candles as { timestamp: string }[]).map((c) => c.timestamp.slice(0, 10)))];
}

/** The last two UTC days with bars of `symbol`: [end_date for a train, the post-cutoff day, which is still trading]. */
export async function lastTwoTradingDays(sf: TestService, key: string, symbol = 'EURUSD'): Promise<[string, string]> {
  return (await tradingDays(sf, key, symbol)).slice(-2) as [string, string];
}

/**
 * The last two days with bars that have ended: [end_date for a train, a post-cutoff day whose bars no
 * longer change], for answers that must be equal however far apart in time they are asked.
 */
export async function lastTwoClosedDays(sf: TestService, key: string, symbol = 'EURUSD'): Promise<[string, string]> {
  const today = new Date().toISOString().slice(0, 10);
  const closed = (await tradingDays(sf, key, symbol)).filter((day) => day < today);
  assert.ok(closed.length >= 2, `two ended trading days in the history, not ${closed.join(', ')}`);
  return closed.slice(-2) as [string, string];
}
