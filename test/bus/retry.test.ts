/**
 * The one retry of start-up steps: its pace (doubling, capped, jittered), what it takes for a
 * passing trouble, and, on a real nats-server, that it waits for a server not up yet and for a
 * stream while its server is down — saying what it waits for and logging each try with the step,
 * its stream and the server — waits for a consumer's stream the server does not know yet, stops
 * when the connection closes, and throws at once what the server refuses for good.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { z } from 'zod';
import {
  backoffMs,
  BusRetry,
  connectBus,
  createRacing,
  ensureConsumer,
  ensureStream,
  freePort,
  openBucket,
  isStartupTransient,
  startEmbeddedNats,
  STARTUP_BACKOFF,
  type Bus,
} from '../../src/bus/index.ts';
import { createLogger } from '../../src/log.ts';
import { until } from '../helpers/nats.ts';

/** A logger whose lines the test reads (warn and above). */
function capturedLog() {
  const lines: Record<string, any>[] = [];
  const log = createLogger('warn', { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { log, lines };
}

const FAST = { firstMs: 20, capMs: 200 };

describe('backoffMs', () => {
  it('doubles from 250 ms up to 10 s, each pause between half and all of its ceiling', () => {
    const ceilings = [250, 500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000, 10_000];
    ceilings.forEach((ceiling, attempt) => {
      assert.equal(
        backoffMs(attempt, STARTUP_BACKOFF, () => 0),
        ceiling / 2,
        `attempt ${attempt}, least`,
      );
      assert.equal(
        backoffMs(attempt, STARTUP_BACKOFF, () => 1),
        ceiling,
        `attempt ${attempt}, most`,
      );
    });
    assert.equal(
      backoffMs(1_000, STARTUP_BACKOFF, () => 1),
      10_000,
    );
  });

  it('spreads roles that fail together', () => {
    const pauses = new Set(Array.from({ length: 50 }, () => backoffMs(4)));
    assert.ok(pauses.size > 10, `${pauses.size} distinct pauses of 50`);
  });
});

describe('isStartupTransient', () => {
  it('takes what a cluster missing a node or electing a leader answers for a passing trouble', () => {
    for (const err of [
      Object.assign(new Error('timeout'), { name: 'TimeoutError' }),
      Object.assign(new Error('no responders'), { name: 'NoRespondersError' }),
      new Error('JetStream system temporarily unavailable'),
      new Error('no suitable peers for placement'),
      new Error('insufficient resources'),
      new Error('stream name already in use with a different configuration'),
      // A meta leader elected since a stream or consumer was made, not caught up yet.
      Object.assign(new Error('stream not found'), { name: 'StreamNotFoundError' }),
      new Error('consumer not found'),
      new Error('wrapped', { cause: Object.assign(new Error('timeout'), { name: 'TimeoutError' }) }),
    ]) {
      assert.equal(isStartupTransient(err), true, err.message);
    }
  });

  it('refuses what the server refuses for good', () => {
    for (const err of [
      new Error('subjects overlap with an existing stream'),
      new Error('invalid stream name'),
      new TypeError('x is not a function'),
      null,
      'timeout',
    ]) {
      assert.equal(isStartupTransient(err), false, String(err));
    }
  });
});

describe('BusRetry on a real nats-server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-bus-retry-'));
  const stops: Array<() => Promise<unknown> | unknown> = [];
  after(async () => {
    for (const stop of stops.reverse()) await stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('waits for a server that is not up yet, saying so, and connects when it comes', async () => {
    const { log, lines } = capturedLog();
    const port = await freePort();
    const retry = new BusRetry(log, FAST);
    let bus: Bus | null = null;
    const connecting = connectBus(`nats://127.0.0.1:${port}`, 'retry-test', log, retry).then((b) => (bus = b));
    await until('two tries logged', () => lines.filter((l) => l.op === 'connect').length >= 2);
    assert.deepEqual(retry.waitingFor(), [`nats nats://127.0.0.1:${port}`]);
    assert.equal(bus, null);
    const warn = lines.find((l) => l.op === 'connect')!;
    assert.equal(warn.level, 40);
    assert.equal(warn.nats, `nats://127.0.0.1:${port}`);
    assert.ok(warn.retry_in_ms >= FAST.firstMs / 2 && warn.retry_in_ms <= FAST.capMs, `${warn.retry_in_ms}`);

    const nats = await startEmbeddedNats({ bin: 'nats-server', storeDir: join(dir, 'nats'), port, log });
    stops.push(() => nats.stop());
    await connecting;
    stops.unshift(() => bus!.nc.close());
    assert.deepEqual(retry.waitingFor(), []);
  });

  it('waits for a stream while its server is down, naming the stream and the server, and ensures it once the server is back', async () => {
    const { log, lines } = capturedLog();
    const storeDir = join(dir, 'nats-2');
    const first = await startEmbeddedNats({ bin: 'nats-server', storeDir, log });
    const port = Number(new URL(first.url).port);
    const bus = await connectBus(first.url, 'retry-test-2', log, new BusRetry(log, FAST));
    stops.push(() => bus.nc.close());
    const server = bus.nc.info!.server_name;
    await first.stop();
    const spec = { name: 'RETRY_DOWN', subjects: ['retry.down.>'], maxMessages: 10, maxAgeSeconds: 60 };
    const ensuring = ensureStream(bus, spec);
    await until('a try logged', () => lines.some((l) => l.stream === 'RETRY_DOWN'));
    assert.deepEqual(bus.retry.waitingFor(), ['stream RETRY_DOWN']);
    const warn = lines.find((l) => l.stream === 'RETRY_DOWN')!;
    assert.equal(warn.level, 40);
    assert.equal(warn.op, 'ensure');
    assert.equal(warn.server, server);
    assert.equal(warn.server_url, `127.0.0.1:${port}`);
    assert.match(warn.msg, /^stream RETRY_DOWN: ensure failed/);

    const again = await startEmbeddedNats({ bin: 'nats-server', storeDir, port, log });
    stops.push(() => again.stop());
    await ensuring;
    assert.deepEqual(bus.retry.waitingFor(), []);
    assert.deepEqual((await bus.jsm.streams.info('RETRY_DOWN')).config.subjects, ['retry.down.>']);
  });

  it('waits for a consumer whose stream the server does not know yet (a cluster catching up), and makes it once the stream is there', async () => {
    const { log, lines } = capturedLog();
    const nats = await startEmbeddedNats({ bin: 'nats-server', storeDir: join(dir, 'nats-5'), log });
    stops.push(() => nats.stop());
    const bus = await connectBus(nats.url, 'retry-test-5', log, new BusRetry(log, FAST));
    stops.unshift(() => bus.nc.close());
    const stream = { name: 'RETRY_LATE', subjects: ['retry.late.>'], maxMessages: 10, maxAgeSeconds: 60 };
    const ensuring = ensureConsumer(bus, { stream, name: 'late-reader', deliver: 'all' });
    await until('two tries logged', () => lines.filter((l) => l.consumer === 'RETRY_LATE/late-reader').length >= 2);
    assert.deepEqual(bus.retry.waitingFor(), ['consumer RETRY_LATE/late-reader']);
    assert.match(lines.find((l) => l.consumer === 'RETRY_LATE/late-reader')!.err, /stream not found/i);

    await ensureStream(bus, stream);
    await ensuring;
    assert.deepEqual(bus.retry.waitingFor(), []);
    assert.equal((await bus.jsm.consumers.info('RETRY_LATE', 'late-reader')).config.durable_name, 'late-reader');
  });

  it('stops waiting when the connection is closed (a role stopped while it starts)', async () => {
    const { log, lines } = capturedLog();
    const nats = await startEmbeddedNats({ bin: 'nats-server', storeDir: join(dir, 'nats-4'), log });
    const bus = await connectBus(nats.url, 'retry-test-4', log, new BusRetry(log, FAST));
    await nats.stop();
    const ensuring = ensureStream(bus, { name: 'RETRY_CLOSED', subjects: ['retry.closed.>'], maxMessages: 10, maxAgeSeconds: 60 });
    ensuring.catch(() => undefined);
    await until('a try logged', () => lines.some((l) => l.stream === 'RETRY_CLOSED'));
    await bus.nc.close();
    await assert.rejects(ensuring);
    assert.deepEqual(bus.retry.waitingFor(), []);
  });

  it('throws at once what the server refuses for good, without a retry', async () => {
    const { log, lines } = capturedLog();
    const nats = await startEmbeddedNats({ bin: 'nats-server', storeDir: join(dir, 'nats-3'), log });
    stops.push(() => nats.stop());
    const bus = await connectBus(nats.url, 'retry-test-3', log, new BusRetry(log, FAST));
    stops.unshift(() => bus.nc.close());
    await ensureStream(bus, { name: 'FIRST', subjects: ['overlap.>'], maxMessages: 10, maxAgeSeconds: 60 });
    await assert.rejects(ensureStream(bus, { name: 'SECOND', subjects: ['overlap.>'], maxMessages: 10, maxAgeSeconds: 60 }), /overlap/);
    // NATS_REPLICAS above 1 against a single server: a configuration to fix, not a cluster to wait for.
    await assert.rejects(
      ensureStream(bus, { name: 'THIRD', subjects: ['third.>'], maxMessages: 10, maxAgeSeconds: 60 }, 3),
      /non-clustered/,
    );
    assert.equal(lines.filter((l) => l.stream === 'SECOND' || l.stream === 'THIRD').length, 0);
  });

  it('a creation refused as "subjects overlap" while a stream of its own name is there lost a race: tried again, and the bucket opens', async () => {
    const { log } = capturedLog();
    const nats = await startEmbeddedNats({ bin: 'nats-server', storeDir: join(dir, 'nats-4'), log });
    stops.push(() => nats.stop());
    const bus = await connectBus(nats.url, 'retry-test-4', log, new BusRetry(log, FAST));
    stops.unshift(() => bus.nc.close());
    await ensureStream(bus, { name: 'RACED', subjects: ['raced.>'], maxMessages: 10, maxAgeSeconds: 60 });
    const overlap = () => Promise.reject(new Error('subjects overlap with an existing stream'));
    await assert.rejects(
      createRacing(bus, 'RACED', overlap),
      (err: Error) => isStartupTransient(err) && /already in use/.test(err.message),
    );
    await assert.rejects(createRacing(bus, 'ELSEWHERE', overlap), (err: Error) => !isStartupTransient(err) && /overlap/.test(err.message));
    // Many openers of one new bucket at once (roles starting together): every one opens it.
    const opened = await Promise.all(
      Array.from({ length: 8 }, () => openBucket(bus, { name: 'sf_test_raced', schema: z.object({ n: z.number() }), ttlSeconds: 0 })),
    );
    await opened[0]!.put('k', { n: 1 });
    assert.deepEqual((await opened[7]!.get('k'))?.value, { n: 1 });
  });
});
