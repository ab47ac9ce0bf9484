/** What a TICKS reader makes of its publishers' clocks: the least of those still heard, none when none tells one. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FeedClocks } from '../../src/market/index.ts';

describe('FeedClocks', () => {
  it('answers null while no publisher told a clock (the reader then goes by its own)', () => {
    assert.equal(new FeedClocks().until(1_000), null);
  });

  it('answers the least clock of the publishers heard: a publisher held up holds the others back', () => {
    const clocks = new FeedClocks(15_000);
    clocks.hear({ publisher: 'synthetic.a', until: 5_000 }, 100);
    clocks.hear({ publisher: 'kafka.b', until: 3_000 }, 100);
    assert.equal(clocks.until(200), 3_000);
    clocks.hear({ publisher: 'kafka.b', until: 9_000 }, 300);
    assert.equal(clocks.until(400), 5_000);
  });

  it('never moves a publisher’s clock back (an older clock heard late changes nothing)', () => {
    const clocks = new FeedClocks(15_000);
    clocks.hear({ publisher: 'p', until: 8_000 }, 100);
    clocks.hear({ publisher: 'p', until: 7_000 }, 200);
    assert.equal(clocks.until(300), 8_000);
  });

  it('forgets a publisher silent for longer than the silent time', () => {
    const clocks = new FeedClocks(15_000);
    clocks.hear({ publisher: 'dead', until: 1_000 }, 0);
    clocks.hear({ publisher: 'live', until: 50_000 }, 10_000);
    assert.equal(clocks.until(15_000), 1_000, 'still heard within the silent time');
    assert.equal(clocks.until(15_001), 50_000, 'the silent one no longer holds the bars');
    assert.equal(clocks.until(25_001), null, 'none heard lately');
  });
});
