import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../../src/log.ts';
import { startOandaStream, type OandaStream, type OandaStreamOptions } from '../../../src/market/sources/oanda-stream.ts';
import { FakeOanda, heartbeatLine, priceLine, type Script } from './fake-oanda.ts';
import { MemorySink } from './memory-sink.ts';
import { until } from './until.ts';

const TOKEN = 'test-token-5ecret';

interface Harness {
  server: FakeOanda;
  stream: OandaStream;
  sink: MemorySink;
  logs: Array<{ level: number; msg: string; [k: string]: unknown }>;
  logText: () => string;
  /** Stops the stream; true when every connection was closed by the client before the server shut. */
  done(): Promise<boolean>;
}

async function harness(scripts: Script[], options: Partial<OandaStreamOptions> = {}): Promise<Harness> {
  const server = new FakeOanda(TOKEN, scripts);
  await server.listen();
  const sink = new MemorySink();
  const lines: string[] = [];
  const log = createLogger('debug', { write: (line: string) => void lines.push(line) });
  const stream = startOandaStream({
    streamUrl: `${server.url}/`,
    token: TOKEN,
    accountId: '101-004-1234567-001',
    sink,
    log,
    maxDelayMs: 1,
    backoff: { initialMs: 40, maxMs: 1000, healthyAfterMs: 10_000 },
    random: () => 1,
    ...options,
  });
  return {
    server,
    stream,
    sink,
    get logs() {
      return lines.map((l) => JSON.parse(l) as Harness['logs'][number]);
    },
    logText: () => lines.join(''),
    async done() {
      await stream.stop();
      const closed = Promise.all(server.connections.map((c) => c.closed)).then(() => true);
      const closedByClient = await Promise.race([closed, new Promise<boolean>((r) => setTimeout(() => r(false), 1000))]);
      await server.close();
      return closedByClient;
    },
  };
}

const T = '2024-03-05T10:00:00';
const ms = (frac: number) => Date.UTC(2024, 2, 5, 10, 0, 0, frac);

describe('OANDA price stream (local stand-in server)', () => {
  it('asks for the instruments with the bearer token and maps prices; heartbeats and junk are handled', async () => {
    const h = await harness(
      [
        (c) => {
          c.start();
          c.line(priceLine('EUR_USD', `${T}.960449532Z`, '1.08590', '1.08601'));
          c.line(heartbeatLine());
          const split = JSON.stringify(priceLine('USD_JPY', `${T}.100000001Z`, '149.500', '149.512'));
          c.raw(split.slice(0, 40)); // one line over two chunks
          setTimeout(() => {
            c.raw(`${split.slice(40)}\n`);
            c.line(priceLine('EUR_USD', `${T}.960999999Z`, '1.08591', '1.08602')); // same ms → seq 1
            c.line(priceLine('EUR_USD', `${T}.970Z`, '1.08591', '1.08602', false)); // not tradeable
            c.line('{"type":"PRICE",'); // broken line
            c.line(priceLine('XAU_USD', `${T}.100Z`, '2000.1', '2000.5')); // not subscribed
          }, 20);
        },
      ],
      { symbols: ['EURUSD', 'USDJPY'] },
    );
    try {
      await until(() => h.stream.stats().accepted === 3, 'three ticks');
      const conn = h.server.connections[0]!;
      assert.equal(conn.url.pathname, '/v3/accounts/101-004-1234567-001/pricing/stream');
      assert.equal(conn.url.searchParams.get('instruments'), 'EUR_USD,USD_JPY');
      assert.equal(conn.req.headers['accept-datetime-format'], 'RFC3339');
      assert.deepEqual(
        h.sink.ticksOf('EURUSD').map((t) => [t.ts, t.seq, t.bid, t.ask, t.volume]),
        [
          [ms(960), 0, 1.0859, 1.08601, 0],
          [ms(960), 1, 1.08591, 1.08602, 0],
        ],
      );
      assert.deepEqual(
        h.sink.ticksOf('USDJPY').map((t) => [t.ts, t.bid, t.ask]),
        [[ms(100), 149.5, 149.512]],
      );
      const s = h.stream.stats();
      assert.equal(s.heartbeats, 1);
      assert.equal(s.untradeable, 1);
      assert.equal(s.malformed, 2);
      assert.equal(s.received, 6);
      assert.equal(s.connected, true);
      assert.ok(h.logs.some((l) => l.msg === 'malformed OANDA stream line'));
    } catch (err) {
      await h.done();
      throw err;
    }
    assert.equal(await h.done(), true, 'stop() closed the HTTP connection');
    assert.equal(h.stream.stats().connected, false);
  });

  it('reconnects with backoff when the server drops the connection, and resumes', async () => {
    const h = await harness([
      (c) => {
        c.start();
        c.line(priceLine('EUR_USD', `${T}.001Z`, '1.08590', '1.08601'));
        c.line(priceLine('EUR_USD', `${T}.002Z`, '1.08590', '1.08601'));
        setTimeout(() => c.drop(), 30);
      },
      (c) => {
        c.start();
        c.line(priceLine('EUR_USD', `${T}.003Z`, '1.08590', '1.08601'));
      },
    ]);
    try {
      await until(() => h.stream.stats().accepted === 3, 'ticks from both connections');
      const [first, second] = h.server.connections;
      assert.equal(h.server.connections.length, 2);
      assert.ok(second!.openedAt - first!.closedAt! >= 35, `waited ${second!.openedAt - first!.closedAt!} ms (backoff 40 ms)`);
      assert.deepEqual(
        h.sink.ticksOf('EURUSD').map((t) => t.ts),
        [ms(1), ms(2), ms(3)],
      );
      assert.equal(h.stream.stats().connects, 2);
      assert.ok(h.logs.some((l) => l.level === 40 && /OANDA stream (failed|closed); reconnecting/.test(l.msg) && l.retryInMs === 40));
    } finally {
      await h.done();
    }
  });

  it('reconnects when the stream goes silent (no heartbeat or price)', async () => {
    const h = await harness(
      [
        (c) => {
          c.start();
          c.line(heartbeatLine()); // then nothing: a half-open connection looks like this
        },
        (c) => {
          c.start();
          c.line(priceLine('GBP_USD', `${T}.500Z`, '1.26000', '1.26010'));
        },
      ],
      { silenceTimeoutMs: 150 },
    );
    try {
      await until(() => h.stream.stats().accepted === 1, 'a tick after reconnecting');
      const [first, second] = h.server.connections;
      assert.ok(first!.closedAt, 'the client closed the silent connection');
      assert.ok(first!.closedAt! - first!.openedAt >= 140, 'after the silence timeout');
      assert.ok(second!.openedAt >= first!.closedAt!);
      assert.ok(h.logs.some((l) => l.reason === 'no price or heartbeat for 150 ms'));
    } finally {
      await h.done();
    }
  });

  it('a 401 is logged as a clear error, retried with growing delays, and never leaks the token', async () => {
    const h = await harness([
      (c) =>
        void c.res
          .writeHead(401, { 'content-type': 'application/json' })
          .end('{"errorMessage":"Insufficient authorization to perform request."}'),
      (c) => void c.res.writeHead(401).end('{"errorMessage":"Insufficient authorization to perform request."}'),
      (c) => void c.res.writeHead(401).end('{"errorMessage":"Insufficient authorization to perform request."}'),
      (c) => {
        c.start();
        c.line(priceLine('EUR_USD', `${T}.001Z`, '1.08590', '1.08601'));
      },
    ]);
    try {
      await until(() => h.stream.stats().accepted === 1, 'a tick once authorised');
      const opened = h.server.connections.map((c) => c.openedAt);
      const gaps = opened.slice(1).map((t, i) => t - opened[i]!);
      assert.equal(gaps.length, 3);
      // random() = 1 → delays of exactly 40, 80, 160 ms (equal jitter at its top).
      assert.ok(gaps[0]! >= 38 && gaps[1]! >= 78 && gaps[2]! >= 158, `gaps ${gaps.join(', ')}`);
      assert.ok(gaps[2]! > gaps[0]!, `gaps ${gaps.join(', ')}`);
      const errors = h.logs.filter((l) => l.level === 50);
      assert.equal(errors.length, 3);
      for (const e of errors) {
        assert.match(e.msg, /OANDA stream refused \(HTTP 401\): check OANDA_TOKEN and OANDA_ACCOUNT_ID; reconnecting/);
        assert.equal(e.status, 401);
        assert.match(String(e.body), /Insufficient authorization/);
      }
      assert.ok(!h.logText().includes(TOKEN), 'the token never reaches the log');
    } finally {
      await h.done();
    }
  });

  it('resets the backoff after a connection that stayed healthy', async () => {
    const refuse: Script = (c) => void c.res.writeHead(503).end('{"errorMessage":"busy"}');
    const healthy: Script = (c) => {
      c.start();
      const beat = setInterval(() => c.line(heartbeatLine()), 20);
      setTimeout(() => (clearInterval(beat), c.drop()), 150); // up for 150 ms ≥ healthyAfterMs
    };
    // random() = 1: refusals wait 20, 40, 80, 160 ms; without a reset the next wait would be 320.
    const h = await harness([refuse, refuse, refuse, refuse, healthy, refuse, (c) => c.start()], {
      backoff: { initialMs: 20, maxMs: 5000, healthyAfterMs: 100 },
    });
    try {
      await until(() => h.server.connections.length === 7, 'seven connections');
      // The delay chosen before each reconnect, as logged: back to the first step after the
      // healthy connection, then doubling again.
      const delays = h.logs.filter((l) => typeof l.retryInMs === 'number').map((l) => l.retryInMs);
      assert.deepEqual(delays, [20, 40, 80, 160, 20, 40]);
      // And those are the waits taken (at least; a busy machine only adds).
      const c = h.server.connections;
      const gapAfterHealthy = c[5]!.openedAt - c[4]!.closedAt!;
      const gapAfterRefusal = c[6]!.openedAt - c[5]!.closedAt!;
      assert.ok(gapAfterHealthy >= 18, `after the healthy connection waited ${gapAfterHealthy} ms`);
      assert.ok(gapAfterRefusal >= 38, `then ${gapAfterRefusal} ms`);
      assert.ok(h.stream.stats().heartbeats >= 3);
    } finally {
      await h.done();
    }
  });

  it('stop() does not wait out the reconnect delay', async () => {
    // An hour's delay: stop() can only return by cutting the wait short. The 30 s race only ends a hung stop().
    const HOUR = 3_600_000;
    const h = await harness([(c) => void c.res.writeHead(503).end()], { backoff: { initialMs: HOUR, maxMs: HOUR, healthyAfterMs: 1 } });
    await until(() => h.logs.some((l) => typeof l.retryInMs === 'number'), 'the first attempt refused and the wait begun');
    assert.deepEqual(
      h.logs.filter((l) => typeof l.retryInMs === 'number').map((l) => l.retryInMs),
      [HOUR],
    );
    let guard: NodeJS.Timeout | undefined;
    const stopped = await Promise.race([
      h.done().then(() => 'stopped'),
      new Promise((r) => (guard = setTimeout(() => r('still waiting for the reconnect delay'), 30_000))),
    ]);
    clearTimeout(guard);
    assert.equal(stopped, 'stopped');
    assert.equal(h.server.connections.length, 1, 'no reconnect');
  });
});
