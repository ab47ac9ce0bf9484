import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { limitRefusal, SlidingWindowLimiter, type LimitDecision } from '../../src/accounts/rate-limiter.ts';

const limiters: SlidingWindowLimiter[] = [];
const limiter = (max: number, windowMs: number): SlidingWindowLimiter => {
  const l = new SlidingWindowLimiter(max, windowMs);
  limiters.push(l);
  return l;
};
after(() => {
  for (const l of limiters) l.stop();
});

// Times near the real clock, so the background sweeper (which uses Date.now()) sees them as recent.
const T0 = Date.now();

const retryAfter = (d: LimitDecision): number => {
  assert.equal(d.ok, false, 'expected a rejection');
  return (d as { ok: false; retryAfterMs: number }).retryAfterMs;
};

describe('SlidingWindowLimiter', () => {
  it('allows exactly max events in one window, then rejects', () => {
    const l = limiter(5, 60_000);
    for (let i = 0; i < 5; i++) assert.deepEqual(l.take('k', T0 + i), { ok: true }, `event ${i + 1}`);
    for (let i = 0; i < 10; i++) assert.equal(l.take('k', T0 + 10 + i).ok, false, 'over the limit');
  });

  it('a burst at one instant: exactly max pass', () => {
    const l = limiter(120, 60_000);
    let ok = 0;
    for (let i = 0; i < 500; i++) if (l.take('k', T0).ok) ok++;
    assert.equal(ok, 120);
  });

  it('rolls: events leave the window one by one, each freeing one slot', () => {
    const l = limiter(3, 1_000);
    // Events at +0, +100, +200.
    assert.equal(l.take('k', T0).ok, true);
    assert.equal(l.take('k', T0 + 100).ok, true);
    assert.equal(l.take('k', T0 + 200).ok, true);
    // Full until the first event is a whole window old.
    assert.equal(retryAfter(l.take('k', T0 + 999)), 1);
    // At +1000 the +0 event has left: exactly one more fits.
    assert.equal(l.take('k', T0 + 1_000).ok, true);
    assert.equal(retryAfter(l.take('k', T0 + 1_000)), 100, 'next to leave is the +100 event');
    assert.equal(retryAfter(l.take('k', T0 + 1_050)), 50);
    // The +100 event leaves at +1100, the +200 event at +1200: one slot each, not all at once.
    assert.equal(l.take('k', T0 + 1_100).ok, true);
    assert.equal(l.take('k', T0 + 1_100).ok, false);
    assert.equal(l.take('k', T0 + 1_199).ok, false);
    assert.equal(l.take('k', T0 + 1_200).ok, true);
    assert.equal(l.take('k', T0 + 1_200).ok, false);
    // Window now holds +1000, +1100, +1200.
    assert.equal(retryAfter(l.take('k', T0 + 1_500)), 500);
  });

  it('is not a fixed window: no 2x burst across a window edge', () => {
    const l = limiter(10, 1_000);
    // 10 at the very end of one "fixed" window…
    for (let i = 0; i < 10; i++) assert.equal(l.take('k', T0 + 990).ok, true);
    // …then none at the start of the next: a fixed-window counter would reset here.
    for (let t = 1_000; t < 1_990; t += 97) assert.equal(l.take('k', T0 + t).ok, false, `at +${t}`);
    // Only when those 10 are a full window old do they leave.
    let ok = 0;
    for (let i = 0; i < 20; i++) if (l.take('k', T0 + 1_990).ok) ok++;
    assert.equal(ok, 10);
  });

  it('does not count rejected attempts against the caller', () => {
    const l = limiter(2, 1_000);
    assert.equal(l.take('k', T0).ok, true);
    assert.equal(l.take('k', T0 + 500).ok, true);
    // Hammering while limited must not push the reopening later.
    for (let t = 501; t < 1_000; t++) assert.equal(l.take('k', T0 + t).ok, false);
    assert.equal(l.take('k', T0 + 1_000).ok, true);
    assert.equal(l.take('k', T0 + 1_500).ok, true);
  });

  it('retryAfterMs is exact: waiting that long is enough, a millisecond less is not', () => {
    const l = limiter(4, 60_000);
    const stamps = [T0, T0 + 1_234, T0 + 5_000, T0 + 30_001];
    for (const t of stamps) assert.equal(l.take('k', t).ok, true);
    let now = T0 + 40_000;
    for (let round = 0; round < 8; round++) {
      const wait = retryAfter(l.take('k', now));
      assert.ok(wait > 0);
      assert.equal(l.take('k', now + wait - 1).ok, false, `round ${round}: 1 ms early`);
      assert.equal(l.take('k', now + wait).ok, true, `round ${round}: on time`);
      now += wait;
    }
  });

  it('retryAfterMs counts from the oldest event in the window', () => {
    const l = limiter(2, 60_000);
    l.take('k', T0);
    l.take('k', T0 + 10_000);
    assert.equal(retryAfter(l.take('k', T0 + 20_000)), 40_000);
    assert.equal(retryAfter(l.take('k', T0 + 59_999)), 1);
  });

  it('keeps keys independent', () => {
    const l = limiter(2, 60_000);
    assert.equal(l.take('alice', T0).ok, true);
    assert.equal(l.take('alice', T0).ok, true);
    assert.equal(l.take('alice', T0).ok, false);
    // bob is untouched by alice's limit, and vice versa.
    assert.equal(l.take('bob', T0 + 5).ok, true);
    assert.equal(l.take('bob', T0 + 6).ok, true);
    assert.equal(l.take('bob', T0 + 7).ok, false);
    assert.equal(l.take('carol', T0 + 3).ok, true);
    assert.equal(retryAfter(l.take('alice', T0 + 30_000)), 30_000);
    assert.equal(retryAfter(l.take('bob', T0 + 30_000)), 30_005);
  });

  it('max 1 behaves as one event per window', () => {
    const l = limiter(1, 1_000);
    assert.equal(l.take('k', T0).ok, true);
    assert.equal(retryAfter(l.take('k', T0 + 1)), 999);
    assert.equal(l.take('k', T0 + 1_000).ok, true);
    assert.equal(l.take('k', T0 + 1_999).ok, false);
    assert.equal(l.take('k', T0 + 2_000).ok, true);
  });

  it('reports the max and window it enforces (the 429 message quotes max)', () => {
    // Odd settings, so neither can pass for a default: max takes go through at one instant, the
    // next is told to wait exactly the window.
    const l = limiter(7, 3_000);
    let ok = 0;
    for (let i = 0; i < 100; i++) if (l.take('k', T0).ok) ok++;
    assert.equal(ok, l.max);
    assert.equal(retryAfter(l.take('k', T0)), l.windowMs);
    assert.deepEqual([l.max, l.windowMs], [7, 3_000]);
  });

  it('defaults now to the real clock', () => {
    const l = limiter(2, 60_000);
    const first = Date.now();
    assert.equal(l.take('k').ok, true);
    assert.equal(l.take('k').ok, true);
    const refused = l.take('k');
    const since = Date.now() - first;
    // The window started at the first take by the real clock: what is left of it, however slowly
    // the three takes ran.
    const wait = retryAfter(refused);
    assert.ok(wait >= 60_000 - since - 1 && wait <= 60_000, `retry after ${wait} ms, ${since} ms after the first take`);
  });
});

describe('limitRefusal', () => {
  it('names the limit when the key spent it, and says it cannot be counted when the KV is away (never the limit then)', () => {
    assert.equal(
      limitRefusal({ ok: false, retryAfterMs: 30_000 }, 120, 'retry in 30 s', ' (subscribe and predict count)'),
      'rate limit: at most 120 requests per minute per key (subscribe and predict count); retry in 30 s',
    );
    const away = limitRefusal({ ok: false, retryAfterMs: 1000, unavailable: true }, 120, 'retry after the Retry-After seconds');
    assert.match(away, /cannot be counted right now/);
    assert.doesNotMatch(away, /at most/);
  });
});
