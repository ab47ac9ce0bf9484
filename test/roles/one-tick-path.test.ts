/**
 * One path for every tick: `serve` builds bars as the separate `ingest` role does — from the
 * TICKS stream, through the same role build — so the same ticks give the same bars. Two hours of
 * real EURUSD ticks (OANDA, 2014-05-01) go on `ticks.EURUSD` as an outside feed publishes them,
 * once into `serve` and once into `signalforge store` + `signalforge ingest` processes on a NATS
 * of their own; every stored bar of every timeframe is read back from each and compared.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { connectBus, type Bus } from '../../src/bus/index.ts';
import type { ClickHouseClient } from '../../src/store/index.ts';
import { remoteClickHouse } from '../../src/store-link/index.ts';
import { Topics } from '../../schemas/messages.ts';
import { log, startNats, until, type TestNats } from '../helpers/nats.ts';
import { startRole, type RoleProcess } from '../helpers/role-process.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const TICKS = '../shared/data/fx/lean_quotes_2014-05-01_09/normalized/oanda_EURUSD_ticks_2014-05-01_2014-05-09.csv.gz';
const FROM = Date.parse('2014-05-01T07:00:00Z');
const TO = Date.parse('2014-05-01T09:00:00Z');

/** The span's ticks, as an outside feed sends them: arrays of up to 100 on `ticks.EURUSD`. */
function payloads(): string[] {
  const rows = gunzipSync(readFileSync(TICKS)).toString('utf8').split('\n').slice(1);
  const ticks: { ts: number; bid: number; ask: number }[] = [];
  for (const row of rows) {
    const [iso, bid, ask] = row.split(',');
    const ts = Date.parse(iso!);
    if (ts >= FROM && ts < TO) ticks.push({ ts, bid: Number(bid), ask: Number(ask) });
  }
  assert.ok(ticks.length > 1000, `the span holds ticks (${ticks.length})`);
  const out: string[] = [];
  for (let i = 0; i < ticks.length; i += 100) out.push(JSON.stringify(ticks.slice(i, i + 100)));
  return out;
}

/** Every stored bar of the span, every timeframe, as text rows (ClickHouse's own formatting on both sides). */
async function storedBars(clickhouse: ClickHouseClient): Promise<string[]> {
  const result = await clickhouse.query({
    query: `SELECT timeframe, toUnixTimestamp64Milli(ts) AS t, open, high, low, close, volume, ticks, spread, source
            FROM bars FINAL WHERE symbol = 'EURUSD' AND ts >= fromUnixTimestamp64Milli({from:Int64}) AND ts < fromUnixTimestamp64Milli({to:Int64})
            ORDER BY timeframe, t`,
    query_params: { from: FROM, to: TO },
    format: 'JSONEachRow',
  });
  return ((await result.json()) as unknown[]).map((row) => JSON.stringify(row));
}

/** Publishes the payloads, then waits for the last hour's bars (closed by the quiet rule) to be stored. */
async function feed(bus: Bus, clickhouse: ClickHouseClient, messages: readonly string[]): Promise<string[]> {
  for (const payload of messages) bus.nc.publish(Topics.ticks.subject('EURUSD'), payload);
  await bus.nc.flush();
  await until(
    'the last hour bar stored',
    async () =>
      (await storedBars(clickhouse)).some((row) => {
        const bar = JSON.parse(row) as { timeframe: string; t: string | number };
        return bar.timeframe === '1h' && Number(bar.t) === TO - 3_600_000;
      }),
    90_000,
  );
  // The bars of every timeframe are stored together with that last one: read once more, settled.
  return storedBars(clickhouse);
}

describe('one tick path: serve and the ingest role build the same bars', () => {
  const messages = payloads();
  let service: TestService | undefined;
  let nats: TestNats | undefined;
  const roles: RoleProcess[] = [];
  let dataDir = '';

  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sf-one-tick-path-'));
  });
  after(async () => {
    await service?.stop();
    for (const role of roles) role.child.kill('SIGKILL');
    await Promise.all(roles.map((role) => role.exited));
    await nats?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the same ticks on ticks.EURUSD give bit-identical bars of every timeframe', { timeout: 240_000 }, async () => {
    service = await startTestService({ MARKET_FEED: 'none' });
    const fromServe = await feed(service.service.bus, service.service.clickhouse, messages);
    await service.stop();
    service = undefined;

    nats = await startNats('one-tick-path');
    const url = `nats://${nats.bus.nc.getServer()}`;
    const env = { MARKET_FEED: 'none', DATA_DIR: dataDir, HEALTH_PORT: '0' };
    roles.push(startRole('store', url, env));
    await roles[0]!.running(60_000);
    roles.push(startRole('ingest', url, env));
    await roles[1]!.running(60_000);
    const bus = await connectBus(url, 'one-tick-path-test', log);
    try {
      const fromRoles = await feed(bus, await remoteClickHouse(bus, 1), messages);
      assert.ok(fromServe.length > 150, `bars of every timeframe (${fromServe.length})`);
      assert.deepEqual(fromRoles, fromServe);
    } finally {
      await bus.close();
    }
  });
});
