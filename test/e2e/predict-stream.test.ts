/**
 * The WebSocket `predictions` channel and on-demand `predict` of GET /api/v1/predict, on the real
 * service with a trained, deployed 1-minute model: its bars' predictions and its signals, with the
 * same ids and order as SSE and the SIGNALS stream; resume by the last signal id; another user's
 * model refused like REST.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignalEvent } from '../../schemas/live.ts';
import type { ServerMessage } from '../../schemas/stream.ts';
import { storedSignals } from '../helpers/live.ts';
import { readSse, startTestService, type TestService } from '../helpers/service.ts';
import { lastTwoClosedDays, trainModel } from '../helpers/training.ts';
import { connectStream, type StreamClient } from '../helpers/ws-client.ts';

const signalIds = (messages: ServerMessage[]) => messages.flatMap((m) => (m.type === 'signal' ? [m.signal.id] : []));

describe('WebSocket predictions of a deployed model', () => {
  let sf: TestService;
  let key: string;
  let deploymentId: string;
  let postCutoffDay: string;
  const clients: StreamClient[] = [];
  const connect = async (apiKey: string) => {
    const client = await connectStream(sf.url, { 'x-api-key': apiKey });
    clients.push(client);
    await client.next('welcome');
    return client;
  };
  /** A signal as the model actor would publish it (stored on SIGNALS with its id as msgID). */
  const inject = async (template: SignalEvent, barTs: number, n: number) => {
    const event = { ...template, id: `sig_${deploymentId}_${barTs}_${n}`, bar_time: new Date(barTs).toISOString() };
    await sf.service.bus.js.publish(`signals.${deploymentId}`, JSON.stringify(event), { msgID: event.id });
    return event;
  };

  before(async () => {
    // Five days: two that have ended after the first, partial one, whatever the weekday.
    sf = await startTestService({ HISTORY_DAYS: '5' });
    key = (await sf.mintKey('ws_trader')).api_key;
    // A post-cutoff day that has ended: REST and WebSocket predict the same bars even across a bar close.
    const [endDay, closedDay] = await lastTwoClosedDays(sf, key);
    postCutoffDay = closedDay;
    await trainModel(sf, key, { end_date: endDay });
    const res = await sf.api('POST', '/api/v1/deploy', { key, body: { model_name: 'Model 1', channels: ['sse'] } });
    assert.equal(res.status, 200, res.text);
    deploymentId = res.body.deployment_id;
  });
  after(async () => {
    for (const c of clients) c.ws.terminate();
    await sf.stop();
  });

  it('refuses another user’s model, and a model that is not deployed, with 404 like REST', async () => {
    const other = (await sf.mintKey('ws_snoop')).api_key;
    assert.equal((await fetch(`${sf.url}/api/v1/signals/Model%201/stream`, { headers: { 'x-api-key': other } })).status, 404);
    const client = await connect(other);
    client.send({ type: 'subscribe', ref: 'theirs', channel: { channel: 'predictions', model: 'Model 1' } });
    const refused = await client.next('error', (m) => m.ref === 'theirs');
    assert.equal(refused.code, 404);
    client.send({ type: 'predict', ref: 'p', request: { model_name: 'Model 1' } });
    assert.equal((await client.next('error', (m) => m.ref === 'p')).code, 404);
    client.close();
    const owner = await connect(key);
    owner.send({ type: 'subscribe', ref: 'none', channel: { channel: 'predictions', model: 'Never Deployed' } });
    assert.equal((await owner.next('error', (m) => m.ref === 'none')).code, 404);
    owner.close();
  });

  it('is one subscription whether the model is named by name or by stem', async () => {
    const stem = (await sf.api('GET', '/api/v1/deployed', { key })).body.deployed[0].model as string;
    const client = await connect(key);
    client.send({ type: 'subscribe', ref: 'by-name', channel: { channel: 'predictions', model: 'Model 1' } });
    await client.next('subscribed', (m) => m.ref === 'by-name');
    client.send({ type: 'subscribe', ref: 'by-stem', channel: { channel: 'predictions', model: stem } });
    const again = await client.next('error', (m) => m.ref === 'by-stem');
    assert.equal(again.code, 409, 'the same deployment: already subscribed');
    client.send({ type: 'unsubscribe', ref: 'off', channel: { channel: 'predictions', model: stem } });
    await client.next('unsubscribed', (m) => m.ref === 'off');
    client.close();
  });

  it('predict answers what POST /predict answers', async () => {
    const request = { model_name: 'Model 1', start_date: postCutoffDay, end_date: postCutoffDay };
    const rest = await sf.api('POST', '/api/v1/predict', { key, body: request });
    assert.equal(rest.status, 200, rest.text);
    const client = await connect(key);
    client.send({ type: 'predict', ref: 'mine', request });
    const answer = await client.next('predict_result', (m) => m.ref === 'mine', 60_000);
    assert.deepEqual(answer.result, rest.body);
    client.send({ type: 'predict', ref: 'bad', request: { model_name: 'Model 1', start_date: 'yesterday' } });
    assert.equal((await client.next('error', (m) => m.ref === 'bad')).code, 400);
    client.close();
  });

  it('streams each scored bar and the model’s signals: the same ids, in the same order, as SSE and the SIGNALS stream', async () => {
    const client = await connect(key);
    // From the start of time: every stored signal of the deployment first, then live ones.
    client.send({ type: 'subscribe', ref: 'p', channel: { channel: 'predictions', model: 'Model 1' }, since: '0' });
    await client.next('subscribed', (m) => m.ref === 'p');
    const sse = await fetch(`${sf.url}/api/v1/signals/Model%201/stream`, { headers: { 'x-api-key': key } });
    assert.equal(sse.status, 200);

    // The next bar the model scores (the synthetic feed closes one a minute).
    const scored = await client.next('prediction', () => true, 150_000);
    const p = scored.prediction;
    assert.equal(p.deployment_id, deploymentId);
    assert.equal(p.symbol, 'EURUSD');
    assert.equal(p.timeframe, '1min');
    assert.ok(p.p_up === null || (p.p_up >= 0 && p.p_up <= 1));
    assert.ok(['long', 'short', 'flat'].includes(p.decision));
    assert.equal(p.position.side === 'flat', p.position.open_positions === 0);
    // Its signals came just before it, in order.
    const at = client.messages.indexOf(scored);
    const before = client.messages.slice(at - p.signal_ids.length, at);
    assert.deepEqual(
      before.map((m) => (m.type === 'signal' ? m.signal.id : m.type)),
      p.signal_ids,
    );
    assert.ok(p.signal_ids.every((id) => id.startsWith(`sig_${deploymentId}_${Date.parse(p.bar.time)}_`)));

    // One more signal as the actor publishes them: both streams must carry it too.
    const [template] = await storedSignals(sf, deploymentId);
    assert.ok(template, 'the deployment announced its position');
    const marker = await inject(template, Date.parse(p.bar.time) + 1, 0);
    await client.next('signal', (m) => m.signal.id === marker.id);
    const frames = await readSse(sse, (f) => f.some((x) => x.id === marker.id), 20_000);
    const sseSignals = frames.filter((f) => f.event === 'signal').map((f) => SignalEvent.parse(JSON.parse(f.data)));

    const stored = await storedSignals(sf, deploymentId);
    const wsSignals = client.messages.flatMap((m) => (m.type === 'signal' ? [m.signal] : []));
    assert.deepEqual(wsSignals, stored, 'every stored signal, once, in order, as stored');
    // SSE opened a little later: what it got is the tail of the same sequence, the same events.
    assert.deepEqual(wsSignals.slice(wsSignals.length - sseSignals.length), sseSignals);
    client.close();
  });

  it('a client reconnecting with the last signal id it saw gets the ones it missed, then live ones, without gaps or duplicates', async () => {
    const [template] = await storedSignals(sf, deploymentId);
    // A bar before now (signals are stored after their bar) and after every signal of the deployment so far.
    const bar = Date.now() - 1000;
    const first = await connect(key);
    first.send({ type: 'subscribe', channel: { channel: 'predictions', model: 'Model 1' } });
    await first.next('subscribed');
    const a = [await inject(template!, bar, 0), await inject(template!, bar, 1)];
    await first.next('signal', (m) => m.signal.id === a[1]!.id);
    first.close();
    await first.closed;

    const missed = [await inject(template!, bar, 2), await inject(template!, bar, 3)];
    const second = await connect(key);
    second.send({ type: 'subscribe', ref: 'again', channel: { channel: 'predictions', model: 'Model 1' }, since: a[1]!.id });
    const subscribed = await second.next('subscribed', (m) => m.ref === 'again');
    const live = await inject(template!, bar, 4);
    await second.next('signal', (m) => m.signal.id === live.id);
    const ours = signalIds(second.messages).filter((id) => id.startsWith(`sig_${deploymentId}_${bar}_`));
    assert.deepEqual(ours, [missed[0]!.id, missed[1]!.id, live.id]);
    assert.equal(subscribed.resumed, 2);
    assert.equal(new Set(signalIds(second.messages)).size, signalIds(second.messages).length, 'no duplicates');
    assert.deepEqual(
      second.messages.flatMap((m) => (m.type === 'signal' && m.replayed ? [m.signal.id] : [])),
      missed.map((e) => e.id),
    );
    // A signal id of another deployment is refused, not taken for a bar time.
    second.send({ type: 'unsubscribe', channel: { channel: 'predictions', model: 'Model 1' } });
    await second.next('unsubscribed');
    second.send({ type: 'subscribe', ref: 'foreign', channel: { channel: 'predictions', model: 'Model 1' }, since: 'sig_dep_other_1_0' });
    assert.equal((await second.next('error', (m) => m.ref === 'foreign')).code, 400);
    second.close();
  });
});
