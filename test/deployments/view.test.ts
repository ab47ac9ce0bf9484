/**
 * The one view of deployments on a real nats-server: the key format, a user's deployments, lookup
 * by stem or display name, removal, and the followed index every reader keeps (changes with what
 * came before, a redeploy as a new id under the same key).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openBucket } from '../../src/bus/index.ts';
import { deploymentKey, DeploymentsView, type DeploymentChange } from '../../src/deployments/index.ts';
import type { DeploymentRecord } from '../../schemas/live.ts';
import { Buckets } from '../../schemas/messages.ts';
import { startNats, until, type TestNats } from '../helpers/nats.ts';

const record = (userId: number, name: string, id: string, createdAt: number): DeploymentRecord => ({
  deployment_id: id,
  user_id: userId,
  username: `u${userId}`,
  model_name: name,
  stem: `${userId}_EURUSD_1h_${name}`,
  symbol: 'EURUSD',
  timeframe: '1h',
  channels: ['webhook'],
  webhook_url: 'https://example.com/hook',
  webhook_secret: 'whsec_x',
  messenger_chat_id: null,
  created_at: createdAt,
});

describe('deployments view', () => {
  let nats: TestNats;
  let view: DeploymentsView;

  before(async () => {
    nats = await startNats('deployments-view');
    view = new DeploymentsView(await openBucket(nats.bus, Buckets.deployments));
  });
  after(() => nats.close());

  it('keys a deployment by user and hex of the model name, one per model', async () => {
    assert.equal(deploymentKey(42, 'Trend 1'), '42.5472656e642031');
    await view.put(record(42, 'Trend 1', 'dep_a', 2));
    await view.put(record(42, 'Mean revert', 'dep_b', 1));
    await view.put(record(43, 'Trend 1', 'dep_c', 3));
    assert.equal((await view.kv.get('42.5472656e642031'))?.value.deployment_id, 'dep_a');
    assert.deepEqual(
      (await view.ofUser(42)).map((d) => d.deployment_id),
      ['dep_b', 'dep_a'],
      'oldest first, only the user’s',
    );
    assert.equal((await view.ofModel(42, 'Trend 1'))?.deployment_id, 'dep_a');
    assert.equal(await view.ofModel(42, 'Nothing'), null);
  });

  it('finds a deployment by stem or display name, only the user’s own', async () => {
    assert.equal((await view.find(42, '42_EURUSD_1h_Mean revert'))?.deployment_id, 'dep_b');
    assert.equal((await view.find(42, 'Mean revert'))?.deployment_id, 'dep_b');
    assert.equal(await view.find(43, 'Mean revert'), null);
    assert.equal(await view.find(43, '42_EURUSD_1h_Trend 1'), null);
  });

  it('follows every deployment: the index and each change with what it replaced', async () => {
    const changes: DeploymentChange[] = [];
    const index = await view.follow((c) => changes.push(c));
    try {
      assert.deepEqual(
        index
          .all()
          .map((d) => d.deployment_id)
          .sort(),
        ['dep_a', 'dep_b', 'dep_c'],
      );
      assert.equal(index.get('dep_b')?.model_name, 'Mean revert');
      changes.length = 0;

      await view.put(record(42, 'Trend 1', 'dep_a2', 4)); // a redeploy: new id, same key
      await until('the redeploy', () => changes.length === 1);
      assert.equal(changes[0]!.previous?.deployment_id, 'dep_a');
      assert.equal(changes[0]!.current?.deployment_id, 'dep_a2');
      assert.equal(index.get('dep_a'), undefined);
      assert.equal(index.get('dep_a2')?.model_name, 'Trend 1');

      assert.equal(await view.remove(42, 'Mean revert'), true);
      assert.equal(await view.remove(42, 'Mean revert'), false);
      await until('the removal', () => changes.length === 2);
      assert.equal(changes[1]!.previous?.deployment_id, 'dep_b');
      assert.equal(changes[1]!.current, null);
      assert.deepEqual(
        index
          .all()
          .map((d) => d.deployment_id)
          .sort(),
        ['dep_a2', 'dep_c'],
      );
    } finally {
      index.stop();
    }
  });

  it('marks a deployment failed for good, only that deployment: not one deployed again since, nor a removed one', async () => {
    await view.put(record(44, 'Refused', 'dep_f1', 5));
    assert.equal(await view.markFailed(record(44, 'Refused', 'dep_f1', 5), 'why, for the owner', 1234), true);
    assert.deepEqual((await view.ofModel(44, 'Refused'))?.failure, { reason: 'why, for the owner', at: 1234 });
    assert.equal(await view.markFailed(record(44, 'Refused', 'dep_f1', 5), 'again', 5678), true);
    assert.deepEqual((await view.ofModel(44, 'Refused'))?.failure, { reason: 'why, for the owner', at: 1234 }, 'the first failure stands');
    // Deployed again (a retrain): the old deployment's actor cannot fail the new one.
    await view.put(record(44, 'Refused', 'dep_f2', 6));
    assert.equal(await view.markFailed(record(44, 'Refused', 'dep_f1', 5), 'late', 7), false);
    assert.equal((await view.ofModel(44, 'Refused'))?.failure, undefined);
    await view.remove(44, 'Refused');
    assert.equal(await view.markFailed(record(44, 'Refused', 'dep_f2', 6), 'gone', 8), false);
    assert.equal(await view.ofModel(44, 'Refused'), null, 'nothing written for an undeployed model');
  });
});
