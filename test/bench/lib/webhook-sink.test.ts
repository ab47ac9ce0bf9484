import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { request } from 'undici';
import { startWebhookSink, type WebhookSink } from './webhook-sink.ts';

const SECRET = `whsec_${Buffer.from('a fleet bench secret of 32 bytes').toString('base64')}`;
const body = (deployment: string, n: number) =>
  JSON.stringify({
    type: 'signal',
    data: { id: `sig_${deployment}_${n}`, deployment_id: deployment, bar_time: '2026-12-02T07:00:00.000Z' },
  });

/** Headers signed by the reference implementation (standardwebhooks), not by ours. */
function signed(secret: string, payload: string, id = 'msg_1', at = new Date()) {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, payload),
  };
}

/** Raw bytes on one connection, as given; resolves with everything answered once `answers` responses came. */
function raw(url: string, chunks: string[], answers: number): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let got = '';
    socket.on('data', (d) => {
      got += d.toString();
      if (got.split('HTTP/1.1 ').length - 1 >= answers) {
        socket.destroy();
        resolve(got);
      }
    });
    socket.on('error', reject);
    socket.on('end', () => resolve(got));
    void (async () => {
      for (const chunk of chunks) {
        socket.write(chunk);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
  });
}

describe('the fleet bench webhook sink', () => {
  let sink: WebhookSink;
  before(async () => {
    sink = await startWebhookSink();
    sink.secret('dep_a', SECRET);
  });
  after(() => sink.stop());

  it('keeps what the bench reads of a webhook signed with its deployment secret, verified', async () => {
    const payload = body('dep_a', 0);
    const res = await request(`${sink.url}/hook/1`, { method: 'POST', headers: signed(SECRET, payload), body: payload });
    assert.equal(res.statusCode, 200);
    assert.equal(await res.body.text(), 'ok');
    const hook = sink.hooks.at(-1)!;
    assert.deepEqual(
      { ...hook, at: typeof hook.at },
      {
        path: '/hook/1',
        signalId: 'sig_dep_a_0',
        deploymentId: 'dep_a',
        barTime: Date.parse('2026-12-02T07:00:00.000Z'),
        verified: true,
        at: 'number',
      },
    );
  });

  it('finds a signature false under another secret, over another body, or five minutes old; null for an unknown deployment', async () => {
    const payload = body('dep_a', 1);
    const other = `whsec_${Buffer.from('another secret, also of 32 bytes').toString('base64')}`;
    const sends = [
      { headers: signed(other, payload), body: payload },
      { headers: signed(SECRET, payload), body: payload.replace('sig_dep_a_1', 'sig_dep_a_9') },
      { headers: signed(SECRET, payload, 'msg_2', new Date(Date.now() - 301_000)), body: payload },
      { headers: signed(SECRET, body('dep_b', 0)), body: body('dep_b', 0) },
    ];
    for (const send of sends) await (await request(`${sink.url}/hook/1`, { method: 'POST', ...send })).body.text();
    assert.deepEqual(
      sink.hooks.slice(-4).map((h) => h.verified),
      [false, false, false, null],
    );
  });

  it('reads requests split anywhere across reads and several in one read, answering each in order', async () => {
    const payloads = [body('dep_a', 2), body('dep_a', 3), body('dep_a', 4)];
    const wire = payloads.map((p, i) => {
      const headers = Object.entries(signed(SECRET, p, `msg_${i}`))
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      return `POST /hook/2 HTTP/1.1\r\nhost: x\r\n${headers}content-length: ${Buffer.byteLength(p)}\r\n\r\n${p}`;
    });
    const all = wire.join('');
    const before = sink.hooks.length;
    // The first request cut inside its head and again inside its body; the other two in one write.
    const cuts = [20, wire[0]!.length - 10, wire[0]!.length];
    const answered = await raw(
      sink.url,
      [all.slice(0, cuts[0]), all.slice(cuts[0], cuts[1]), all.slice(cuts[1], cuts[2]), all.slice(cuts[2])],
      3,
    );
    assert.equal(answered.split('HTTP/1.1 200 OK').length - 1, 3);
    assert.deepEqual(
      sink.hooks.slice(before).map((h) => [h.signalId, h.verified]),
      [
        ['sig_dep_a_2', true],
        ['sig_dep_a_3', true],
        ['sig_dep_a_4', true],
      ],
    );
  });

  it('answers 400 and closes on what is not a webhook POST with a length, keeping nothing of it', async () => {
    const before = sink.hooks.length;
    const answered = await raw(sink.url, ['GET /hook/1 HTTP/1.1\r\nhost: x\r\n\r\n'], 1);
    assert.match(answered, /^HTTP\/1\.1 400/);
    const chunked = await raw(sink.url, ['POST /hook/1 HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n'], 1);
    assert.match(chunked, /^HTTP\/1\.1 400/);
    assert.equal(sink.malformed, 2);
    assert.equal(sink.hooks.length, before);
  });
});
