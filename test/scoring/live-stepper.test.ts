/**
 * The live stepper says when an entry it announced did not fill: a bar announces an entry judged
 * on the expected next open, the bar that comes opens at a time the session filter excludes (a
 * feed gap), and that bar carries the cancel — the engine holds no position, the backtest over the
 * same bars has no trade there, and a stepper resumed from the snapshot between the two says the
 * same. A model trained in the real sandbox on real HistData EURUSD 15-min bars, real ONNX scoring
 * (test/helpers/cancelled-entry.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runBacktest } from '../../src/backtest/index.ts';
import { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import { engineOptions, scoreWindow, sliceBars, type LiveBar } from '../../src/scoring/index.ts';
import { CODE, cancelledEntry, liveStepper, START, stepAll, type CancelledEntry } from '../helpers/cancelled-entry.ts';
import { log } from '../helpers/nats.ts';

/** Whether a position of `side` opened at bar `b`'s open (still open after it, or closed inside it). */
const filled = (b: LiveBar, side: number) =>
  b.positions!.some((p) => p.entryTs === b.ts && p.side === side) || b.closed.some((t) => t.entryTs === b.ts && t.side === side);

/** The contract, bar by bar: an announced entry either fills at the next bar or that bar cancels it; nothing else cancels. */
function checkAnnouncements(out: LiveBar[]): void {
  for (let i = 1; i < out.length; i++) {
    const announced = out[i - 1]!.opened;
    const b = out[i]!;
    if (announced === 0) assert.equal(b.cancelled, 0, `${new Date(b.ts).toISOString()}: a cancel with nothing announced`);
    else assert.equal(b.cancelled, filled(b, announced) ? 0 : announced, `${new Date(b.ts).toISOString()}: announced ${announced}`);
  }
}

describe('LiveStepper: an announced entry whose fill bar comes at an excluded time', () => {
  let runtime: StrategyRuntime;
  let c: CancelledEntry;

  before(async () => {
    runtime = await StrategyRuntime.start({ log, size: 1 });
    c = await cancelledEntry(runtime);
  });
  after(async () => {
    await c?.scorer.close();
    await runtime?.stop();
  });

  it('without the gap, every announced entry fills or is cancelled at the next bar, and this one fills', () => {
    assert.equal(c.full.length, c.bars.ts.length - START);
    checkAnnouncements(c.full);
    const next = c.full[c.k - START + 1]!;
    assert.ok(filled(next, c.side), 'the entry fills at the next bar');
    assert.equal(next.cancelled, 0);
  });

  it('cancels on the bar that came, opens nothing there, the backtest agrees, and a restart says the same', async () => {
    const { bars, spec, scorer, gapped, k, side, nine } = c;
    const ts = bars.ts;
    const gts = gapped.columns().ts;
    const out = await stepAll(liveStepper(runtime, c, gapped, ts[START - 1]!), gts[gts.length - 1]!);
    checkAnnouncements(out);
    const at = out.findIndex((b) => b.ts === nine);
    assert.equal(new Date(nine).getUTCHours(), 21, 'the bar after the gap opens outside the session');
    assert.equal(out[at - 1]!.ts, ts[k], 'the 21:00 bar follows the signal bar');
    assert.equal(out[at - 1]!.opened, side, 'the same entry announced (the bars before are the same)');
    assert.equal(out[at]!.cancelled, side, 'the 21:00 bar cancels it');
    assert.deepEqual(out[at]!.positions, [], 'the engine holds no position');
    assert.ok(!out[at]!.closed.some((t) => t.entryTs === nine), 'nothing entered and closed inside the bar');

    // The backtest over the same bars: no trade enters at 21:00, and its trades are the stepper's.
    const g = gapped.columns();
    const from = gapped.lowerBound(ts[START]!);
    const window = sliceBars(g, from - spec.warmup, g.ts.length);
    const { signals, mask } = await scoreWindow((w) => runtime.features(CODE, w), scorer, spec, window, spec.warmup);
    const backtest = runBacktest(engineOptions(spec, null), window, signals, { from: spec.warmup, to: window.ts.length }, mask);
    assert.ok(!backtest.trades.some((t) => t.entryTs === nine), 'the backtest enters nothing at 21:00');
    assert.deepEqual(
      out.flatMap((b) => b.closed).map((t) => [t.side, t.entryTs, t.exitTs, t.pnl]),
      backtest.trades.filter((t) => t.reason !== 'end').map((t) => [t.side, t.entryTs, t.exitTs, t.pnl]),
      'the stepper trades as the backtest does',
    );

    // A restart between the signal bar and the bar that came: the resumed engine says the same.
    const first = liveStepper(runtime, c, gapped, ts[START - 1]!);
    await stepAll(first, ts[k]!);
    const [bar] = await stepAll(liveStepper(runtime, c, gapped, first.lastBarTs, JSON.parse(JSON.stringify(first.snapshot()))), nine);
    assert.equal(bar!.ts, nine);
    assert.equal(bar!.cancelled, side, 'the resumed stepper cancels it too');
  });
});
