/**
 * What a TICKS reader makes of its publishers' clocks: the least of those still heard; "wait"
 * while one may still speak (a publisher held up is silent); its own clock only once none spoke
 * for the silent time.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FeedClocks } from '../../src/market/index.ts';

describe('FeedClocks', () => {
  it('a reader that just started waits for the silent time before it goes by its own clock', () => {
    const clocks = new FeedClocks(1_000, 15_000);
    assert.equal(clocks.until(1_000), Number.NEGATIVE_INFINITY, 'a held-up publisher is silent: wait');
    assert.equal(clocks.until(16_000), Number.NEGATIVE_INFINITY);
    assert.equal(clocks.until(16_001), null, 'no publisher told a clock for the silent time: the reader’s own');
  });

  it('answers the least clock of the publishers heard: a publisher held up holds the others back', () => {
    const clocks = new FeedClocks(0, 15_000);
    clocks.hear({ publisher: 'synthetic.a', until: 5_000 }, 100);
    clocks.hear({ publisher: 'kafka.b', until: 3_000 }, 100);
    assert.equal(clocks.until(200), 3_000);
    clocks.hear({ publisher: 'kafka.b', until: 9_000 }, 300);
    assert.equal(clocks.until(400), 5_000);
  });

  it('never moves a publisher’s clock back (an older clock heard late changes nothing)', () => {
    const clocks = new FeedClocks(0, 15_000);
    clocks.hear({ publisher: 'p', until: 8_000 }, 100);
    clocks.hear({ publisher: 'p', until: 7_000 }, 200);
    assert.equal(clocks.until(300), 8_000);
  });

  it('forgets a publisher silent for longer than the silent time', () => {
    const clocks = new FeedClocks(0, 15_000);
    clocks.hear({ publisher: 'dead', until: 1_000 }, 0);
    clocks.hear({ publisher: 'live', until: 50_000 }, 10_000);
    assert.equal(clocks.until(15_000), 1_000, 'still heard within the silent time');
    assert.equal(clocks.until(15_001), 50_000, 'the silent one no longer holds the bars');
    assert.equal(clocks.until(25_000), 50_000);
    assert.equal(clocks.until(25_001), null, 'none heard for the silent time: the reader’s own clock');
  });
});
