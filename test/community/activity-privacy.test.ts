import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toPublic } from '../../src/community/activity-privacy.ts';
import { ActivityEvent } from '../../schemas/activity.ts';

/** The one privacy rule of the public activity surfaces: a private model's signals are announced, not revealed. */
describe('toPublic', () => {
  const model = {
    name: 'Model 1',
    stem: '7_EURUSD_15min_Model 1',
    symbol: 'EURUSD' as const,
    timeframe: '15min' as const,
    model_type: 'XGBClassifier',
  };

  it('drops the side and price of a live signal, and the metrics object they leave empty', () => {
    const shown = toPublic({ kind: 'SIGNAL_FIRED', bot: 'alice', model, metrics: { side: 'long', price: 1.08421 } });
    assert.deepEqual(shown, { kind: 'SIGNAL_FIRED', bot: 'alice', model });
    assert.ok(!JSON.stringify(shown).includes('1.08421'));
  });

  it('keeps headline metrics beside them, and leaves other events as they are', () => {
    assert.deepEqual(toPublic({ kind: 'SIGNAL_FIRED', bot: 'a', metrics: { side: 'short', price: 150.2, n: 3 } }), {
      kind: 'SIGNAL_FIRED',
      bot: 'a',
      metrics: { n: 3 },
    });
    const trained = { kind: 'TRAINED' as const, bot: 'a', model, metrics: { n: 40, wr: 0.55, ret: 0.02, pf: 1.3, mdd: -0.04 } };
    assert.deepEqual(toPublic(trained), trained);
    assert.deepEqual(toPublic({ kind: 'FORKED', bot: 'b', community_id: 2, parent_id: 1 }), {
      kind: 'FORKED',
      bot: 'b',
      community_id: 2,
      parent_id: 1,
    });
  });

  it('yields what the public event schema accepts, which has no room for side or price', () => {
    const event = {
      ...toPublic({ kind: 'SIGNAL_FIRED', bot: 'a', model, metrics: { side: 'long', price: 1.1 } }),
      id: 1,
      ts: new Date().toISOString(),
    };
    assert.equal(ActivityEvent.safeParse(event).success, true);
    assert.equal(ActivityEvent.safeParse({ ...event, metrics: { side: 'long' } }).success, false);
    assert.equal(ActivityEvent.safeParse({ ...event, metrics: { price: 1.1 } }).success, false);
  });
});
