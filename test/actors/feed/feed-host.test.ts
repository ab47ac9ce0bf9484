/**
 * The tick feeds in the `ingest` role, real processes: `signalforge ingest` copies with
 * MARKET_FEED=synthetic on one nats-server (no ClickHouse server: they reach this test's chdb
 * over NATS). Exactly one publishes the synthetic market's ticks (lease `feed.synthetic`); SIGKILL
 * it and another takes the feed over once the lease expires; SIGTERM the new one and a third takes
 * it at once (the lease released, not left to expire). Through both take-overs the ticks on the
 * TICKS stream are exactly the one deterministic series the seeded checkpoints start — none
 * missing, none doubled, no price jump — and the stored bars are the bars of that series, each
 * once. The market is resumed from checkpoints the test writes two hours back, so every run has
 * ticks to check whatever the weekday (BTCUSD trades through weekends).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { openBucket, readFromTime } from '../../../src/bus/index.ts';
import { decodeTickPayload, instrument, StreamingResampler } from '../../../src/market/index.ts';
import { initialState, SyntheticTickGenerator } from '../../../src/market/synthetic/generator.ts';
import { selectRows } from '../../../src/store/index.ts';
import { serveStore } from '../../../src/store-link/index.ts';
import { SYMBOLS, type Symbol } from '../../../schemas/common.ts';
import type { BarMessage, Tick } from '../../../schemas/market.ts';
import { Buckets, Streams, Topics } from '../../../schemas/messages.ts';
import { startRole, type RoleProcess } from '../../helpers/role-process.ts';
import { log, startNats, until, type TestNats } from '../../helpers/nats.ts';
import { tempStore } from '../../store/temp-store.ts';

const store = tempStore('feed-host');
const HOUR = 3_600_000;
const SEED = 'feed-host-test';

/** The role's /_metrics as numbers by sample name. */
async function metrics(role: { health: string }): Promise<Record<string, number>> {
  const text = await (await fetch(`${role.health}/_metrics`)).text();
  return Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((line) => {
        const at = line.lastIndexOf(' ');
        return [line.slice(0, at), Number(line.slice(at + 1))];
      }),
  );
}
const ACTIVE = 'signalforge_feed_active{feed="synthetic"}';
const PUBLISHED = 'signalforge_feed_published_ticks_total{feed="synthetic"}';

describe('the synthetic feed in two ingest processes (one active connector by lease)', () => {
  let nats: TestNats;
  const children: ChildProcess[] = [];

  before(async () => {
    nats = await startNats('feed-host');
    await serveStore(nats.bus, store.client, log);
  });
  after(async () => {
    for (const c of children) c.kill('SIGKILL');
    await nats?.close();
  });

  it('one publishes; a killed one’s feed goes on elsewhere, a drained one’s at once; the series and its bars exactly once', async (t) => {
    const url = `nats://${nats.bus.nc.getServer()}`;
    // Bars wait out a take-over (here well under 15 s) for the ticks of its seconds (deploy/OPERATIONS.md).
    const env = { MARKET_FEED: 'synthetic', SYNTHETIC_SEED: SEED, BAR_GRACE_MS: '15000', HISTORY_DAYS: '1' };
    const from = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
    const checkpoints = await openBucket(nats.bus, Buckets.synthetic);
    const seeded = new Map(SYMBOLS.map((symbol) => [symbol, initialState(instrument(symbol), from, SEED)]));
    for (const [symbol, state] of seeded) await checkpoints.put(symbol, { symbol, seed: SEED, hour: from, state, previous: null });

    const start = async () => {
      const role = startRole('ingest', url, env);
      children.push(role.child);
      const running = await role.running();
      return { role, health: running.health as string, host: running.feed_host as string };
    };
    const [a, b] = await Promise.all([start(), start()]);
    const leases = await openBucket(nats.bus, Buckets.leases);
    const holder = async () => (await leases.get('feed.synthetic'))?.value.host ?? null;
    await until('the feed claimed', async () => (await holder()) !== null, 30_000);
    const [first, standby] = (await holder()) === a.host ? [a, b] : [b, a];
    await until('the catch-up of two hours published', async () => ((await metrics(first))[PUBLISHED] ?? 0) > 0, 30_000);
    const [m1, m2] = await Promise.all([metrics(first), metrics(standby)]);
    assert.equal(m1[ACTIVE], 1, 'the lease holder publishes');
    assert.deepEqual([m2[ACTIVE], m2[PUBLISHED]], [0, 0], 'the other stands by and publishes nothing');

    // SIGKILL: the standby takes over once the lease expires.
    const killedAt = Date.now();
    first.role.child.kill('SIGKILL');
    await first.role.exited;
    await until('the standby publishing the feed', async () => (await metrics(standby))[ACTIVE] === 1, 30_000);
    t.diagnostic(`failover after SIGKILL: the feed publishes again on the standby ${Date.now() - killedAt} ms after the kill`);
    assert.equal(await holder(), standby.host);

    // SIGTERM: the lease is released on the way out, so a new standby takes it at once.
    const third = await start();
    await until('the new standby running', async () => (await metrics(third))[ACTIVE] === 0, 10_000);
    const drainedAt = Date.now();
    standby.role.child.kill('SIGTERM');
    assert.equal(await standby.role.exited, 0, 'a clean drain');
    assert.notEqual(await holder(), standby.host, 'the lease released on the way out, not left to expire');
    await until('the third process publishing the feed', async () => (await metrics(third))[ACTIVE] === 1, 30_000);
    t.diagnostic(`hand-over on SIGTERM: the feed publishes again ${Date.now() - drainedAt} ms after the signal`);
    // The third's own ticks (BTCUSD ticks every few seconds at any hour), then the bars of the series so far.
    await until('ticks published by the third process', async () => ((await metrics(third))[PUBLISHED] ?? 0) > 0, 90_000);

    // Every tick on the stream is the seeded series', once and in order.
    const published = new Map<Symbol, Tick[]>();
    for (const symbol of SYMBOLS) {
      const messages = await readFromTime(nats.bus, Streams.ticks.name, Topics.ticks.subject(symbol), 0, 1_000_000);
      published.set(
        symbol,
        messages.flatMap((m) =>
          decodeTickPayload(m.data).ticks.map((tk) => ({ symbol, ts: tk.ts, seq: 0, bid: tk.bid, ask: tk.ask, volume: 0 })),
        ),
      );
    }
    const expectedBars: BarMessage[] = [];
    const resampler = new StreamingResampler((bar) => expectedBars.push(bar), 15_000);
    let total = 0;
    for (const symbol of SYMBOLS) {
      const got = published.get(symbol)!;
      if (got.length === 0) continue;
      const want: Tick[] = [];
      new SyntheticTickGenerator(instrument(symbol), seeded.get(symbol)!).generate(got[got.length - 1]!.ts, (tk) => want.push(tk));
      assert.deepEqual(
        got.map((tk) => [tk.ts, tk.bid, tk.ask]),
        want.map((tk) => [tk.ts, tk.bid, tk.ask]),
        `${symbol}: the ticks published are the series itself, across both take-overs`,
      );
      for (const tk of want) resampler.push(tk, 'live');
      total += got.length;
    }
    // Bars the builder closed once the market went quiet (no later tick) are the last of the series.
    resampler.flush();
    assert.ok(published.get('BTCUSD')!.length > 0, 'BTCUSD ticked (it trades at any hour)');
    t.diagnostic(`${total} ticks checked`);

    type Row = { symbol: string; timeframe: string; ts: number; open: number; high: number; low: number; close: number; ticks: number };
    const stored = () =>
      selectRows<Row>(
        store.client,
        "SELECT symbol, timeframe, toUnixTimestamp64Milli(ts) AS ts, open, high, low, close, ticks FROM bars FINAL WHERE timeframe = '1min' ORDER BY symbol, ts",
      );
    await until('the bars of the series stored', async () => (await stored()).length > 0, 30_000).catch((err) => {
      process.stderr.write(
        third.role.lines
          .filter((l) => /ingest|"level":[456]/.test(l))
          .slice(-40)
          .join('\n'),
      );
      throw err;
    });
    third.role.child.kill('SIGTERM');
    assert.equal(await third.role.exited, 0);
    const key = (bar: { symbol: string; ts: number }) => `${bar.symbol}@${bar.ts}`;
    const want = new Map(expectedBars.filter((bar) => bar.timeframe === '1min').map((bar) => [key(bar), bar]));
    const rows = await stored();
    const once = await selectRows<{ n: number; keys: number }>(
      store.client,
      'SELECT count() AS n, uniqExact(symbol, timeframe, ts) AS keys FROM bars FINAL',
    );
    assert.equal(once[0]!.n, once[0]!.keys, 'each bar once');
    // Our generator's prices are never passed off as a live feed's.
    const sources = await selectRows<{ source: string }>(store.client, 'SELECT DISTINCT source FROM bars FINAL');
    assert.deepEqual(
      sources.map((r) => r.source),
      ['synthetic'],
    );
    for (const symbol of SYMBOLS) {
      const own = rows.filter((r) => r.symbol === symbol);
      if (own.length === 0) continue;
      const last = own[own.length - 1]!.ts;
      assert.deepEqual(
        own.map(key),
        [...want.values()].filter((bar) => bar.symbol === symbol && bar.ts <= last).map(key),
        `${symbol}: every minute bar of the series up to the last stored, none missing`,
      );
      for (const row of own) {
        const bar = want.get(key(row))!;
        assert.deepEqual(
          [row.open, row.high, row.low, row.close, row.ticks],
          [bar.open, bar.high, bar.low, bar.close, bar.ticks],
          `${key(row)}: the bar of all its ticks`,
        );
      }
    }
  });
});
