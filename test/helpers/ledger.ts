/** The credit ledger's real stores and checks on its usage history, for the ledger and monthly allowance tests. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectBus, openBucket, startEmbeddedNats, type Bus, type JsonKv } from '../../src/bus/index.ts';
import { createLogger } from '../../src/log.ts';
import { openClickHouse, UsageRepo, type ClickHouseClient, type UsageRow } from '../../src/store/index.ts';
import { UsageRecorder } from '../../actors/recorder/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { type CreditsRecord } from '../../schemas/account-records.ts';

export interface LedgerStores {
  /** Two NATS connections: two processes, in effect. */
  busA: Bus;
  busB: Bus;
  /** The credits bucket through each. */
  kvA: JsonKv<typeof CreditsRecord>;
  kvB: JsonKv<typeof CreditsRecord>;
  clickhouse: ClickHouseClient;
  /** The usage table, as the usage recorder (running on busA) fills it. */
  repo: UsageRepo;
  /** How far the recorder has stored (a ledger's `recordedThrough`). */
  recordedThrough: () => number;
  /** Waits until the recorder has stored every change made so far. */
  recorded(): Promise<void>;
  close(): Promise<void>;
}

/** A real nats-server and chdb in a temp dir. */
export async function startLedgerStores(name: string): Promise<LedgerStores> {
  const log = createLogger('silent');
  const dir = mkdtempSync(join(tmpdir(), `sf-${name}-`));
  const nats = await startEmbeddedNats({ bin: process.env.NATS_SERVER_BIN ?? 'nats-server', storeDir: join(dir, 'nats'), log });
  const [busA, busB] = await Promise.all([connectBus(nats.url, 'test-a', log), connectBus(nats.url, 'test-b', log)]);
  const clickhouse = await openClickHouse({ path: join(dir, 'clickhouse'), log });
  const [kvA, kvB, cursor] = await Promise.all([
    openBucket(busA, Buckets.credits),
    openBucket(busB, Buckets.credits),
    openBucket(busA, Buckets.usageCursor),
  ]);
  const repo = new UsageRepo(clickhouse);
  const recorder = new UsageRecorder({ credits: kvA, cursor, repo, log, intervalMs: 50 });
  await recorder.start();
  return {
    busA,
    busB,
    kvA,
    kvB,
    clickhouse,
    repo,
    recordedThrough: () => recorder.stats().committed,
    async recorded() {
      assert.ok(await recorder.caughtUp(), 'the usage recorder catches up');
    },
    async close() {
      await recorder.stop();
      await busA.close();
      await busB.close();
      await clickhouse.close();
      await nats.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Settles every promise; returns fulfilled values and rejection reasons. */
export async function settle<T>(promises: Array<Promise<T>>): Promise<{ ok: T[]; failed: unknown[] }> {
  const results = await Promise.allSettled(promises);
  const ok: T[] = [];
  const failed: unknown[] = [];
  for (const r of results) {
    if (r.status === 'fulfilled') ok.push(r.value);
    else failed.push(r.reason);
  }
  return { ok, failed };
}

export const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/**
 * The stored history (newest first, as UsageRepo.history gives it) must be a consistent chain:
 * oldest first, each balance_after is the one before plus its delta, starting from 0; seqs are
 * unique and rising; nothing is negative.
 */
export function assertChain(rows: UsageRow[], finalBalance: number): void {
  const oldestFirst = [...rows].reverse();
  const seqs = new Set(oldestFirst.map((r) => r.seq));
  assert.equal(seqs.size, rows.length, 'seq is unique');
  let balance = 0;
  let lastSeq = 0;
  for (const row of oldestFirst) {
    assert.ok(row.seq > lastSeq, `seq rises: ${row.seq} after ${lastSeq}`);
    lastSeq = row.seq;
    balance += row.delta;
    assert.equal(row.balance_after, balance, `balance_after of seq ${row.seq}`);
    assert.ok(row.balance_after >= 0, 'never negative');
  }
  assert.equal(balance, finalBalance, 'the history adds up to the balance');
}
