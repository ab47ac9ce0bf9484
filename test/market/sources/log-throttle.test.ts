import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clockAt } from '../../../src/lib/clock.ts';
import { createLogger } from '../../../src/log.ts';
import { LogThrottle } from '../../../src/market/sources/log-throttle.ts';

describe('LogThrottle', () => {
  it('writes the first event, then one line per interval per key carrying the suppressed count', () => {
    const lines: Array<Record<string, unknown>> = [];
    const log = createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
    let now = 0;
    const throttle = new LogThrottle(log, 1000, { clock: clockAt(() => now) });
    let built = 0;
    const fields = () => (built++, { n: built });
    for (let i = 0; i < 100; i++) throttle.warn('a', fields, 'bad a');
    throttle.warn('b', { x: 1 }, 'bad b');
    assert.deepEqual(
      lines.map((l) => l.msg),
      ['bad a', 'bad b'],
    );
    assert.equal(built, 1, 'details are built only for lines written');
    now = 1000;
    throttle.warn('a', fields, 'bad a');
    assert.equal(lines.length, 3);
    assert.equal(lines[2]!.suppressed, 99);
    assert.equal(lines[2]!.level, 40);
  });
});
