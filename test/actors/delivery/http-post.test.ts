/**
 * One POST to a checked address against a local server: it connects to the address it was given
 * (not what the host name would resolve to), keeps its connection for the next, and an abort (the
 * delivery lease ran out) ends a POST in flight at once, or sends nothing when it came first.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { PinnedPoster } from '../../../actors/delivery/http-post.ts';

describe('PinnedPoster', () => {
  let server: Server;
  let port: number;
  const seen: Array<{ path: string; host: string; body: string; socket: number }> = [];
  const hanging: ServerResponse[] = [];
  const sockets = new Map<unknown, number>();
  const poster = new PinnedPoster(5_000);

  before(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (!sockets.has(req.socket)) sockets.set(req.socket, sockets.size);
        seen.push({ path: req.url ?? '', host: req.headers.host ?? '', body, socket: sockets.get(req.socket)! });
        if (req.url === '/hang') return void hanging.push(res);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    poster.close();
    for (const res of hanging) res.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  const post = (path: string, abort?: AbortSignal) =>
    poster.post(
      new URL(`http://hooks.example:${port}${path}`),
      'hooks.example',
      { address: '127.0.0.1', family: 4 },
      { 'content-type': 'application/json' },
      '{"n":1}',
      abort,
    );

  it('posts to the pinned address under the URL’s host name, reusing its connection', async () => {
    for (const outcome of [await post('/a'), await post('/a')]) {
      assert.ok(outcome.answered, JSON.stringify(outcome));
      assert.deepEqual([outcome.status, outcome.text], [200, 'ok']);
    }
    const last = seen.slice(-2);
    assert.deepEqual(
      last.map((r) => [r.path, r.host, r.body]),
      [
        ['/a', `hooks.example:${port}`, '{"n":1}'],
        ['/a', `hooks.example:${port}`, '{"n":1}'],
      ],
    );
    assert.equal(last[0]!.socket, last[1]!.socket, 'kept alive for the next POST');
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
});
