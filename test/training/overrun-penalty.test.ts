/** The overrun penalty: nice 19 for a user's jobs during the window after an overrun, then normal again; per user. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clockAt } from '../../src/lib/clock.ts';
import { OVERRUN_NICE, OverrunPenalty } from '../../src/training/index.ts';

describe('OverrunPenalty', () => {
  it('lowers a user’s priority for the window after an overrun, not another user’s, then lifts it', () => {
    let now = 1_000;
    const penalty = new OverrunPenalty(60_000, { clock: clockAt(() => now) });
    assert.equal(penalty.niceFor(1), 0, 'nothing overran yet');
    penalty.overran(1);
    assert.equal(OVERRUN_NICE, 19);
    assert.equal(penalty.niceFor(1), OVERRUN_NICE);
    assert.equal(penalty.niceFor(2), 0, 'only the user whose job overran');
    now += 59_999;
    assert.equal(penalty.niceFor(1), OVERRUN_NICE, 'still inside the window');
    penalty.overran(1); // another overrun restarts the window
    now += 59_999;
    assert.equal(penalty.niceFor(1), OVERRUN_NICE);
    now += 1;
    assert.equal(penalty.niceFor(1), 0, 'the window has passed');
  });
});
