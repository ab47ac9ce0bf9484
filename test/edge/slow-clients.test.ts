/**
 * Slow and hostile clients cannot hold the service (src/edge/server-limits.ts,
 * plugins/client-errors.ts, the anonymous stream caps): a body trickled 1 byte at a time, slow
 * headers and a silent connection are cut off with 408 once their timeout passes; past
 * HTTP_MAX_CONNECTIONS a connection is answered 503 and closed; anonymous activity streams are
 * capped per address and in total. Small limits are set through the configuration; every wait
 * is bounded by the test's own timeout, nothing is timed.
 */
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { readSse, startTestService, type TestService } from '../helpers/service.ts';
import { openSocket, parseResponse, readOneResponse, readUntilClosed } from './raw-http.ts';

const MAX_CONNECTIONS = 12;
const BOUNDED = { timeout: 20_000 };

describe('slow and hostile clients', () => {
  let sf: TestService;
  before(async () => {
    sf = await startTestService({
      TRUST_PROXY: '1',
      HTTP_HEADERS_TIMEOUT_MS: '400',
      HTTP_REQUEST_TIMEOUT_MS: '1000',
      HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
      SSE_PER_ANONYMOUS_ADDRESS: '2',
      SSE_ANONYMOUS_TOTAL: '3',
      SSE_HEARTBEAT_MS: '200',
    });
  });
  after(() => sf.stop());

  /** Writes `head`, then `drip` one piece at a time until the server closes the connection. */
  async function trickle(head: string, drip: string, everyMs: number): Promise<string> {
    const socket = await openSocket(sf.url);
    const closed = readUntilClosed(socket);
    socket.write(head);
    const timer = setInterval(() => socket.writable && socket.write(drip), everyMs);
    try {
      return await closed;
    } finally {
      clearInterval(timer);
    }
  }

  function assert408(raw: string): void {
    const res = parseResponse(raw);
    assert.equal(res.status, 408, raw);
    assert.equal(res.body.error_code, 'SF_REQUEST_TIMEOUT');
    assert.equal(res.body.code, 408);
    assert.match(res.headers['content-type'] ?? '', /^application\/json/);
  }

  it('cuts off three bodies sent 1 byte at a time, with 408', BOUNDED, async () => {
    const head =
      'POST /api/v1/key/trial HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nX-Forwarded-For: 198.51.100.1\r\n\r\n{';
    const answers = await Promise.all([0, 1, 2].map(() => trickle(head, ' ', 150)));
    for (const raw of answers) assert408(raw);
  });

  it('cuts off headers sent one line at a time, with 408', BOUNDED, async () => {
    assert408(await trickle('GET /api/v1/activity HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n', 100));
  });

  it('closes a connection that never sends a byte', BOUNDED, async () => {
    const socket = await openSocket(sf.url);
    const raw = await readUntilClosed(socket);
    if (raw) assert408(raw);
  });

  it('keeps a stream open past the request timeout: only receiving the request is bounded', BOUNDED, async () => {
    const controller = new AbortController();
    const res = await fetch(`${sf.url}/api/v1/activity/stream`, {
      headers: { 'x-forwarded-for': '198.51.100.50' },
      signal: controller.signal,
    });
    assert.equal(res.status, 200);
    const frames = await readSse(res, (f) => f.filter((x) => x.event === 'heartbeat').length >= 8);
    assert.ok(frames.length >= 8);
    controller.abort();
  });

  it('caps anonymous activity streams per address and in total (429 SF_STREAM_LIMIT)', BOUNDED, async () => {
    const open: AbortController[] = [];
    const stream = async (ip: string) => {
      const controller = new AbortController();
      const res = await fetch(`${sf.url}/api/v1/activity/stream`, { headers: { 'x-forwarded-for': ip }, signal: controller.signal });
      if (res.status === 200) open.push(controller);
      else await res.text();
      return res;
    };
    try {
      assert.equal((await stream('198.51.100.60')).status, 200);
      assert.equal((await stream('198.51.100.60')).status, 200);
      const third = await stream('198.51.100.60');
      assert.equal(third.status, 429, 'a third stream from one address');
      assert.equal(third.headers.get('content-type')?.startsWith('application/json'), true);
      assert.equal((await stream('198.51.100.61')).status, 200, 'another address has its own slots');
      const overTotal = await stream('198.51.100.62');
      assert.equal(overTotal.status, 429, 'the total of anonymous streams is reached');
      const key = (await sf.mintKey()).api_key;
      const keyed = await fetch(`${sf.url}/api/v1/activity/stream`, { headers: { 'x-api-key': key } });
      assert.equal(keyed.status, 200, 'a key has its own slot, outside the anonymous total');
      await keyed.body?.cancel();
    } finally {
      for (const controller of open) controller.abort();
    }
    // Slots come back once the server has seen the streams close.
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      const res = await stream('198.51.100.62');
      status = res.status;
      if (status !== 200) await sleep(50);
    }
    assert.equal(status, 200);
    for (const controller of open) controller.abort();
  });

  it(`answers connection ${MAX_CONNECTIONS + 1} and beyond with 503 in the contract shape, and recovers`, BOUNDED, async () => {
    const held: Socket[] = [];
    let refused: ReturnType<typeof parseResponse> | null = null;
    try {
      for (let i = 0; i < MAX_CONNECTIONS + 10 && !refused; i++) {
        const socket = await openSocket(sf.url);
        socket.on('error', () => {});
        socket.write('GET /_healthz HTTP/1.1\r\nHost: x\r\n\r\n');
        const res = await readOneResponse(socket);
        if (res.status === 503) refused = res;
        else {
          assert.equal(res.status, 200, res.text);
          held.push(socket);
        }
      }
      assert.ok(refused, `no refusal after ${held.length} held connections`);
      assert.ok(held.length <= MAX_CONNECTIONS, `${held.length} connections held`);
      assert.equal(refused.body.error_code, 'SF_UNAVAILABLE');
      assert.equal(refused.body.code, 503);
      assert.equal(refused.headers['retry-after'], '1');
    } finally {
      for (const socket of held) socket.destroy();
    }
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await fetch(`${sf.url}/_healthz`).catch(() => ({ status: 0 }))).status;
      if (status !== 200) await sleep(50);
    }
    assert.equal(status, 200, 'connections are accepted again once the held ones closed');
  });
});
