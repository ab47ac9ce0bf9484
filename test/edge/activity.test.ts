import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readSse, startTestService, type TestService } from '../helpers/service.ts';

describe('GET /api/v1/activity and /api/v1/activity/stream', () => {
  let sf: TestService;
  let key: string;

  before(async () => {
    sf = await startTestService({ SSE_HEARTBEAT_MS: '300', TRUST_PROXY: '1' });
    key = (await sf.mintKey('streamer')).api_key;
  });
  after(() => sf.stop());

  const emit = (kind: 'TRAINED' | 'DEPLOYED' | 'SIGNAL_FIRED', n: number) =>
    sf.service.domain.activity.bus.emit({
      kind,
      bot: 'streamer',
      model: { name: `Model ${n}`, symbol: 'EURUSD', timeframe: '15min' },
      metrics: { n },
    });

  it('lists public events without a key, newest first, with limit bounds', async () => {
    for (let i = 0; i < 3; i++) await emit('TRAINED', i);
    const id = await emit('DEPLOYED', 3);
    const res = await waitForList(sf, `/api/v1/activity?limit=2`, (b) => b.events[0]?.id === id);
    assert.equal(res.count, 2);
    assert.equal(res.events[0].kind, 'DEPLOYED');
    assert.deepEqual(Object.keys(res.events[0]).sort(), ['bot', 'id', 'kind', 'metrics', 'model', 'ts']);
    assert.equal(typeof res.next_before, 'string');

    const older = await sf.api('GET', `/api/v1/activity?limit=200&before=${encodeURIComponent(res.next_before)}`);
    assert.equal(older.status, 200);
    assert.equal(older.body.count, 2, 'the rest of the four events');

    assert.equal((await sf.api('GET', '/api/v1/activity?limit=201')).status, 400);
    assert.equal((await sf.api('GET', '/api/v1/activity?kind=BOGUS')).status, 400);
    assert.equal((await sf.api('GET', '/api/v1/activity?before=yesterday')).status, 400);
    const kinds = await sf.api('GET', '/api/v1/activity?kind=DEPLOYED');
    assert.ok(kinds.body.events.every((e: { kind: string }) => e.kind === 'DEPLOYED'));
    const since = await sf.api('GET', `/api/v1/activity?since=${id - 2}`);
    assert.deepEqual(
      since.body.events.map((e: { id: number }) => e.id),
      [id - 1, id],
    );
  });

  it('streams new events as `event: <KIND>` frames with ids, and heartbeats', async () => {
    const res = await fetch(`${sf.url}/api/v1/activity/stream`, { headers: { 'x-api-key': key } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const reading = readSse(res, (frames) => frames.some((f) => f.event === 'SIGNAL_FIRED') && frames.some((f) => f.event === 'heartbeat'));
    await new Promise((r) => setTimeout(r, 100));
    const id = await emit('SIGNAL_FIRED', 42);
    const frames = await reading;
    const signal = frames.find((f) => f.event === 'SIGNAL_FIRED')!;
    assert.equal(signal.id, String(id));
    const data = JSON.parse(signal.data);
    assert.equal(data.id, id);
    assert.equal(data.metrics.n, 42);
    assert.ok(frames.some((f) => f.event === 'heartbeat' && JSON.parse(f.data).ts));
  });

  it('allows one concurrent stream per key and frees the slot when it closes', async () => {
    // The stream of the previous test may take a moment to be noticed as closed.
    const controller = new AbortController();
    const first = await openStream(sf, key, controller.signal);
    assert.equal(first.status, 200);
    const second = await fetch(`${sf.url}/api/v1/activity/stream`, { headers: { 'x-api-key': key } });
    assert.equal(second.status, 429);
    assert.ok(Number(second.headers.get('retry-after')) >= 1);
    assert.deepEqual(Object.keys(await second.json()).sort(), ['code', 'error', 'error_code']);

    const other = (await sf.mintKey()).api_key;
    const otherStream = new AbortController();
    const third = await fetch(`${sf.url}/api/v1/activity/stream`, { headers: { 'x-api-key': other }, signal: otherStream.signal });
    assert.equal(third.status, 200, 'another key has its own slot');
    otherStream.abort();

    controller.abort();
    const again = await openStream(sf, key);
    assert.equal(again.status, 200, 'the slot is free once the first stream has closed');
    await again.body?.cancel();
  });

  it('resumes after Last-Event-ID without losing or repeating events', async () => {
    const a = await emit('TRAINED', 100);
    const b = await emit('TRAINED', 101);
    const c = await emit('DEPLOYED', 102);
    await waitForList(sf, '/api/v1/activity?limit=1', (body) => body.events[0]?.id === c);
    const res = await fetch(`${sf.url}/api/v1/activity/stream`, { headers: { 'last-event-id': String(a) } });
    const frames = await readSse(res, (f) => f.filter((x) => x.id).length >= 2);
    assert.deepEqual(
      frames.filter((f) => f.id).map((f) => Number(f.id)),
      [b, c],
    );
  });
  it('shows no side, price or levels of a live signal on any public surface (JSON and SSE)', async () => {
    const model = {
      name: 'Private',
      stem: '1_EURUSD_15min_Private',
      symbol: 'EURUSD' as const,
      timeframe: '15min' as const,
      model_type: 'XGBClassifier',
    };
    const before = await emit('TRAINED', 200);
    // What the model actor announces for each entry.
    const id = await sf.service.domain.activity.bus.emit({
      kind: 'SIGNAL_FIRED',
      bot: 'streamer',
      model,
      metrics: { side: 'long', price: 1.08423 },
    });
    const listed = await waitForList(sf, '/api/v1/activity?kind=SIGNAL_FIRED', (b) => b.events[0]?.id === id);
    const controller = new AbortController();
    const streamed = await fetch(`${sf.url}/api/v1/activity/stream?since=${before}`, { signal: controller.signal });
    const frames = await readSse(streamed, (f) => f.some((x) => x.id === String(id)));
    controller.abort();
    const shown = [listed.events[0], JSON.parse(frames.find((f) => f.id === String(id))!.data)];
    for (const event of shown) {
      assert.deepEqual(Object.keys(event).sort(), ['bot', 'id', 'kind', 'model', 'ts'], JSON.stringify(event));
      assert.deepEqual(event.model, model);
      assert.ok(!/long|short|1\.0842|price|side|stop|take/.test(JSON.stringify(event)), JSON.stringify(event));
    }
  });
});

/** Opens a stream, retrying for a while as long as the answer is 429. */
async function openStream(sf: TestService, key: string, signal?: AbortSignal): Promise<Response> {
  let res: Response;
  for (let i = 0; ; i++) {
    res = await fetch(`${sf.url}/api/v1/activity/stream`, { headers: { 'x-api-key': key }, signal });
    if (res.status !== 429 || i === 40) return res;
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function waitForList(sf: TestService, path: string, ok: (body: any) => boolean): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const res = await sf.api('GET', path);
    if (res.status === 200 && ok(res.body)) return res.body;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${path} never satisfied the condition`);
}
