/**
 * One POST to a checked address against a local server: it connects to the address it was given
 * (not what the host name would resolve to), keeps its connection for the next but never for
 * another checked address, and an abort (the delivery lease ran out) ends a POST in flight at
 * once, or sends nothing when it came first.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { PinnedPoster } from '../../../actors/delivery/http-post.ts';

describe('PinnedPoster', () => {
  let server: Server;
  let port: number;
  const seen: Array<{ path: string; host: string; body: string; socket: number; local: string; auth?: string }> = [];
  const hanging: ServerResponse[] = [];
  const sockets = new Map<unknown, number>();
  const poster = new PinnedPoster(5_000);

  before(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (!sockets.has(req.socket)) sockets.set(req.socket, sockets.size);
        seen.push({
          path: req.url ?? '',
          host: req.headers.host ?? '',
          body,
          socket: sockets.get(req.socket)!,
          local: req.socket.localAddress ?? '',
          ...(req.headers.authorization ? { auth: req.headers.authorization } : {}),
        });
        if (req.url === '/hang') return void hanging.push(res);
        if (req.url === '/big') return void res.writeHead(500).end('x'.repeat(100_000));
        if (req.url === '/limited') return void res.writeHead(429, { 'x-ratelimit-reset-after': '1.5' }).end();
        res.writeHead(200).end('ok');
      });
    });
    // Every loopback address (127.0.0.1 and 127.0.0.2 are two checked addresses of one host name).
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    poster.close();
    for (const res of hanging) res.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  const post = (path: string, abort?: AbortSignal, address = '127.0.0.1', userinfo = '') =>
    poster.post(
      new URL(`http://${userinfo}hooks.example:${port}${path}`),
      { address, family: 4 },
      { 'content-type': 'application/json' },
      '{"n":1}',
      abort,
    );

  it('posts to the pinned address under the URL’s host name, reusing its connections', async () => {
    const outcomes = [];
    for (let i = 0; i < 6; i++) outcomes.push(await post('/a'));
    for (const outcome of outcomes) {
      assert.ok(outcome.answered, JSON.stringify(outcome));
      assert.deepEqual([outcome.status, outcome.text], [200, 'ok']);
    }
    const last = seen.slice(-6);
    assert.deepEqual(
      new Set(last.map((r) => [r.path, r.host, r.body, r.local].join(' '))),
      new Set([`/a hooks.example:${port} {"n":1} 127.0.0.1`]),
    );
    // The pool hands a POST that follows at once to a second connection while the first settles; no more are opened.
    assert.ok(new Set(last.map((r) => r.socket)).size <= 2, 'kept alive for the next POSTs');
  });

  it('a host checked again to another address gets a connection to that address, not the kept one', async () => {
    const first = await post('/a', undefined, '127.0.0.1');
    const moved = await post('/a', undefined, '127.0.0.2');
    assert.ok(first.answered && moved.answered);
    const [a, b] = seen.slice(-2);
    assert.deepEqual([a!.local, b!.local], ['127.0.0.1', '127.0.0.2']);
    assert.notEqual(a!.socket, b!.socket);
  });

  it('gives up on a receiver that does not answer within its timeout, and cuts the request off', async () => {
    const quick = new PinnedPoster(200);
    try {
      const hung = hanging.length;
      const outcome = await quick.post(new URL(`http://hooks.example:${port}/hang`), { address: '127.0.0.1', family: 4 }, {}, '{}');
      assert.deepEqual(outcome, { answered: false, error: 'no answer within 200 ms' });
      assert.equal(hanging.length, hung + 1);
      const res = hanging.at(-1)!;
      await new Promise((r) => (res.destroyed ? r(null) : res.once('close', r)));
    } finally {
      quick.close();
    }
  });

  it('sends the URL’s user and password as Basic authorization, and keeps only the start of a long answer', async () => {
    await post('/a', undefined, '127.0.0.1', 'bridge%20user:p%40ss@');
    assert.equal(seen.at(-1)!.auth, `Basic ${Buffer.from('bridge user:p@ss').toString('base64')}`);
    const big = await post('/big');
    assert.ok(big.answered);
    assert.equal(big.status, 500);
    assert.equal(big.text, 'x'.repeat(2_000));
    // The long answer was read to its end: the next POST still goes.
    assert.equal((await post('/b')).answered, true);
  });

  it('an abort ends a POST in flight at once; an abort before it sends nothing', async () => {
    const abort = new AbortController();
    const pending = post('/hang', abort.signal);
    while (hanging.length === 0) await new Promise((r) => setTimeout(r, 10));
    abort.abort();
    const outcome = await pending;
    assert.equal(outcome.answered, false);
    assert.match(outcome.answered ? '' : outcome.error, /aborted/);

    const before = seen.length;
    const early = new AbortController();
    early.abort();
    const none = await post('/never', early.signal);
    assert.equal(none.answered, false);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(seen.length, before, 'nothing reached the server');
    // The poster still works after both.
    assert.equal((await post('/b')).answered, true);
  });

  it('hands over the answer’s headers when asked (chat hooks’ rate limits), and an empty body as ""', async () => {
    const outcome = await post('/limited');
    assert.ok(outcome.answered);
    assert.deepEqual([outcome.status, outcome.text], [429, '']);
    assert.equal(outcome.headers['x-ratelimit-reset-after'], '1.5');
    assert.equal(outcome.headers['x-ratelimit-reset-after'], '1.5', 'parsed once, read again');
  });

  it('a URL kept by its sender still posts after the poster closed its pools (a new pool for it)', async () => {
    const own = new PinnedPoster(5_000);
    const url = new URL(`http://hooks.example:${port}/kept`);
    const address = { address: '127.0.0.1', family: 4 as const };
    try {
      assert.equal((await own.post(url, address, {}, '{}')).answered, true);
      own.close();
      const again = await own.post(url, address, {}, '{}');
      assert.ok(again.answered, JSON.stringify(again));
      assert.equal(again.status, 200);
    } finally {
      own.close();
    }
  });
});
