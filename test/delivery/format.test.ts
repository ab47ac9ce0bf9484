import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChatPacer } from '../../actors/delivery/index.ts';
import { telegramMessage } from '../../src/delivery/index.ts';
import type { SignalEvent } from '../../schemas/live.ts';

const base: SignalEvent = {
  id: 'sig_dep_x_1714564800000_0',
  deployment_id: 'dep_x',
  model: '7_USDJPY_1h_Carry <v2>',
  model_name: 'Carry <v2> & co',
  symbol: 'USDJPY',
  timeframe: '1h',
  action: 'open',
  side: 'short',
  price: 154.3217,
  stop_loss: 154.8217,
  take_profit: null,
  reason: 'signal',
  p_up: 0.31,
  pnl: null,
  bar_time: '2024-05-01T12:00:00.000Z',
  created_at: '2024-05-01T13:00:00.050Z',
};

describe('Telegram message format', () => {
  it('shows side, action, symbol, price, SL/TP, reason and model, HTML-escaped', () => {
    const text = telegramMessage(base);
    assert.equal(
      text,
      [
        '🔴 <b>OPEN SHORT</b> · USDJPY 1h',
        'Price <b>154.322</b>',
        'SL 154.822 · TP —',
        'Reason: model signal (p↑ 0.31)',
        'Model: Carry &lt;v2&gt; &amp; co',
        'Bar 2024-05-01 12:00 UTC',
      ].join('\n'),
    );
  });

  it("calls a meta-labelled model's probability P(win) of the rule's trade, a direction model's p↑", () => {
    const meta = telegramMessage({ ...base, labels: 'meta', p_up: 0.634 });
    assert.match(meta, /^Reason: model signal \(P\(win\) 0\.63\)$/m);
    assert.doesNotMatch(meta, /p↑/);
    assert.match(telegramMessage({ ...base, p_up: 0.634 }), /^Reason: model signal \(p↑ 0\.63\)$/m);
    // An exit has no probability, whatever the model.
    assert.match(
      telegramMessage({ ...base, labels: 'meta', action: 'close', reason: 'SL', p_up: null, pnl: 3 }),
      /^Reason: stop-loss hit$/m,
    );
  });

  it('shows the exit and P&L of a close', () => {
    const text = telegramMessage({
      ...base,
      symbol: 'EURUSD',
      action: 'close',
      side: 'long',
      price: 1.08712,
      reason: 'TP',
      p_up: null,
      pnl: -12.5,
    });
    assert.match(text, /^⚪ <b>CLOSE LONG<\/b> · EURUSD 1h\nExit <b>1\.08712<\/b>\nP&amp;L −\$12\.50\nReason: take-profit hit\n/);
  });

  it('says a cancel did not enter, and when its bar came', () => {
    // 2024-05-01 was a Wednesday.
    const cancel: SignalEvent = {
      ...base,
      action: 'cancel',
      side: 'long',
      price: 154.1,
      stop_loss: null,
      p_up: null,
      bar_time: '2024-05-01T21:00:00.000Z',
    };
    assert.equal(
      telegramMessage(cancel),
      [
        '❌ <b>CANCELLED LONG</b> · USDJPY 1h',
        "Not entered: the bar came Wednesday 21:00 UTC, outside the strategy's session or days",
        'Model: Carry &lt;v2&gt; &amp; co',
        'Bar 2024-05-01 21:00 UTC',
      ].join('\n'),
    );
  });
});

describe('ChatPacer', () => {
  it('keeps each chat in FIFO order, spaced by the chat interval, while other chats go in parallel', async () => {
    const pacer = new ChatPacer({ chatIntervalMs: 200, globalPerSecond: 1000 });
    // A timer of one chat interval, started before the first send: a send that comes before it
    // fires did not wait out chat a's interval (an ordering of timers, whatever the machine's speed).
    let intervalOver = false;
    const interval = new Promise<void>((r) => setTimeout(() => r(void (intervalOver = true)), 200));
    const log: Array<[string, number, number, boolean]> = [];
    const t0 = Date.now();
    await Promise.all(
      ['a', 'b', 'a', 'b', 'a'].map((chat, i) => pacer.run(chat, async () => void log.push([chat, i, Date.now() - t0, intervalOver]))),
    );
    await interval;
    assert.deepEqual(
      log.filter((l) => l[0] === 'a').map((l) => l[1]),
      [0, 2, 4],
    );
    assert.deepEqual(
      log.filter((l) => l[0] === 'b').map((l) => l[1]),
      [1, 3],
    );
    const a = log.filter((l) => l[0] === 'a').map((l) => l[2]);
    assert.ok(a[1]! - a[0]! >= 190 && a[2]! - a[1]! >= 190, `chat a sends at ${a}`);
    const b = log.filter((l) => l[0] === 'b');
    assert.equal(b[0]![3], false, 'chat b sends its first message while chat a waits out its interval');
  });

  it('spaces sends over all chats by the overall rate', async () => {
    const pacer = new ChatPacer({ chatIntervalMs: 0, globalPerSecond: 20 });
    const times: number[] = [];
    await Promise.all(Array.from({ length: 6 }, (_, i) => pacer.run(`chat${i}`, async () => void times.push(Date.now()))));
    assert.ok(times.at(-1)! - times[0]! >= 5 * 50 - 10, `6 sends over ${times.at(-1)! - times[0]!} ms`);
  });

  it('hold() keeps the chat waiting (a 429) and later messages stay behind', async () => {
    const pacer = new ChatPacer({ chatIntervalMs: 0, globalPerSecond: 1000 });
    const order: string[] = [];
    const first = pacer.run('c', async (hold) => {
      await hold(150);
      order.push('first');
    });
    const second = pacer.run('c', async () => void order.push('second'));
    await Promise.all([first, second]);
    assert.deepEqual(order, ['first', 'second']);
  });
});
