/**
 * `signalforge admin plan <username> <free|pro>` as an operator runs it: the real CLI as a child
 * process on the data directory of a running service (found through DATA_DIR/run.json, the
 * service sees the change at once), then with the service stopped (the CLI starts NATS on the
 * store itself, and the next start finds the plan). Pro's monthly allowance is topped up at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openBucket } from '../../src/bus/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { runCli } from '../helpers/cli.ts';
import { until } from '../helpers/nats.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const admin = (dataDir: string, args: string[]) => runCli(dataDir, ['admin', ...args]);

describe('signalforge admin plan', () => {
  let sf: TestService;
  let user: { api_key: string; user_id: number; username: string };
  before(async () => {
    sf = await startTestService();
    user = await sf.mintKey('Plan_Holder');
  });
  after(() => sf.stop());

  const planOf = async (): Promise<string> => {
    const res = await sf.api('GET', '/api/v1/whoami-key', { key: user.api_key });
    assert.equal(res.status, 200, res.text);
    return res.body.plan;
  };

  it('puts a user on pro while the service runs; the service sees it without a restart', async () => {
    assert.equal(await planOf(), 'free');
    const ran = await admin(sf.dataDir, ['plan', 'plan_holder', 'pro']);
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(ran.stdout, `Plan_Holder (user ${user.user_id}): plan free → pro\n`, 'the handle is matched case-insensitively');
    await until('whoami shows pro', async () => (await planOf()) === 'pro');
    // The service topped the balance up to pro's monthly allowance on seeing the change: KV has it
    // before any credit call (the first one would do it too).
    const credits = await openBucket(sf.service.bus, Buckets.credits);
    await until('the pro allowance is in', async () => (await credits.get(String(user.user_id)))?.value.balance === 500_000);
    const usage = await sf.api('GET', '/api/v1/key/usage', { key: user.api_key });
    assert.deepEqual(
      usage.body.history.map((e: { delta: number; reason: string }) => [e.delta, e.reason]),
      [
        [499_950, 'monthly_allowance'],
        [50, 'signup'],
      ],
    );
    const caps = await sf.api('GET', '/api/v1/caps', { key: user.api_key });
    assert.equal(caps.body.plan, 'pro');

    const again = await admin(sf.dataDir, ['plan', 'Plan_Holder', 'pro']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, `Plan_Holder (user ${user.user_id}): plan already pro\n`);
  });

  it('refuses an unknown user (exit 1) and bad arguments (exit 2), changing nothing', async () => {
    const unknown = await admin(sf.dataDir, ['plan', 'nobody-here', 'pro']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^signalforge: no user named "nobody-here"/);
    for (const args of [
      ['plan', 'Plan_Holder', 'gold'],
      ['plan', 'Plan_Holder'],
      ['plans', 'Plan_Holder', 'pro'],
      ['plan', 'Plan_Holder', 'free', 'x'],
    ]) {
      const bad = await admin(sf.dataDir, args);
      assert.equal(bad.code, 2, args.join(' '));
      assert.match(bad.stderr, /admin plan <username> <free\|pro>/);
      assert.match(bad.stderr, /usage: signalforge/);
    }
    assert.equal(await planOf(), 'pro');
  });

  it('with the service stopped, changes the stored plan; the next start finds it', async () => {
    await sf.service.close();
    const ran = await admin(sf.dataDir, ['plan', 'Plan_Holder', 'free']);
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(ran.stdout, `Plan_Holder (user ${user.user_id}): plan pro → free\n`);
    await sf.restart();
    assert.equal(await planOf(), 'free');
    const usage = await sf.api('GET', '/api/v1/key/usage', { key: user.api_key });
    assert.equal(usage.body.balance, 500_000, 'a downgrade takes no credits back (and a free trial has no allowance)');
  });
});
