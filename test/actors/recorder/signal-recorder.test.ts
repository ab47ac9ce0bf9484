/**
 * The signal recorder on a real nats-server and a real chdb store: every signal of the SIGNALS
 * stream ends in the `signals` table once (a repeat is harmless), a failed insert is redelivered
 * and stored later, a malformed message is skipped, and a restarted recorder resumes where its
 * durable consumer stopped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignalRecorder } from '../../../actors/recorder/index.ts';
import { ensureStream } from '../../../src/bus/index.ts';
import { SignalsRepo } from '../../../src/store/index.ts';
import type { SignalEvent } from '../../../schemas/live.ts';
import { Streams, Topics } from '../../../schemas/messages.ts';
import { log, startNats, until, type TestNats } from '../../helpers/nats.ts';
import { tempStore } from '../../store/temp-store.ts';

const store = tempStore('recorder');

let bar = 0;
function signal(deployment: string, n: number): SignalEvent {
  const barOpen = Date.UTC(2024, 4, 1) + ++bar * 60_000;
  return {
    id: `sig_${deployment}_${barOpen}_${n}`,
    deployment_id: deployment,
    model: `1_EURUSD_1min_m`,
    model_name: 'm',
    symbol: 'EURUSD',
    timeframe: '1min',
    action: 'open',
    side: n % 2 ? 'short' : 'long',
    price: 1.08 + n / 10_000,
    stop_loss: null,
    take_profit: null,
    reason: 'signal',
    p_up: 0.6,
    pnl: null,
    bar_time: new Date(barOpen).toISOString(),
    created_at: new Date(barOpen + 60_000).toISOString(),
  };
}

describe('SignalRecorder', () => {
  let nats: TestNats;
  let repo: SignalsRepo;
  const publish = (event: SignalEvent) =>
    nats.bus.js.publish(Topics.signal.subject(event.deployment_id), JSON.stringify(event), { msgID: event.id });
  const stored = async (deployment: string) => (await repo.byDeployment(deployment)).map((r) => r.id);

  before(async () => {
    nats = await startNats('recorder');
    await ensureStream(nats.bus, Streams.signals);
    repo = new SignalsRepo(store.client);
  });
  after(() => nats?.close());

  it('stores every signal of the stream once, in the table, and acknowledges it', async () => {
    const recorder = new SignalRecorder({ bus: nats.bus, repo, log });
    await recorder.start();
    const sent = Array.from({ length: 25 }, (_, n) => signal('dep_a', n));
    for (const event of sent) await publish(event);
    await until('25 stored', () => recorder.stats().stored === 25);
    await recorder.stop();
    assert.deepEqual(
      await stored('dep_a'),
      sent.map((e) => e.id),
    );
    const row = (await repo.byDeployment('dep_a'))[3]!;
    assert.deepEqual([row.side, row.price, row.bar_time], [sent[3]!.side, sent[3]!.price, Date.parse(sent[3]!.bar_time)]);
  });

  it('redelivers a signal whose insert failed, and stores it then; skips a malformed message', async () => {
    let failures = 2;
    const flaky = {
      insert: (rows: SignalEvent[]) => (failures-- > 0 ? Promise.reject(new Error('ClickHouse unavailable')) : repo.insert(rows)),
    };
    const recorder = new SignalRecorder({ bus: nats.bus, repo: flaky, log });
    await recorder.start();
    await nats.bus.js.publish(Topics.signal.subject('dep_b'), '{"not":"a signal"}');
    const event = signal('dep_b', 0);
    await publish(event);
    await until('stored after two failures', () => recorder.stats().stored === 1);
    await recorder.stop();
    assert.deepEqual(recorder.stats(), { stored: 1, malformed: 1, failed: 2 });
    assert.deepEqual(await stored('dep_b'), [event.id]);
  });

  it('resumes after a restart from where its durable consumer stopped: what arrived meanwhile is stored, nothing twice', async () => {
    const first = new SignalRecorder({ bus: nats.bus, repo, log });
    await first.start();
    const before = signal('dep_c', 0);
    await publish(before);
    await until('the first stored', () => first.stats().stored === 1);
    await first.stop();
    // While no recorder runs.
    const meanwhile = [signal('dep_c', 1), signal('dep_c', 2)];
    for (const event of meanwhile) await publish(event);
    const second = new SignalRecorder({ bus: nats.bus, repo, log });
    await second.start();
    await until('the two of the gap stored', () => second.stats().stored === 2);
    await second.stop();
    assert.equal(second.stats().stored, 2, 'only what it had not acknowledged');
    assert.deepEqual(
      await stored('dep_c'),
      [before, ...meanwhile].map((e) => e.id),
    );
  });
});
